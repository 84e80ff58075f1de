/*
 * level2/046_conv2d_subtract_tanh_subtract_avgpool -- KernelBench L2/46: x = conv(x);
 * x = x - 0.5; x = tanh(x); x = x - 0.2; x = self.avgpool(x), with conv = nn.Conv2d(64, 128, 3)
 * and avgpool = nn.AvgPool2d(2) (stride 2, count_include_pad), on x (128, 64, 128, 128) fp32
 * -> (128, 128, 63, 63).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, the two scalar subtractions around tanh, then avg_pool2d_out_cuda_frame: six
 * kernels, each temporary freed when the next op has read it. Napkin math:
 * 2 * 128*128*126*126 * 576 = 3.0e11 FLOP, ~0.75 ms at ~400 TFLOP/s TF32 (4.5 ms at 67 TFLOP/s
 * FP32); the conv output is 1.04 GB, written, read and written by the bias add, both
 * subtractions and tanh, read by the pool: ~11.2 GB of traffic, ~2.6 ms at ~4.3 TB/s. Eager:
 * 5.65 ms on an H100 (reference/kernelbench-problems.csv), 5.02 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: the conv's 576 products times the pool's 4.
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 128, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1, POOL = 2 };
enum { PH = (OH - POOL) / POOL + 1, PW = (OW - POOL) / POOL + 1 }; /* 63 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor s1 = kb_subs(r, KB_NEW, c, 0.5);
    kb_drop(r, c);
    kb_tensor t = kb_tanh(r, KB_NEW, s1);
    kb_drop(r, s1);
    kb_tensor s2 = kb_subs(r, KB_NEW, t, 0.2);
    kb_drop(r, t);
    kb_avg_pool2d(r, kb_arg(r, "y"), s2, POOL, /*stride=None*/ 0, /*padding=*/0, /*ceil_mode=*/0,
                  /*count_include_pad=*/1, /*divisor_override=None*/ 0);
}

KB_PROBLEM(.title = "Conv2d Subtract Tanh Subtract AvgPool",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, PH, PW), .terms = CIN * K * K * POOL * POOL)),
           /* the convolution, its bias, two subtractions and tanh per conv output, the pool's sums */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 4.0 * BATCH * COUT * OH * OW +
                    1.0 * POOL * POOL * BATCH * COUT * PH * PW)
