/*
 * level1/079_conv_transpose1d_strided -- KernelBench L1/79:
 * nn.ConvTranspose1d(32, 64, 3, stride=2, padding=1, dilation=2, bias=False)
 * on x (16, 32, 131072) fp32 -> y (16, 64, 262145).
 *
 * Eager PyTorch 2.11: ConvTranspose1d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 192.
 * 1-D: Convolution.cpp views x and w as 2-D with H = 1 (view1d_as_2d); kb_conv does the same.
 * Napkin math: 2.58e+10 FLOP -> 0.06 ms at ~400 TFLOP/s TF32 (0.38 ms at 67 TFLOP/s FP32);
 * x 0.25 GiB, w 0.0234 MiB, y 1 GiB: 1.34 GB, 0.31 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 1280 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 1.66 ms (FP32 mode) / 1.65 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 96 products (C_in/groups * the taps that reach it: 3 per
 * dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 32, COUT = 64, IL = 131072, KL = 3, OL = 262145 };

static void reference(kb_ref *r) /* y = self.conv1d_transpose(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv1d_transpose.weight"), KB_NEW,
                      KB_CONV_PARAMS(.stride = {2}, .padding = {1}, .dilation = {2}));
}

KB_PROBLEM(.title = "conv transposed 1D asymmetric input square kernel padded strided dilated",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IL), KB_RAND),
                     KB_PARAM("conv1d_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, KL), KB_KAIMING(COUT * KL))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OL), .terms = 96)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output; pairs per dim: 393214 */
           .flops = 2.0 * BATCH * CIN * COUT * 393214.0)
