/*
 * level2/044_convtranspose2d_multiply_globalavgpool_globalavgpool_mean -- KernelBench L2/44:
 * x = conv_transpose(x); x = x * 0.5; x = torch.mean(x, dim=[2, 3], keepdim=True); and the same
 * mean again, with conv_transpose = nn.ConvTranspose2d(64, 128, 3, stride=2, padding=1,
 * output_padding=1), on x (16, 64, 128, 128) fp32 -> (16, 128, 1, 1).
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel, the scalar multiply, one mean
 * reduction over H and W, then the second mean over two size-1 dims (a reduction of length 1,
 * still a kernel launch in eager): five kernels, each temporary freed when the next op has read
 * it. PyTorch's kaiming init of a transposed weight takes fan_in from weight.size(1) * 3 * 3 =
 * 1152.
 * Napkin math: 2 * 16*64*128 * 383*383 = 3.8e10 FLOP (383 of the 128 * 3 (input, tap) pairs per
 * dim land inside the output), ~0.10 ms at ~400 TFLOP/s TF32 (0.57 ms at 67 TFLOP/s FP32); the
 * conv output is 0.54 GB, written, read and written by the bias add and the multiply, read by the
 * mean: ~3.3 GB of traffic, ~0.8 ms at ~4.3 TB/s. Eager: 1.74 ms on an H100
 * (reference/kernelbench-problems.csv), 1.42 ms on the H200 (reference/pytorch-eager-h200.csv).
 * .terms: each conv output sums at most 64 input channels x 2 x 2 taps, and each mean 256*256 of
 * them.
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 64, COUT = 128, H = 128, W = 128, K = 3, S = 2, P = 1, OP = 1,
       OH = (H - 1) * S - 2 * P + K + OP, OW = (W - 1) * S - 2 * P + K + OP, /* 256 */
       PAIRS = 383, TAPS = 2 }; /* (input, tap) pairs per dim inside the output; taps reaching an output per dim */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S}, .padding = {P, P}, .output_padding = {OP, OP}));
    kb_tensor s = kb_muls(r, KB_NEW, c, 0.5);
    kb_drop(r, c);
    kb_tensor m = kb_mean_dims(r, KB_NEW, s, (const int[]){2, 3}, 2, /*keepdim=*/1);
    kb_drop(r, s);
    kb_mean_dims(r, kb_arg(r, "y"), m, (const int[]){2, 3}, 2, /*keepdim=*/1);
}

KB_PROBLEM(.title = "ConvTranspose2d Multiply GlobalAvgPool GlobalAvgPool Mean",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, 1, 1), .terms = (int64_t)CIN * TAPS * TAPS * OH * OW)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* the transposed convolution, then its bias, the multiply and the mean's add per element */
           .flops = 2.0 * BATCH * CIN * COUT * PAIRS * PAIRS + 3.0 * BATCH * COUT * OH * OW)
