/*
 * level2/003_convtranspose3d_sum_layernorm_avgpool_gelu -- KernelBench L2/3:
 * x = gelu(avg_pool(norm(conv_transpose(x) + self.sum_weight))), with conv_transpose =
 * nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1), sum_weight a 0-d parameter
 * (torch.tensor(1.0)), norm = nn.LayerNorm((64,)) and avg_pool = nn.AvgPool3d(2), on
 * x (32, 32, 16, 32, 32) fp32 -> (32, 64, 16, 32, 32).
 *
 * LayerNorm((64,)) normalises the LAST axis, W = 64 (which only coincides with C = 64), as the
 * module does. sum_weight is a 0-d CUDA tensor: the add broadcasts it as a tensor operand (it is
 * not a CPU scalar), so it is passed as is, not through kb_number.
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, the add, native_layer_norm (one block per 64-element row),
 * avg_pool3d and gelu (erf): six kernels, each temporary freed when the next op has read it.
 * Napkin math: 2 * 32*32*64 * (47*95*95 input-tap pairs inside the output) = 5.6e10 FLOP, ~0.93 ms
 * of TF32 at ~60 TFLOP/s; the conv output is 1 GiB, written by cuDNN, read and written by the bias
 * add, the add and the LayerNorm, read by the pool: ~9.1 GB of traffic, ~2.1 ms at ~4.3 TB/s.
 * Eager: 10.1 ms on an H100 (reference/kernelbench-problems.csv), 9.77 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 32, CIN = 32, COUT = 64, D = 16, H = 32, W = 32, K = 3, S = 2, P = 1, OP = 1, POOL = 2 };
enum { CD = (D - 1) * S - 2 * P + K + OP, CH = (H - 1) * S - 2 * P + K + OP, CW = (W - 1) * S - 2 * P + K + OP };
enum { OD = CD / POOL, OH = CH / POOL, OW = CW / POOL }; /* conv 32, 64, 64; pooled 16, 32, 32 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}, .output_padding = {OP, OP, OP}));
    kb_tensor s = kb_add(r, KB_NEW, c, kb_arg(r, "sum_weight"));
    kb_drop(r, c);
    kb_tensor n = kb_layer_norm(r, KB_NEW, s, 1, kb_arg(r, "norm.weight"), kb_arg(r, "norm.bias"), 1e-5);
    kb_drop(r, s);
    kb_tensor p = kb_avg_pool3d(r, KB_NEW, n, POOL, /*stride=None*/ 0, 0, /*ceil_mode=*/0, /*count_include_pad=*/1,
                                /*divisor_override=None*/ 0);
    kb_drop(r, n);
    kb_gelu(r, kb_arg(r, "y"), p);
}

KB_PROBLEM(.title = "ConvTranspose3d Sum LayerNorm AvgPool GELU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("sum_weight", KB_F32, KB_SCALAR_DIMS, KB_CONST(1.0)),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           /* terms: the 256 products that reach a conv output (C_in * 2*2*2 taps), the row
            * statistics over 64 values, the pool's 8 */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * 8 * CW * POOL * POOL * POOL)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 47, 95, 95),
            * then per conv element: the bias add, the add, 8 for the LayerNorm, one per pool tap;
            * gelu per pooled element */
           .flops = 2.0 * BATCH * CIN * COUT * 47.0 * 95.0 * 95.0 + 11.0 * BATCH * COUT * CD * CH * CW +
                    1.0 * BATCH * COUT * OD * OH * OW)
