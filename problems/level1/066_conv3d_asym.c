/*
 * level1/066_conv3d_asym -- KernelBench L1/66:
 * nn.Conv3d(3, 64, (3, 5, 7), bias=False)
 * on x (8, 3, 16, 128, 128) fp32 -> y (8, 64, 14, 124, 122).
 *
 * Eager PyTorch 2.11: Conv3d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 6.83e+10 FLOP -> 0.17 ms at ~400 TFLOP/s TF32 (1.02 ms at 67 TFLOP/s FP32);
 * x 0.0234 GiB, w 0.0769 MiB, y 0.404 GiB: 0.459 GB, 0.11 ms at ~4.3 TB/s.
 * Eager's peak memory is resident + y (+0 MiB): the engine needs little or no workspace.
 * PyTorch measures 4.91 ms (FP32 mode) / 4.96 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 315 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 3, COUT = 64, ID = 16, IH = 128, IW = 128, KD = 3, KH = 5, KW = 7, OD = 14, OH = 124, OW = 122 };

static void reference(kb_ref *r) /* y = self.conv3d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv3d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv standard 3D asymmetric input asymmetric kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, ID, IH, IW), KB_RAND),
                     KB_PARAM("conv3d.weight", KB_F32, KB_DIMS(COUT, CIN, KD, KH, KW), KB_KAIMING(CIN * KD * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = 315)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * KD * KH * KW)
