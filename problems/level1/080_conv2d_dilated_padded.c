/*
 * level1/080_conv2d_dilated_padded -- KernelBench L1/80:
 * nn.Conv2d(32, 64, (5, 9), padding=(2, 4), dilation=(2, 3), bias=False)
 * on x (8, 32, 512, 512) fp32 -> y (8, 64, 508, 496).
 *
 * Eager PyTorch 2.11: Conv2d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 3.7e+11 FLOP -> 0.93 ms at ~400 TFLOP/s TF32 (5.52 ms at 67 TFLOP/s FP32);
 * x 0.25 GiB, w 0.352 MiB, y 0.481 GiB: 0.785 GB, 0.18 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 748 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 2.38 ms (FP32 mode) / 2.35 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 1440 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 32, COUT = 64, IH = 512, IW = 512, KH = 5, KW = 9, OH = 508, OW = 496 };

static void reference(kb_ref *r) /* y = self.conv2d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW,
            KB_CONV_PARAMS(.padding = {2, 4}, .dilation = {2, 3}));
}

KB_PROBLEM(.title = "conv standard 2D square input asymmetric kernel dilated padded",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv2d.weight", KB_F32, KB_DIMS(COUT, CIN, KH, KW), KB_KAIMING(CIN * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 1440)),
           /* one multiply-add per (output position, tap) pair inside the unpadded input; pairs per dim: 2536, 4454 */
           .flops = 2.0 * BATCH * COUT * CIN * 2536.0 * 4454.0)
