/*
 * level2/026_convtranspose3d_add_hardswish -- KernelBench L2/26:
 * x = conv_transpose(x) + add_input; x = x * F.hardswish(x), with conv_transpose =
 * nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1), on x (128, 32, 16, 16, 16)
 * and add_input (128, 64, 32, 32, 32) fp32 -> (128, 64, 32, 32, 32).
 *
 * The module's bias (64, 1, 1, 1, 1) ~ randn is a parameter that forward() never reads (it is
 * still a named parameter, so it is in the descriptor).
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, the add of add_input, hardswish, the multiply: five kernels, each
 * temporary freed when the next op has read it. Napkin math: 2 * 128*32*64 * (47*47*47 input-tap
 * pairs inside the output) = 5.4e10 FLOP, ~0.91 ms of TF32 at ~60 TFLOP/s; the conv output and
 * add_input are 1 GiB each: the conv writes, the bias add reads and writes, the add reads two and
 * writes, hardswish reads and writes, the multiply reads two and writes: ~11.9 GB of traffic,
 * ~2.8 ms at ~4.3 TB/s. Eager: 5.09 ms on an H100 (reference/kernelbench-problems.csv), 3.94 ms on
 * an H200 (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 32, COUT = 64, D = 16, H = 16, W = 16, K = 3, S = 2, P = 1, OP = 1 };
enum { OD = (D - 1) * S - 2 * P + K + OP, OH = (H - 1) * S - 2 * P + K + OP, OW = (W - 1) * S - 2 * P + K + OP }; /* 32 each */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}, .output_padding = {OP, OP, OP}));
    kb_tensor a = kb_add(r, KB_NEW, c, kb_arg(r, "add_input"));
    kb_drop(r, c);
    kb_tensor h = kb_hardswish(r, KB_NEW, a);
    kb_mul(r, kb_arg(r, "y"), a, h);
}

KB_PROBLEM(.title = "ConvTranspose3d Add HardSwish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_INPUT("add_input", KB_F32, KB_DIMS(BATCH, COUT, D * S, H * S, W * S), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 256 products that reach a conv output (C_in * 2*2*2 taps) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * 8)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output (47 per dim), then per
            * element: the bias add, the add, hardswish 4, the multiply */
           .flops = 2.0 * BATCH * CIN * COUT * 47.0 * 47.0 * 47.0 + 7.0 * BATCH * COUT * OD * OH * OW)
