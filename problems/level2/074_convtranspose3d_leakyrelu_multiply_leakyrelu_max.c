/*
 * level2/074_convtranspose3d_leakyrelu_multiply_leakyrelu_max -- KernelBench L2/74:
 * x = max_pool(leaky_relu(leaky_relu(conv_transpose(x)) * self.multiplier)), with conv_transpose =
 * nn.ConvTranspose3d(16, 32, 3, stride=2, padding=1, output_padding=1), leaky_relu =
 * nn.LeakyReLU(0.2), multiplier (32, 1, 1, 1) ~ randn and max_pool = nn.MaxPool3d(2), on
 * x (16, 16, 16, 32, 32) fp32 -> (16, 32, 16, 32, 32).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, leaky_relu, the broadcast multiply, leaky_relu,
 * max_pool3d_with_indices (indices computed and dropped): six kernels, each temporary freed when
 * the next op has read it. Napkin math: 2 * 16*16*32 * (47*95*95 input-tap pairs inside the
 * output) = 7.0e9 FLOP, ~0.12 ms of TF32 at ~60 TFLOP/s; the conv output is 0.25 GiB, written by
 * cuDNN, read and written by the bias add and the three epilogue ops, read by the pool: ~2.8 GB of
 * traffic, ~0.65 ms at ~4.3 TB/s. Eager: 1.47 ms on an H100 (reference/kernelbench-problems.csv),
 * 1.29 ms on an H200 (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 16, COUT = 32, D = 16, H = 32, W = 32, K = 3, S = 2, P = 1, OP = 1, POOL = 2 };
enum { CD = (D - 1) * S - 2 * P + K + OP, CH = (H - 1) * S - 2 * P + K + OP, CW = (W - 1) * S - 2 * P + K + OP }; /* 32, 64, 64 */
enum { OD = CD / POOL, OH = CH / POOL, OW = CW / POOL };                                                       /* 16, 32, 32 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}, .output_padding = {OP, OP, OP}));
    kb_tensor a = kb_leaky_relu(r, KB_NEW, c, 0.2);
    kb_drop(r, c);
    kb_tensor m = kb_mul(r, KB_NEW, a, kb_arg(r, "multiplier"));
    kb_drop(r, a);
    kb_tensor b = kb_leaky_relu(r, KB_NEW, m, 0.2);
    kb_drop(r, m);
    kb_max_pool3d(r, kb_arg(r, "y"), b, POOL, /*stride=None*/ 0, 0, 1, /*ceil_mode=*/0);
}

KB_PROBLEM(.title = "ConvTranspose3d LeakyReLU Multiply LeakyReLU Max",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("multiplier", KB_F32, KB_DIMS(COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 128 products that reach a conv output (C_in * 2*2*2 taps) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * 8)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 47, 95, 95),
            * then per conv element: the bias add, the three epilogue ops, one comparison per pool tap */
           .flops = 2.0 * BATCH * CIN * COUT * 47.0 * 95.0 * 95.0 + 5.0 * BATCH * COUT * CD * CH * CW)
