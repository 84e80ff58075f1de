/*
 * level1/057_conv_transpose2d -- KernelBench L1/57:
 * nn.ConvTranspose2d(64, 64, 3, bias=False)
 * on x (8, 64, 1024, 1024) fp32 -> y (8, 64, 1026, 1026).
 *
 * Eager PyTorch 2.11: ConvTranspose2d -> at::convolution -> cudnn_convolution_transpose, i.e. ONE
 * cuDNN v8 backward-data graph (y as dx, x as dy, w [C_in, C_out/groups, k...] as is), engine from
 * the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by default, in
 * both of the paper's modes); ops/dnn.cu. PyTorch's kaiming init of a transposed weight takes fan_in
 * from weight.size(1) * prod(kernel) = 576.
 * Napkin math: 6.18e+11 FLOP -> 1.55 ms at ~400 TFLOP/s TF32 (9.23 ms at 67 TFLOP/s FP32);
 * x 2 GiB, w 0.141 MiB, y 2.01 GiB: 4.3 GB, 1.00 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 4104 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 5.28 ms (FP32 mode) / 5.29 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 576 products (C_in/groups * the taps that reach it: 3 * 3
 * per dim).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 64, COUT = 64, IH = 1024, IW = 1024, KH = 3, KW = 3, OH = 1026, OW = 1026 };

static void reference(kb_ref *r) /* y = self.conv_transpose2d(x) */
{
    kb_conv_transpose(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv_transpose2d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv transposed 2D square input square kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv_transpose2d.weight", KB_F32, KB_DIMS(CIN, COUT, KH, KW), KB_KAIMING(COUT * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 576)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per input element, output channel of its group and tap */
           .flops = 2.0 * BATCH * CIN * IH * IW * COUT * KH * KW)
