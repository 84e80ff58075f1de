/*
 * level2/067_conv2d_gelu_globalavgpool -- KernelBench L2/67: x = gelu(conv(x));
 * x = F.adaptive_avg_pool2d(x, 1); x = x.squeeze(-1).squeeze(-1), with conv = nn.Conv2d(8, 64, 3),
 * on x (128, 8, 256, 256) fp32 -> (128, 64).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, F.gelu (erf), then adaptive_avg_pool2d with output 1, which at::
 * adaptive_avg_pool2d runs as x.mean({-1, -2}, keepdim=True): one reduction kernel; the squeezes
 * are views, so the reference writes the mean into y viewed as (128, 64, 1, 1). Four kernels,
 * each temporary freed when the next op has read it. Napkin math: 2 * 128*64*254*254 * 72 =
 * 7.6e10 FLOP, ~0.19 ms at ~400 TFLOP/s TF32 (1.1 ms at 67 TFLOP/s FP32); the conv output is
 * 2.1 GB, written, read and written by the bias add and gelu, read by the mean: ~13 GB of
 * traffic, ~3.0 ms at ~4.3 TB/s. Eager: 6.48 ms on an H100 (reference/kernelbench-problems.csv),
 * 5.85 ms on the H200 (reference/pytorch-eager-h200.csv). .terms: the conv's 72 products times
 * the 254*254 averaged values.
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, H = 256, W = 256, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor g = kb_gelu(r, KB_NEW, c);
    kb_drop(r, c);
    kb_adaptive_avg_pool_nd(r, KB_VIEW(r, kb_arg(r, "y"), BATCH, COUT, 1, 1), g, 2, (const int64_t[]){1, 1});
}

KB_PROBLEM(.title = "Conv2d GELU GlobalAvgPool",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT), .terms = (int64_t)CIN * K * K * OH * OW)),
           /* the convolution, then one per conv output for its bias, gelu and the mean's add */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 3.0 * BATCH * COUT * OH * OW)
