/*
 * level2/054_conv2d_multiply_leakyrelu_gelu -- KernelBench L2/54: x = conv(x);
 * x = x * self.multiplier; x = leaky_relu(x) (slope 0.01); x = gelu(x), with
 * conv = nn.Conv2d(64, 64, 3) and multiplier (64, 1, 1) ~ randn, on x (64, 64, 256, 256) fp32.
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, then the broadcast multiply, nn.LeakyReLU() and F.gelu (erf): five kernels,
 * each temporary freed when the next op has read it. Napkin math: 2 * 64*64*254*254 * 576 =
 * 3.0e11 FLOP, ~0.76 ms at ~400 TFLOP/s TF32 (4.5 ms at 67 TFLOP/s FP32); y is 1.06 GB, written
 * by the conv, read and written by the four elementwise kernels: ~10.6 GB of traffic, ~2.5 ms
 * at ~4.3 TB/s. Eager: 6.08 ms on an H100 (reference/kernelbench-problems.csv), 5.10 ms on the
 * H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 64, CIN = 64, COUT = 64, H = 256, W = 256, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor m = kb_mul(r, KB_NEW, c, kb_arg(r, "multiplier"));
    kb_drop(r, c);
    kb_tensor l = kb_leaky_relu(r, KB_NEW, m, 0.01);
    kb_drop(r, m);
    kb_gelu(r, kb_arg(r, "y"), l);
}

KB_PROBLEM(.title = "Conv2d Multiply LeakyReLU GELU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("multiplier", KB_F32, KB_DIMS(COUT, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * K * K)),
           /* the convolution, then one per element for its bias, the multiply, leaky_relu and gelu */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 4.0 * BATCH * COUT * OH * OW)
