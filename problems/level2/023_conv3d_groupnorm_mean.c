/*
 * level2/023_conv3d_groupnorm_mean -- KernelBench L2/23: x = group_norm(conv(x)).mean(dim=[1, 2, 3, 4]),
 * with conv = nn.Conv3d(3, 24, 3) and group_norm = nn.GroupNorm(8, 24), on x (128, 3, 24, 32, 32)
 * fp32 -> (128,).
 *
 * Excluded (KB_PROB_EXCLUDED), as the paper excludes it: with the GroupNorm's initial affine
 * (weight 1, bias 0) every group of every sample is normalised to mean 0, so the mean over
 * (C, D, H, W) -- the mean of the 8 group means -- is 0 up to rounding (|y| ~ 1e-8) whatever the
 * input; any kernel that writes zeros passes. It is still implemented faithfully.
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, native_group_norm (row moments per (n, group), the fused parameters, the
 * elementwise y = a*x + b), then one reduction kernel over dims 1-4. Napkin math:
 * 2 * 128*24*22*30*30 * 81 = 9.9e9 FLOP, ~0.16 ms of TF32 at ~60 TFLOP/s; the conv output is
 * 0.23 GiB, written by cuDNN, read and written by the bias add, read twice and written by the
 * GroupNorm, read by the mean: ~1.7 GB of traffic, ~0.4 ms at ~4.3 TB/s. Eager: 1.27 ms on an H100
 * (reference/kernelbench-problems.csv), 1.23 ms on an H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 24, GROUPS = 8, D = 24, H = 32, W = 32, K = 3 };
enum { OD = D - K + 1, OH = H - K + 1, OW = W - K + 1 }; /* 22, 30, 30 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor g = kb_group_norm(r, KB_NEW, c, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"), 1e-5);
    kb_drop(r, c);
    kb_mean_dims(r, kb_arg(r, "y"), g, (const int[]){1, 2, 3, 4}, 4, /*keepdim=*/0);
}

KB_PROBLEM(.title = "Conv3d GroupNorm Mean",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           /* terms: the conv's 81 products, the group statistics over 3*22*30*30 values, the mean
            * over 24*22*30*30 (their product: the conservative count) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH),
                                .terms = (int64_t)CIN * K * K * K * (COUT / GROUPS * OD * OH * OW) * (COUT * OD * OH * OW))),
           .flags = KB_PROB_EXCLUDED | KB_PROB_CENTERED,
           /* the conv, then per element: the bias add, 8 for the GroupNorm, one add for the mean */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * K * K * K + 10.0 * BATCH * COUT * OD * OH * OW)
