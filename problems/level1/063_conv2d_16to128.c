/*
 * level1/063_conv2d_16to128 -- KernelBench L1/63:
 * nn.Conv2d(16, 128, 3, bias=False)
 * on x (16, 16, 1024, 1024) fp32 -> y (16, 128, 1022, 1022).
 *
 * y has 16*128*1022*1022 = 2,139,103,232 elements (7.97 GiB): just under INT_MAX, so even PyTorch's v7
 * path would not split it.
 *
 * Eager PyTorch 2.11: Conv2d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 6.16e+11 FLOP -> 1.54 ms at ~400 TFLOP/s TF32 (9.19 ms at 67 TFLOP/s FP32);
 * x 1 GiB, w 0.0703 MiB, y 7.97 GiB: 9.63 GB, 2.24 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 1024 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 6.65 ms (FP32 mode) / 6.65 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 144 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 16, COUT = 128, IH = 1024, IW = 1024, KH = 3, KW = 3, OH = 1022, OW = 1022 };

static void reference(kb_ref *r) /* y = self.conv2d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv standard 2D square input square kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv2d.weight", KB_F32, KB_DIMS(COUT, CIN, KH, KW), KB_KAIMING(CIN * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 144)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * KH * KW)
