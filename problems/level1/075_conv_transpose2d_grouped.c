/*
 * level1/075_conv_transpose2d_grouped -- KernelBench L1/75:
 * nn.ConvTranspose2d(32, 64, (3, 5), stride=(2, 3), padding=(1, 2), dilation=(2, 1), groups=4,
 * bias=False)
 * on x (16, 32, 128, 256) fp32 -> y (16, 64, 257, 766).
 *
 * Eager PyTorch 2.11: ConvTranspose2d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 240.
 * Napkin math: 7.99e+09 FLOP -> 0.02 ms at ~400 TFLOP/s TF32 (0.12 ms at 67 TFLOP/s FP32);
 * x 0.0625 GiB, w 0.0293 MiB, y 0.751 GiB: 0.873 GB, 0.20 ms at ~4.3 TB/s.
 * Eager's peak memory is resident + y (+0 MiB): the engine needs little or no workspace.
 * PyTorch measures 5.85 ms (FP32 mode) / 5.87 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 48 products (C_in/groups * the taps that reach it: 3 * 2 per
 * dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 32, COUT = 64, GROUPS = 4, IH = 128, IW = 256, KH = 3, KW = 5, OH = 257, OW = 766 };

static void reference(kb_ref *r) /* y = self.conv_transpose2d(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv_transpose2d.weight"), KB_NEW,
                      KB_CONV_PARAMS(.stride = {2, 3}, .padding = {1, 2}, .dilation = {2, 1}, .groups = GROUPS));
}

KB_PROBLEM(.title = "conv transposed 2D asymmetric input asymmetric kernel strided grouped padded dilated",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv_transpose2d.weight", KB_F32, KB_DIMS(CIN, COUT / GROUPS, KH, KW), KB_KAIMING((COUT / GROUPS) * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 48)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output; pairs per dim: 382, 1276 */
           .flops = 2.0 * BATCH * CIN * (COUT / GROUPS) * 382.0 * 1276.0)
