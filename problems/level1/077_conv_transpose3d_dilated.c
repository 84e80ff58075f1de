/*
 * level1/077_conv_transpose3d_dilated -- KernelBench L1/77:
 * nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, dilation=2, bias=False)
 * on x (16, 32, 16, 32, 32) fp32 -> y (16, 64, 33, 65, 65).
 *
 * Eager PyTorch 2.11: ConvTranspose3d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 1728.
 * Napkin math: 2.66e+10 FLOP -> 0.07 ms at ~400 TFLOP/s TF32 (0.40 ms at 67 TFLOP/s FP32);
 * x 0.0312 GiB, w 0.211 MiB, y 0.532 GiB: 0.605 GB, 0.14 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 577 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 1.96 ms (FP32 mode) / 1.97 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 864 products (C_in/groups * the taps that reach it: 3 * 3 *
 * 3 per dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 32, COUT = 64, ID = 16, IH = 32, IW = 32, KD = 3, KH = 3, KW = 3, OD = 33, OH = 65, OW = 65 };

static void reference(kb_ref *r) /* y = self.conv_transpose3d(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv_transpose3d.weight"), KB_NEW,
                      KB_CONV_PARAMS(.stride = {2, 2, 2}, .padding = {1, 1, 1}, .dilation = {2, 2, 2}));
}

KB_PROBLEM(.title = "conv transposed 3D square input square kernel padded dilated strided",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, ID, IH, IW), KB_RAND),
                     KB_PARAM("conv_transpose3d.weight", KB_F32, KB_DIMS(CIN, COUT, KD, KH, KW), KB_KAIMING(COUT * KD * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = 864)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output; pairs per dim: 46, 94, 94 */
           .flops = 2.0 * BATCH * CIN * COUT * 46.0 * 94.0 * 94.0)
