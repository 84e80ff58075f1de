/*
 * level1/062_conv2d_kernel_5x9 -- KernelBench L1/62:
 * nn.Conv2d(32, 64, (5, 9), bias=False)
 * on x (8, 32, 512, 512) fp32 -> y (8, 64, 508, 504).
 *
 * Eager PyTorch 2.11: Conv2d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 3.78e+11 FLOP -> 0.94 ms at ~400 TFLOP/s TF32 (5.63 ms at 67 TFLOP/s FP32);
 * x 0.25 GiB, w 0.352 MiB, y 0.488 GiB: 0.793 GB, 0.18 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 756 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 2.36 ms (FP32 mode) / 2.39 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 1440 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 32, COUT = 64, IH = 512, IW = 512, KH = 5, KW = 9, OH = 508, OW = 504 };

static void reference(kb_ref *r) /* y = self.conv2d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv standard 2D square input asymmetric kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv2d.weight", KB_F32, KB_DIMS(COUT, CIN, KH, KW), KB_KAIMING(CIN * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 1440)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * KH * KW)
