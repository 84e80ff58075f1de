/*
 * level2/078_convtranspose3d_max_max_sum -- KernelBench L2/78:
 * x = torch.sum(max_pool2(max_pool1(conv_transpose(x))), dim=1, keepdim=True), with
 * conv_transpose = nn.ConvTranspose3d(32, 64, 5, stride=2, padding=2), max_pool1 =
 * nn.MaxPool3d(2) and max_pool2 = nn.MaxPool3d(3), on x (16, 32, 32, 32, 32) fp32
 * -> (16, 1, 10, 10, 10).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, two max_pool3d_with_indices (indices computed and dropped), the
 * sum over the channels: five kernels, each temporary freed when the next op has read it. Napkin
 * math: 2 * 16*32*64 * (156*156*156 input-tap pairs inside the output) = 2.5e11 FLOP, ~4.1 ms of
 * TF32 at ~60 TFLOP/s; the conv output is 0.95 GiB, written by cuDNN, read and written by the bias
 * add, read by the first pool: ~4.7 GB of traffic, ~1.1 ms at ~4.3 TB/s. Eager: 47.4 ms on an H100
 * (reference/kernelbench-problems.csv), 41.5 ms on an H200 (reference/pytorch-eager-h200.csv): ten
 * times the napkin estimate; the other kernels move under 4 GB, so nearly all of it is the
 * backward-data engine cuDNN's heuristics choose for this stride-2, 5x5x5 shape.
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 32, COUT = 64, D = 32, H = 32, W = 32, K = 5, S = 2, P = 2, POOL1 = 2, POOL2 = 3 };
enum { CD = (D - 1) * S - 2 * P + K, CH = (H - 1) * S - 2 * P + K, CW = (W - 1) * S - 2 * P + K }; /* 63 each */
enum { PD = CD / POOL1, PH = CH / POOL1, PW = CW / POOL1 };                                         /* 31 each */
enum { OD = PD / POOL2, OH = PH / POOL2, OW = PW / POOL2 };                                         /* 10 each */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}));
    kb_tensor p = kb_max_pool3d(r, KB_NEW, c, POOL1, /*stride=None*/ 0, 0, 1, /*ceil_mode=*/0);
    kb_drop(r, c);
    kb_tensor q = kb_max_pool3d(r, KB_NEW, p, POOL2, 0, 0, 1, 0);
    kb_drop(r, p);
    kb_sum(r, kb_arg(r, "y"), q, 1, /*keepdim=*/1);
}

KB_PROBLEM(.title = "ConvTranspose3d Max Max Sum",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 864 products that reach a conv output (C_in * 3*3*3 taps), the sum over 64
            * channels */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1, OD, OH, OW), .terms = CIN * 27 * COUT)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output (156 per dim), then
            * the bias add and one comparison per conv element, one comparison per tap of the second
            * pool, one add per pooled value */
           .flops = 2.0 * BATCH * CIN * COUT * 156.0 * 156.0 * 156.0 + 2.0 * BATCH * COUT * CD * CH * CW +
                    28.0 * BATCH * COUT * OD * OH * OW)
