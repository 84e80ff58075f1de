/*
 * level2/100_convtranspose3d_clamp_min_divide -- KernelBench L2/100:
 * x = torch.clamp(conv_transpose(x), min=-1.0) / 2.0, with conv_transpose =
 * nn.ConvTranspose3d(64, 128, 3, stride=2, padding=1), on x (16, 64, 24, 48, 48) fp32
 * -> (16, 128, 47, 95, 95).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, the clamp with only a lower bound (clamp_out -> clamp_min), the
 * division by the Python float (a multiply by 1/2 with a CPU scalar): four kernels, each
 * temporary freed when the next op has read it. Napkin math: 2 * 16*64*128 * (70*142*142
 * input-tap pairs inside the output) = 3.7e11 FLOP, ~6.2 ms of TF32 at ~60 TFLOP/s; y is 3.2 GiB,
 * written by the conv, read and written by the bias add, the clamp and the division: ~24.6 GB of
 * traffic, ~5.7 ms at ~4.3 TB/s. Eager: 13.6 ms on an H100 (reference/kernelbench-problems.csv),
 * 10.7 ms on an H200 (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 64, COUT = 128, D = 24, H = 48, W = 48, K = 3, S = 2, P = 1 };
enum { OD = (D - 1) * S - 2 * P + K, OH = (H - 1) * S - 2 * P + K, OW = (W - 1) * S - 2 * P + K }; /* 47, 95, 95 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}));
    kb_tensor q = kb_clamp_min(r, KB_NEW, c, -1.0); /* self.min_value */
    kb_drop(r, c);
    kb_divs(r, kb_arg(r, "y"), q, 2.0); /* self.divisor */
}

KB_PROBLEM(.title = "ConvTranspose3d Clamp Min Divide",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 512 products that reach a conv output (C_in * 2*2*2 taps) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * 8)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 70, 142, 142),
            * then per element: the bias add, the clamp, the division */
           .flops = 2.0 * BATCH * CIN * COUT * 70.0 * 142.0 * 142.0 + 3.0 * BATCH * COUT * OD * OH * OW)
