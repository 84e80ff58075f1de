/*
 * level1/060_conv3d_asym_kernel -- KernelBench L1/60:
 * nn.Conv3d(3, 64, (3, 5, 7), bias=False)
 * on x (16, 3, 64, 64, 64) fp32 -> y (16, 64, 62, 60, 58).
 *
 * Eager PyTorch 2.11: Conv3d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 1.39e+11 FLOP -> 0.35 ms at ~400 TFLOP/s TF32 (2.08 ms at 67 TFLOP/s FP32);
 * x 0.0469 GiB, w 0.0769 MiB, y 0.823 GiB: 0.934 GB, 0.22 ms at ~4.3 TB/s.
 * Eager's peak memory is resident + y (+0 MiB): the engine needs little or no workspace.
 * PyTorch measures 9.99 ms (FP32 mode) / 9.96 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 315 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 3, COUT = 64, ID = 64, IH = 64, IW = 64, KD = 3, KH = 5, KW = 7, OD = 62, OH = 60, OW = 58 };

static void reference(kb_ref *r) /* y = self.conv3d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv3d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv standard 3D square input asymmetric kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, ID, IH, IW), KB_RAND),
                     KB_PARAM("conv3d.weight", KB_F32, KB_DIMS(COUT, CIN, KD, KH, KW), KB_KAIMING(CIN * KD * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = 315)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * KD * KH * KW)
