/*
 * level2/049_convtranspose3d_softmax_sigmoid -- KernelBench L2/49: x = sigmoid(softmax(conv_transpose(x))),
 * with conv_transpose = nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1),
 * softmax = nn.Softmax(dim=1) and sigmoid = nn.Sigmoid(), on x (16, 32, 16, 32, 32) fp32
 * -> (16, 64, 32, 64, 64).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, the softmax over the channels (dim 1 of NCDHW, inner size
 * 32*64*64: PyTorch's spatial softmax), sigmoid: four kernels, each temporary freed when the next
 * op has read it. Napkin math: 2 * 16*32*64 * (47*95*95 input-tap pairs inside the output) =
 * 2.8e10 FLOP, ~0.46 ms of TF32 at ~60 TFLOP/s; y is 0.5 GiB, written by the conv, read and
 * written by the bias add, the softmax and sigmoid: ~3.8 GB of traffic, ~0.88 ms at ~4.3 TB/s.
 * Eager: 2.89 ms on an H100 (reference/kernelbench-problems.csv), 2.45 ms on an H200
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
    kb_tensor s = kb_softmax(r, KB_NEW, c, 1);
    kb_drop(r, c);
    kb_sigmoid(r, kb_arg(r, "y"), s);
}

KB_PROBLEM(.title = "ConvTranspose3d Softmax Sigmoid",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 256 products that reach a conv output (C_in * 2*2*2 taps), the softmax's sum
            * over 64 channels */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * 8 * COUT)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 47, 95, 95),
            * then per element: the bias add, 5 for the softmax, sigmoid 4 */
           .flops = 2.0 * BATCH * CIN * COUT * 47.0 * 95.0 * 95.0 + 10.0 * BATCH * COUT * OD * OH * OW)
