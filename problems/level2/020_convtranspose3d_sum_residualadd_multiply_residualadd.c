/*
 * level2/020_convtranspose3d_sum_residualadd_multiply_residualadd -- KernelBench L2/20:
 * x = conv_transpose(x); o = x.clone().detach(); x = (((x + self.bias) + o) * o) + o, with
 * conv_transpose = nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1) and bias
 * (64, 1, 1, 1) ~ randn, on x (16, 32, 16, 32, 32) fp32 -> (16, 64, 32, 64, 64).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, the clone (a copy kernel; detach is a view), the broadcast add,
 * then add, multiply and add with the clone: seven kernels; the conv output is freed once the
 * first add has read it, the clone lives to the end. Napkin math: 2 * 16*32*64 * (47*95*95
 * input-tap pairs inside the output) = 2.8e10 FLOP, ~0.46 ms of TF32 at ~60 TFLOP/s; the conv
 * output is 0.5 GiB, written by cuDNN, read and written by the bias add and the clone, then four
 * elementwise ops, three of them reading two such tensors: ~8.6 GB of traffic, ~2.0 ms at
 * ~4.3 TB/s. Eager: 3.55 ms on an H100 (reference/kernelbench-problems.csv), 2.80 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 32, COUT = 64, D = 16, H = 32, W = 32, K = 3, S = 2, P = 1, OP = 1 };
enum { OD = (D - 1) * S - 2 * P + K + OP, OH = (H - 1) * S - 2 * P + K + OP, OW = (W - 1) * S - 2 * P + K + OP }; /* 32, 64, 64 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}, .output_padding = {OP, OP, OP}));
    kb_tensor o = kb_copy(r, KB_NEW, c); /* original_x = x.clone().detach() */
    kb_tensor a = kb_add(r, KB_NEW, c, kb_arg(r, "bias"));
    kb_drop(r, c);
    kb_tensor b = kb_add(r, KB_NEW, a, o);
    kb_drop(r, a);
    kb_tensor m = kb_mul(r, KB_NEW, b, o);
    kb_drop(r, b);
    kb_add(r, kb_arg(r, "y"), m, o);
}

KB_PROBLEM(.title = "ConvTranspose3d Sum ResidualAdd Multiply ResidualAdd",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 256 products that reach a conv output (C_in * 2*2*2 taps) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * 8)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 47, 95, 95),
            * then per element: the bias add and the four adds and multiplies */
           .flops = 2.0 * BATCH * CIN * COUT * 47.0 * 95.0 * 95.0 + 5.0 * BATCH * COUT * OD * OH * OW)
