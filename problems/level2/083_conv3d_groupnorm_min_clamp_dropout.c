/*
 * level2/083_conv3d_groupnorm_min_clamp_dropout -- KernelBench L2/83:
 * x = dropout(torch.clamp(torch.min(norm(conv(x)), torch.tensor(0.0)), 0.0, 1.0)), with
 * conv = nn.Conv3d(3, 16, 3), norm = nn.GroupNorm(8, 16) and dropout = nn.Dropout(0.2) (the
 * module stays in training mode: live), on x (128, 3, 16, 64, 64) fp32 -> (128, 16, 14, 62, 62).
 *
 * Excluded (KB_PROB_EXCLUDED), as the paper excludes it: min(x, 0) <= 0 and clamp(., 0, 1) then
 * gives exactly 0 everywhere, so the dropout (which keeps or zeroes, scaling by 1.25) returns
 * zeros: the output is identically 0 whatever the input, and any kernel that writes zeros
 * passes. It is still implemented faithfully; flagged nondeterministic for the live dropout's
 * mask (the values are 0 whatever the mask).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, native_group_norm (row moments per (n, group), the fused parameters, the
 * elementwise y = a*x + b), torch.tensor(0.0, device=x.device) (a 0-d CUDA tensor: eager uploads it
 * with a 4-byte host-to-device copy, the reference fills it with one 1-element kernel), the
 * broadcast minimum, the clamp, then the fused dropout (keep mask and scaled output in one
 * kernel). Napkin math: 2 * 128*16*14*62*62 * 81 = 1.8e10 FLOP, ~0.3 ms of TF32 at ~60 TFLOP/s;
 * the conv output is 0.41 GiB, written by cuDNN, read and written by the bias add, the GroupNorm
 * (which reads it twice), the minimum, the clamp and the dropout (plus its 1-byte mask): ~5.4 GB
 * of traffic, ~1.3 ms at ~4.3 TB/s. Eager: 3.68 ms on an H100 (reference/kernelbench-problems.csv),
 * 3.46 ms on an H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 16, GROUPS = 8, D = 16, H = 64, W = 64, K = 3 };
enum { OD = D - K + 1, OH = H - K + 1, OW = W - K + 1 }; /* 14, 62, 62 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor g = kb_group_norm(r, KB_NEW, c, GROUPS, kb_arg(r, "norm.weight"), kb_arg(r, "norm.bias"), 1e-5);
    kb_drop(r, c);
    kb_tensor zero = kb_fill(r, kb_empty(r, KB_F32, 0, NULL), 0.0); /* torch.tensor(min_value, device=x.device) */
    kb_tensor m = kb_minimum(r, KB_NEW, g, zero);
    kb_drop(r, zero);
    kb_drop(r, g);
    kb_tensor q = kb_clamp(r, KB_NEW, m, 0.0, 1.0); /* min_value, max_value */
    kb_drop(r, m);
    kb_dropout(r, kb_arg(r, "y"), q, 0.2, /*training=*/1);
}

KB_PROBLEM(.title = "Conv3d GroupNorm Min Clamp Dropout",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           /* terms: the conv's 81 products, then the group statistics over 2*14*62*62 values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW),
                                .terms = (int64_t)CIN * K * K * K * (COUT / GROUPS) * OD * OH * OW)),
           .flags = KB_PROB_EXCLUDED | KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* the conv, then per element: the bias add, 8 for the GroupNorm, the minimum, the clamp,
            * the dropout's scale */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * K * K * K + 12.0 * BATCH * COUT * OD * OH * OW)
