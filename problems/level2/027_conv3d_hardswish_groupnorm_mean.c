/*
 * level2/027_conv3d_hardswish_groupnorm_mean -- KernelBench L2/27:
 * x = torch.mean(group_norm(F.hardswish(conv(x))), dim=[2, 3, 4]), with conv = nn.Conv3d(3, 16, 4)
 * and group_norm = nn.GroupNorm(4, 16), on x (1024, 3, 16, 32, 32) fp32 -> (1024, 16).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, hardswish, native_group_norm (row moments per (n, group), the fused parameters,
 * the elementwise y = a*x + b), then one reduction kernel over the spatial dims: six kernels, each
 * temporary freed when the next op has read it. Napkin math: 2 * 1024*16*13*29*29 * 192 =
 * 6.9e10 FLOP, ~1.1 ms of TF32 at ~60 TFLOP/s; the conv output is 0.67 GiB, written by cuDNN, read
 * and written by the bias add and the hardswish, read twice and written by the GroupNorm, read by
 * the mean: ~6.7 GB of traffic, ~1.6 ms at ~4.3 TB/s. Eager: 9.92 ms on an H100
 * (reference/kernelbench-problems.csv), 11.9 ms on an H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, CIN = 3, COUT = 16, GROUPS = 4, D = 16, H = 32, W = 32, K = 4 };
enum { OD = D - K + 1, OH = H - K + 1, OW = W - K + 1 }; /* 13, 29, 29 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor h = kb_hardswish(r, KB_NEW, c);
    kb_drop(r, c);
    kb_tensor g = kb_group_norm(r, KB_NEW, h, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"), 1e-5);
    kb_drop(r, h);
    kb_mean_dims(r, kb_arg(r, "y"), g, (const int[]){2, 3, 4}, 3, /*keepdim=*/0);
}

KB_PROBLEM(.title = "Conv3d HardSwish GroupNorm Mean",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           /* terms: the conv's 192 products, the group statistics over 4*13*29*29 values, the mean
            * over 13*29*29 (their product: the conservative count) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT),
                                .terms = (int64_t)CIN * K * K * K * (COUT / GROUPS * OD * OH * OW) * (OD * OH * OW))),
           .flags = KB_PROB_CENTERED,
           /* the conv, then per element: the bias add, hardswish 4, 8 for the GroupNorm, one add for the mean */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * K * K * K + 14.0 * BATCH * COUT * OD * OH * OW)
