/*
 * level1/067_conv1d -- KernelBench L1/67:
 * nn.Conv1d(64, 128, 3, bias=False)
 * on x (32, 64, 131072) fp32 -> y (32, 128, 131070).
 *
 * Eager PyTorch 2.11: Conv1d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * 1-D: Convolution.cpp views x and w as 2-D with H = 1 (view1d_as_2d); kb_conv does the same.
 * Napkin math: 2.06e+11 FLOP -> 0.52 ms at ~400 TFLOP/s TF32 (3.08 ms at 67 TFLOP/s FP32);
 * x 1 GiB, w 0.0938 MiB, y 2 GiB: 3.22 GB, 0.75 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 1024 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 2.36 ms (FP32 mode) / 2.36 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 192 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 32, CIN = 64, COUT = 128, IL = 131072, KL = 3, OL = 131070 };

static void reference(kb_ref *r) /* y = self.conv1d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv1d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv standard 1D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IL), KB_RAND),
                     KB_PARAM("conv1d.weight", KB_F32, KB_DIMS(COUT, CIN, KL), KB_KAIMING(CIN * KL))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OL), .terms = 192)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OL * CIN * KL)
