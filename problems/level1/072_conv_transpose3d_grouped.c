/*
 * level1/072_conv_transpose3d_grouped -- KernelBench L1/72:
 * nn.ConvTranspose3d(32, 32, (3, 5, 7), stride=2, padding=(1, 2, 3), output_padding=1, groups=4,
 * bias=False)
 * on x (8, 32, 12, 24, 48) fp32 -> y (8, 32, 24, 48, 96).
 *
 * Eager PyTorch 2.11: ConvTranspose3d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 840.
 * Napkin math: 5.54e+09 FLOP -> 0.01 ms at ~400 TFLOP/s TF32 (0.08 ms at 67 TFLOP/s FP32);
 * x 0.0132 GiB, w 0.103 MiB, y 0.105 GiB: 0.128 GB, 0.03 ms at ~4.3 TB/s.
 * Eager's peak memory is resident + y (+0 MiB): the engine needs little or no workspace.
 * PyTorch measures 2.57 ms (FP32 mode) / 2.55 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 192 products (C_in/groups * the taps that reach it: 2 * 3 *
 * 4 per dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 32, COUT = 32, GROUPS = 4, ID = 12, IH = 24, IW = 48, KD = 3, KH = 5, KW = 7, OD = 24, OH = 48, OW = 96 };

static void reference(kb_ref *r) /* y = self.conv_transpose3d(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv_transpose3d.weight"), KB_NEW,
                      KB_CONV_PARAMS(.stride = {2, 2, 2}, .padding = {1, 2, 3}, .output_padding = {1, 1, 1}, .groups = GROUPS));
}

KB_PROBLEM(.title = "conv transposed 3D asymmetric input asymmetric kernel strided padded grouped",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, ID, IH, IW), KB_RAND),
                     KB_PARAM("conv_transpose3d.weight", KB_F32, KB_DIMS(CIN, COUT / GROUPS, KD, KH, KW), KB_KAIMING((COUT / GROUPS) * KD * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = 192)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output; pairs per dim: 35, 117, 330 */
           .flops = 2.0 * BATCH * CIN * (COUT / GROUPS) * 35.0 * 117.0 * 330.0)
