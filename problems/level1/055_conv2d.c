/*
 * level1/055_conv2d -- KernelBench L1/55:
 * nn.Conv2d(64, 128, 3, bias=False)
 * on x (8, 64, 512, 1024) fp32 -> y (8, 128, 510, 1022).
 *
 * Eager PyTorch 2.11: Conv2d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 6.15e+11 FLOP -> 1.54 ms at ~400 TFLOP/s TF32 (9.18 ms at 67 TFLOP/s FP32);
 * x 1 GiB, w 0.281 MiB, y 1.99 GiB: 3.21 GB, 0.75 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 1024 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 3.81 ms (FP32 mode) / 4.14 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 576 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 64, COUT = 128, IH = 512, IW = 1024, KH = 3, KW = 3, OH = 510, OW = 1022 };

static void reference(kb_ref *r) /* y = self.conv2d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv standard 2D asymmetric input square kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv2d.weight", KB_F32, KB_DIMS(COUT, CIN, KH, KW), KB_KAIMING(CIN * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 576)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * KH * KW)
