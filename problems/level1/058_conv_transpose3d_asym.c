/*
 * level1/058_conv_transpose3d_asym -- KernelBench L1/58:
 * nn.ConvTranspose3d(32, 16, (3, 5, 7), bias=False)
 * on x (16, 32, 16, 32, 64) fp32 -> y (16, 16, 18, 36, 70).
 *
 * Eager PyTorch 2.11: ConvTranspose3d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 1680.
 * Napkin math: 5.64e+10 FLOP -> 0.14 ms at ~400 TFLOP/s TF32 (0.84 ms at 67 TFLOP/s FP32);
 * x 0.0625 GiB, w 0.205 MiB, y 0.0433 GiB: 0.114 GB, 0.03 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 109 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 8.73 ms (FP32 mode) / 8.71 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 3360 products (C_in/groups * the taps that reach it: 3 * 5 *
 * 7 per dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 32, COUT = 16, ID = 16, IH = 32, IW = 64, KD = 3, KH = 5, KW = 7, OD = 18, OH = 36, OW = 70 };

static void reference(kb_ref *r) /* y = self.conv_transpose3d(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv_transpose3d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv transposed 3D asymmetric input asymmetric kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, ID, IH, IW), KB_RAND),
                     KB_PARAM("conv_transpose3d.weight", KB_F32, KB_DIMS(CIN, COUT, KD, KH, KW), KB_KAIMING(COUT * KD * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = 3360)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per input element, output channel of its group and tap */
           .flops = 2.0 * BATCH * CIN * ID * IH * IW * COUT * KD * KH * KW)
