/*
 * level1/078_conv_transpose2d_padded -- KernelBench L1/78:
 * nn.ConvTranspose2d(32, 32, (3, 7), padding=(1, 3), bias=False)
 * on x (8, 32, 512, 1024) fp32 -> y (8, 32, 512, 1024).
 *
 * Eager PyTorch 2.11: ConvTranspose2d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 672.
 * Napkin math: 1.8e+11 FLOP -> 0.45 ms at ~400 TFLOP/s TF32 (2.68 ms at 67 TFLOP/s FP32);
 * x 0.5 GiB, w 0.082 MiB, y 0.5 GiB: 1.07 GB, 0.25 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 1024 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 2.14 ms (FP32 mode) / 2.11 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 672 products (C_in/groups * the taps that reach it: 3 * 7
 * per dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 32, COUT = 32, IH = 512, IW = 1024, KH = 3, KW = 7, OH = 512, OW = 1024 };

static void reference(kb_ref *r) /* y = self.conv_transpose2d(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv_transpose2d.weight"), KB_NEW,
                      KB_CONV_PARAMS(.padding = {1, 3}));
}

KB_PROBLEM(.title = "conv transposed 2D asymmetric input asymmetric kernel padded",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv_transpose2d.weight", KB_F32, KB_DIMS(CIN, COUT, KH, KW), KB_KAIMING(COUT * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 672)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output; pairs per dim: 1534, 7156 */
           .flops = 2.0 * BATCH * CIN * COUT * 1534.0 * 7156.0)
