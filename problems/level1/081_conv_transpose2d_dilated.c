/*
 * level1/081_conv_transpose2d_dilated -- KernelBench L1/81:
 * nn.ConvTranspose2d(32, 64, 3, stride=5, padding=1, dilation=2, bias=False)
 * on x (16, 32, 64, 128) fp32 -> y (16, 64, 318, 638).
 *
 * Eager PyTorch 2.11: ConvTranspose2d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 576.
 * Napkin math: 4.76e+09 FLOP -> 0.01 ms at ~400 TFLOP/s TF32 (0.07 ms at 67 TFLOP/s FP32);
 * x 0.0156 GiB, w 0.0703 MiB, y 0.774 GiB: 0.848 GB, 0.20 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 809 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 1.70 ms (FP32 mode) / 1.70 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 32 products (C_in/groups * the taps that reach it: 1 * 1 per
 * dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 32, COUT = 64, IH = 64, IW = 128, KH = 3, KW = 3, OH = 318, OW = 638 };

static void reference(kb_ref *r) /* y = self.conv_transpose2d(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv_transpose2d.weight"), KB_NEW,
                      KB_CONV_PARAMS(.stride = {5, 5}, .padding = {1, 1}, .dilation = {2, 2}));
}

KB_PROBLEM(.title = "conv transposed 2D asymmetric input square kernel dilated padded strided",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv_transpose2d.weight", KB_F32, KB_DIMS(CIN, COUT, KH, KW), KB_KAIMING(COUT * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 32)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output; pairs per dim: 190, 382 */
           .flops = 2.0 * BATCH * CIN * COUT * 190.0 * 382.0)
