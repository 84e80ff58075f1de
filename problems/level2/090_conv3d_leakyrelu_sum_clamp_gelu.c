/*
 * level2/090_conv3d_leakyrelu_sum_clamp_gelu -- KernelBench L2/90:
 * x = F.gelu(torch.clamp(F.leaky_relu(conv(x), 0.2) + self.sum_tensor, -1.0, 1.0)), with
 * conv = nn.Conv3d(8, 64, 3) and sum_tensor (64, 1, 1, 1) ~ randn, on x (128, 8, 16, 64, 64) fp32
 * -> (128, 64, 14, 62, 62).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, then leaky_relu, the broadcast add, the clamp and gelu (erf): six kernels, each
 * temporary freed when the next op has read it. Napkin math: 2 * 128*64*14*62*62 * 216 = 1.9e11
 * FLOP, ~3.2 ms of TF32 at ~60 TFLOP/s; y is 1.64 GiB, written by the conv, read and written by the
 * bias add and each of the four epilogue ops: ~19.7 GB of traffic, ~4.6 ms at ~4.3 TB/s. Eager:
 * 11.4 ms on an H100 (reference/kernelbench-problems.csv), 10.1 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, D = 16, H = 64, W = 64, K = 3, OD = D - K + 1, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor l = kb_leaky_relu(r, KB_NEW, c, 0.2);
    kb_drop(r, c);
    kb_tensor s = kb_add(r, KB_NEW, l, kb_arg(r, "sum_tensor"));
    kb_drop(r, l);
    kb_tensor q = kb_clamp(r, KB_NEW, s, -1.0, 1.0);
    kb_drop(r, s);
    kb_gelu(r, kb_arg(r, "y"), q);
}

KB_PROBLEM(.title = "Conv3d LeakyReLU Sum Clamp GELU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("sum_tensor", KB_F32, KB_DIMS(COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * K * K * K)),
           /* the conv, then per element: the bias add, leaky_relu, the add, the clamp, gelu, 1 each */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * K * K * K + 5.0 * BATCH * COUT * OD * OH * OW)
