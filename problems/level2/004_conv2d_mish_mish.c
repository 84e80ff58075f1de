/*
 * level2/004_conv2d_mish_mish -- KernelBench L2/4: x = mish(mish(conv(x))), with
 * conv = nn.Conv2d(64, 128, 3), on x (64, 64, 256, 256) fp32 -> (64, 128, 254, 254).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, then two F.mish kernels: four kernels, each temporary freed when the next op
 * has read it. Napkin math: 2 * 64*128*254*254 * 576 = 6.1e11 FLOP, ~1.5 ms at ~400 TFLOP/s
 * TF32 (9.1 ms at 67 TFLOP/s FP32); y is 2.1 GB, written by the conv, read and written by the
 * bias add and each mish: ~15.9 GB of traffic, ~3.7 ms at ~4.3 TB/s. Eager: 8.49 ms on an H100
 * (reference/kernelbench-problems.csv), 7.42 ms on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 64, CIN = 64, COUT = 128, H = 256, W = 256, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor m = kb_mish(r, KB_NEW, c);
    kb_drop(r, c);
    kb_mish(r, kb_arg(r, "y"), m);
}

KB_PROBLEM(.title = "Conv2d Mish Mish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * K * K)),
           /* the convolution, then one per element for its bias and each mish */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 3.0 * BATCH * COUT * OH * OW)
