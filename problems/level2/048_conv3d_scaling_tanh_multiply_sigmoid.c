/*
 * level2/048_conv3d_scaling_tanh_multiply_sigmoid -- KernelBench L2/48:
 * x = torch.sigmoid(torch.tanh(conv(x) * self.scaling_factor) * self.bias), with
 * conv = nn.Conv3d(3, 16, 3), scaling_factor and bias (16, 1, 1, 1) ~ randn, on
 * x (128, 3, 16, 64, 64) fp32 -> (128, 16, 14, 62, 62).
 *
 * The scaling_factor init argument (2) is unused: the scale is a randn parameter of bias_shape.
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, then the broadcast multiply, tanh, the broadcast multiply and sigmoid: six
 * kernels, each temporary freed when the next op has read it. Napkin math:
 * 2 * 128*16*14*62*62 * 81 = 1.8e10 FLOP, ~0.3 ms of TF32 at ~60 TFLOP/s; y is 0.41 GiB, written by
 * the conv, read and written by the bias add and each of the four epilogue ops: ~5.0 GB of
 * traffic, ~1.15 ms at ~4.3 TB/s: memory bound. Eager: 3.35 ms on an H100
 * (reference/kernelbench-problems.csv), 3.12 ms on an H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 16, D = 16, H = 64, W = 64, K = 3, OD = D - K + 1, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor s = kb_mul(r, KB_NEW, c, kb_arg(r, "scaling_factor"));
    kb_drop(r, c);
    kb_tensor t = kb_tanh(r, KB_NEW, s);
    kb_drop(r, s);
    kb_tensor b = kb_mul(r, KB_NEW, t, kb_arg(r, "bias"));
    kb_drop(r, t);
    kb_sigmoid(r, kb_arg(r, "y"), b);
}

KB_PROBLEM(.title = "Conv3d Scaling Tanh Multiply Sigmoid",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("scaling_factor", KB_F32, KB_DIMS(COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * K * K * K)),
           /* the conv, then per element: the bias add, two multiplies, tanh 4, sigmoid 4 */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * K * K * K + 11.0 * BATCH * COUT * OD * OH * OW)
