/*
 * level1/074_conv_transpose1d_dilated -- KernelBench L1/74:
 * nn.ConvTranspose1d(32, 64, 5, dilation=3, bias=False)
 * on x (32, 32, 131072) fp32 -> y (32, 64, 131084).
 *
 * Eager PyTorch 2.11: ConvTranspose1d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 320.
 * 1-D: Convolution.cpp views x and w as 2-D with H = 1 (view1d_as_2d); kb_conv does the same.
 * Napkin math: 8.59e+10 FLOP -> 0.21 ms at ~400 TFLOP/s TF32 (1.28 ms at 67 TFLOP/s FP32);
 * x 0.5 GiB, w 0.0391 MiB, y 1 GiB: 1.61 GB, 0.37 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 1536 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 1.69 ms (FP32 mode) / 1.71 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 160 products (C_in/groups * the taps that reach it: 5 per
 * dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 32, CIN = 32, COUT = 64, IL = 131072, KL = 5, OL = 131084 };

static void reference(kb_ref *r) /* y = self.conv1d_transpose(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv1d_transpose.weight"), KB_NEW,
                      KB_CONV_PARAMS(.dilation = {3}));
}

KB_PROBLEM(.title = "conv transposed 1D dilated",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IL), KB_RAND),
                     KB_PARAM("conv1d_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, KL), KB_KAIMING(COUT * KL))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OL), .terms = 160)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per input element, output channel of its group and tap */
           .flops = 2.0 * BATCH * CIN * IL * COUT * KL)
