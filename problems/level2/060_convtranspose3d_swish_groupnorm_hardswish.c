/*
 * level2/060_convtranspose3d_swish_groupnorm_hardswish -- KernelBench L2/60:
 * x = conv_transpose(x); x = F.hardswish(group_norm(torch.sigmoid(x) * x)), with conv_transpose =
 * nn.ConvTranspose3d(3, 16, 3, stride=2, padding=1) and group_norm = nn.GroupNorm(4, 16, eps=1e-5),
 * on x (128, 3, 16, 32, 32) fp32 -> (128, 16, 31, 63, 63).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, sigmoid, the multiply, native_group_norm (row moments per
 * (n, group), the fused parameters, the elementwise y = a*x + b), hardswish: each temporary freed
 * when the next op has read it. Napkin math: 2 * 128*3*16 * (46*94*94 input-tap pairs inside the
 * output) = 5.0e9 FLOP, ~0.08 ms of TF32 at ~60 TFLOP/s; the conv output is 0.94 GiB, written by
 * cuDNN, read and written by the bias add and sigmoid, read twice by the multiply, read twice and
 * written by the GroupNorm, read and written by hardswish: ~13 GB of traffic, ~3.0 ms at ~4.3 TB/s:
 * memory bound. Eager: 7.7 ms on an H100 (reference/kernelbench-problems.csv), 6.68 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 16, GROUPS = 4, D = 16, H = 32, W = 32, K = 3, S = 2, P = 1 };
enum { OD = (D - 1) * S - 2 * P + K, OH = (H - 1) * S - 2 * P + K, OW = (W - 1) * S - 2 * P + K }; /* 31, 63, 63 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}));
    kb_tensor s = kb_sigmoid(r, KB_NEW, c);
    kb_tensor m = kb_mul(r, KB_NEW, s, c); /* torch.sigmoid(x) * x */
    kb_drop(r, s);
    kb_drop(r, c);
    kb_tensor g = kb_group_norm(r, KB_NEW, m, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"), 1e-5);
    kb_drop(r, m);
    kb_hardswish(r, kb_arg(r, "y"), g);
}

KB_PROBLEM(.title = "ConvTranspose3d Swish GroupNorm HardSwish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           /* terms: the 24 products that reach a conv output (C_in * 2*2*2 taps), the group
            * statistics over 4*31*63*63 values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW),
                                .terms = (int64_t)CIN * 8 * (COUT / GROUPS) * OD * OH * OW)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 46, 94, 94),
            * then per element: the bias add, sigmoid 4, the multiply, 8 for the GroupNorm, hardswish 4 */
           .flops = 2.0 * BATCH * CIN * COUT * 46.0 * 94.0 * 94.0 + 18.0 * BATCH * COUT * OD * OH * OW)
