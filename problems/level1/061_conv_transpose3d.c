/*
 * level1/061_conv_transpose3d -- KernelBench L1/61:
 * nn.ConvTranspose3d(48, 48, 3, bias=False)
 * on x (8, 48, 64, 64, 64) fp32 -> y (8, 48, 66, 66, 66).
 *
 * Eager PyTorch 2.11: ConvTranspose3d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 1296.
 * Napkin math: 2.61e+11 FLOP -> 0.65 ms at ~400 TFLOP/s TF32 (3.89 ms at 67 TFLOP/s FP32);
 * x 0.375 GiB, w 0.237 MiB, y 0.411 GiB: 0.844 GB, 0.20 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 807 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 9.04 ms (FP32 mode) / 9.04 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 1296 products (C_in/groups * the taps that reach it: 3 * 3 *
 * 3 per dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 48, COUT = 48, ID = 64, IH = 64, IW = 64, KD = 3, KH = 3, KW = 3, OD = 66, OH = 66, OW = 66 };

static void reference(kb_ref *r) /* y = self.conv_transpose3d(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv_transpose3d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv transposed 3D square input square kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, ID, IH, IW), KB_RAND),
                     KB_PARAM("conv_transpose3d.weight", KB_F32, KB_DIMS(CIN, COUT, KD, KH, KW), KB_KAIMING(COUT * KD * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = 1296)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per input element, output channel of its group and tap */
           .flops = 2.0 * BATCH * CIN * ID * IH * IW * COUT * KD * KH * KW)
