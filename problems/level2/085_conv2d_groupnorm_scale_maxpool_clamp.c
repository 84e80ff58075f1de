/*
 * level2/085_conv2d_groupnorm_scale_maxpool_clamp -- KernelBench L2/85: x = conv(x);
 * x = self.group_norm(x); x = x * self.scale; x = self.maxpool(x); x = torch.clamp(x, 0.0, 1.0),
 * with conv = nn.Conv2d(8, 64, 3), group_norm = nn.GroupNorm(16, 64) (eps 1e-5), scale
 * (64, 1, 1) = ones and maxpool = nn.MaxPool2d(kernel_size=4) (stride 4), on
 * x (128, 8, 128, 128) fp32 -> (128, 64, 31, 31).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, native_group_norm (moments, fused params, one elementwise pass), the
 * broadcast multiply, max_pool2d_with_indices (the int64 indices written, then freed) and clamp:
 * eight kernels, each temporary freed when the next op has read it. (126 / 4 = 31: the last two
 * rows and columns are never read by the pool.) Napkin math: 2 * 128*64*126*126 * 72 = 1.9e10
 * FLOP, ~0.05 ms at ~400 TFLOP/s TF32 (0.28 ms at 67 TFLOP/s FP32); the conv output is 0.52 GB,
 * written, read and written by the bias add, read twice and written by the group norm, read and
 * written by the multiply, read by the pool; the pooled 31 MB (+ 62 MB of indices) is read and
 * written by clamp: ~4.9 GB of traffic, ~1.1 ms at ~4.3 TB/s: memory-bound. Eager: 2.51 ms on an
 * H100 (reference/kernelbench-problems.csv), 2.36 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: the conv's 72 products times the 4*126*126 values
 * of each group's statistics (a max adds none).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1, GROUPS = 16,
       POOL = 4 };
enum { PH = (OH - POOL) / POOL + 1, PW = (OW - POOL) / POOL + 1 }; /* 31 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor g = kb_group_norm(r, KB_NEW, c, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"),
                                1e-5);
    kb_drop(r, c);
    kb_tensor s = kb_mul(r, KB_NEW, g, kb_arg(r, "scale"));
    kb_drop(r, g);
    kb_tensor p = kb_max_pool2d(r, KB_NEW, s, POOL, /*stride=None*/ 0, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
    kb_drop(r, s);
    kb_clamp(r, kb_arg(r, "y"), p, 0.0, 1.0);
}

KB_PROBLEM(.title = "Conv2d GroupNorm Scale MaxPool Clamp",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("scale", KB_F32, KB_DIMS(COUT, 1, 1), KB_ONES),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, PH, PW),
                                .terms = (int64_t)CIN * K * K * (COUT / GROUPS) * OH * OW)),
           /* the convolution, its bias, the group norm (8), the multiply per conv output, the
            * pool's comparisons, the clamp per pooled element */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 10.0 * BATCH * COUT * OH * OW +
                    (POOL * POOL + 1.0) * BATCH * COUT * PH * PW,
           .flags = KB_PROB_CENTERED)
