/*
 * level2/035_conv2d_subtract_hardswish_maxpool_mish -- KernelBench L2/35: x = conv(x);
 * x = x - 0.5; x = hardswish(x); x = self.pool(x); x = mish(x), with conv = nn.Conv2d(64, 128, 3)
 * and pool = nn.MaxPool2d(2) (stride 2), on x (128, 64, 128, 128) fp32 -> (128, 128, 63, 63).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, the scalar subtraction, F.hardswish, max_pool2d_with_indices (the int64
 * indices written, then freed) and F.mish: six kernels, each temporary freed when the next op
 * has read it. Napkin math: 2 * 128*128*126*126 * 576 = 3.0e11 FLOP, ~0.75 ms at ~400 TFLOP/s
 * TF32 (4.5 ms at 67 TFLOP/s FP32); the conv output is 1.04 GB, written, read and written by the
 * bias add, the subtraction and hardswish, read by the pool; the pooled 0.26 GB (+ 0.52 GB of
 * indices) is read and written by mish: ~10.2 GB of traffic, ~2.4 ms at ~4.3 TB/s. Eager:
 * 5.11 ms on an H100 (reference/kernelbench-problems.csv), 4.60 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: the conv's 576 products (a max adds none).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 128, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1, POOL = 2 };
enum { PH = (OH - POOL) / POOL + 1, PW = (OW - POOL) / POOL + 1 }; /* 63 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor s = kb_subs(r, KB_NEW, c, 0.5);
    kb_drop(r, c);
    kb_tensor h = kb_hardswish(r, KB_NEW, s);
    kb_drop(r, s);
    kb_tensor p = kb_max_pool2d(r, KB_NEW, h, POOL, /*stride=None*/ 0, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
    kb_drop(r, h);
    kb_mish(r, kb_arg(r, "y"), p);
}

KB_PROBLEM(.title = "Conv2d Subtract HardSwish MaxPool Mish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, PH, PW), .terms = CIN * K * K)),
           /* the convolution, its bias, subtraction and hardswish per conv output, the pool's
            * comparisons, mish per pooled element */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 3.0 * BATCH * COUT * OH * OW +
                    (POOL * POOL + 1.0) * BATCH * COUT * PH * PW)
