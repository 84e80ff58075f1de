/*
 * level2/087_conv2d_subtract_subtract_mish -- KernelBench L2/87: x = conv(x); x = x - 0.5;
 * x = x - 0.2; x = mish(x), with conv = nn.Conv2d(8, 64, 3), on x (128, 8, 256, 256) fp32.
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, then the two scalar subtractions (not folded: eager rounds after each) and
 * F.mish: five kernels, each temporary freed when the next op has read it. Napkin math:
 * 2 * 128*64*254*254 * 72 = 7.6e10 FLOP, ~0.19 ms at ~400 TFLOP/s TF32 (1.1 ms at 67 TFLOP/s
 * FP32); y is 2.1 GB, written by the conv, read and written by the bias add, both subtractions
 * and mish: ~19.3 GB of traffic, ~4.5 ms at ~4.3 TB/s: memory-bound. Eager: 8.57 ms on an H100
 * (reference/kernelbench-problems.csv), 7.29 ms on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, H = 256, W = 256, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor s1 = kb_subs(r, KB_NEW, c, 0.5);
    kb_drop(r, c);
    kb_tensor s2 = kb_subs(r, KB_NEW, s1, 0.2);
    kb_drop(r, s1);
    kb_mish(r, kb_arg(r, "y"), s2);
}

KB_PROBLEM(.title = "Conv2d Subtract Subtract Mish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * K * K)),
           /* the convolution, then one per element for its bias, both subtractions and mish */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 4.0 * BATCH * COUT * OH * OW)
