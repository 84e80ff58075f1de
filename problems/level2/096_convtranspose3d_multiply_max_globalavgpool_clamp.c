/*
 * level2/096_convtranspose3d_multiply_max_globalavgpool_clamp -- KernelBench L2/96:
 * x = torch.clamp(global_avg_pool(maxpool(conv_transpose(x) * 0.5)), min=0, max=1), with
 * conv_transpose = nn.ConvTranspose3d(3, 16, 3, stride=2, padding=1), maxpool = nn.MaxPool3d(2)
 * and global_avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1)), on x (128, 3, 16, 32, 32) fp32
 * -> (128, 16, 1, 1, 1).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, the multiply by the Python float, max_pool3d_with_indices
 * (indices computed and dropped), the adaptive pool to 1x1x1 (at::adaptive_avg_pool3d's
 * shortcut: mean over the three spatial dims, keepdim), the clamp (int bounds 0 and 1): six
 * kernels, each temporary freed when the next op has read it. Napkin math: 2 * 128*3*16 *
 * (46*94*94 input-tap pairs inside the output) = 5.0e9 FLOP, ~0.08 ms of TF32 at ~60 TFLOP/s; the
 * conv output is 0.94 GiB, written by cuDNN, read and written by the bias add and the multiply,
 * read by the pool: ~6.6 GB of traffic, ~1.5 ms at ~4.3 TB/s: memory bound. Eager: 5.35 ms on an
 * H100 (reference/kernelbench-problems.csv), 4.88 ms on an H200 (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 16, D = 16, H = 32, W = 32, K = 3, S = 2, P = 1, POOL = 2 };
enum { CD = (D - 1) * S - 2 * P + K, CH = (H - 1) * S - 2 * P + K, CW = (W - 1) * S - 2 * P + K }; /* 31, 63, 63 */
enum { PD = CD / POOL, PH = CH / POOL, PW = CW / POOL };                                            /* 15, 31, 31 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}));
    kb_tensor s = kb_muls(r, KB_NEW, c, 0.5); /* self.scale */
    kb_drop(r, c);
    kb_tensor p = kb_max_pool3d(r, KB_NEW, s, POOL, /*stride=None*/ 0, 0, 1, /*ceil_mode=*/0);
    kb_drop(r, s);
    kb_tensor g = kb_adaptive_avg_pool_nd(r, KB_NEW, p, 3, (const int64_t[]){1, 1, 1});
    kb_drop(r, p);
    kb_clamp(r, kb_arg(r, "y"), g, 0.0, 1.0); /* self.clamp_min, self.clamp_max */
}

KB_PROBLEM(.title = "ConvTranspose3d Multiply Max GlobalAvgPool Clamp",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 24 products that reach a conv output (C_in * 2*2*2 taps), the mean over
            * 15*31*31 pooled values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, 1, 1, 1), .terms = CIN * 8 * PD * PH * PW)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 46, 94, 94),
            * then per conv element: the bias add, the multiply, one comparison per pool tap; one add
            * per pooled value for the mean */
           .flops = 2.0 * BATCH * CIN * COUT * 46.0 * 94.0 * 94.0 + 3.0 * BATCH * COUT * CD * CH * CW +
                    1.0 * BATCH * COUT * PD * PH * PW)
