/*
 * level1/056_conv2d_asym_kernel -- KernelBench L1/56:
 * nn.Conv2d(64, 128, (5, 7), bias=False)
 * on x (8, 64, 512, 256) fp32 -> y (8, 128, 508, 250).
 *
 * Eager PyTorch 2.11: Conv2d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 5.83e+11 FLOP -> 1.46 ms at ~400 TFLOP/s TF32 (8.70 ms at 67 TFLOP/s FP32);
 * x 0.25 GiB, w 1.09 MiB, y 0.484 GiB: 0.79 GB, 0.18 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 258 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 2.77 ms (FP32 mode) / 3.05 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 2240 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 64, COUT = 128, IH = 512, IW = 256, KH = 5, KW = 7, OH = 508, OW = 250 };

static void reference(kb_ref *r) /* y = self.conv2d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv standard 2D asymmetric input asymmetric kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv2d.weight", KB_F32, KB_DIMS(COUT, CIN, KH, KW), KB_KAIMING(CIN * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 2240)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * KH * KW)
