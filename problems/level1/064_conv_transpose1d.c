/*
 * level1/064_conv_transpose1d -- KernelBench L1/64:
 * nn.ConvTranspose1d(128, 128, 3, bias=False)
 * on x (64, 128, 65536) fp32 -> y (64, 128, 65538).
 *
 * Eager PyTorch 2.11: ConvTranspose1d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 384.
 * 1-D: Convolution.cpp views x and w as 2-D with H = 1 (view1d_as_2d); kb_conv does the same.
 * Napkin math: 4.12e+11 FLOP -> 1.03 ms at ~400 TFLOP/s TF32 (6.15 ms at 67 TFLOP/s FP32);
 * x 2 GiB, w 0.188 MiB, y 2 GiB: 4.3 GB, 1.00 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 4096 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 4.25 ms (FP32 mode) / 4.23 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 384 products (C_in/groups * the taps that reach it: 3 per
 * dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 64, CIN = 128, COUT = 128, IL = 65536, KL = 3, OL = 65538 };

static void reference(kb_ref *r) /* y = self.conv1d_transpose(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv1d_transpose.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv transposed 1D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IL), KB_RAND),
                     KB_PARAM("conv1d_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, KL), KB_KAIMING(COUT * KL))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OL), .terms = 384)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per input element, output channel of its group and tap */
           .flops = 2.0 * BATCH * CIN * IL * COUT * KL)
