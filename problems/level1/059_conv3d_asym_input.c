/*
 * level1/059_conv3d_asym_input -- KernelBench L1/59:
 * nn.Conv3d(3, 64, (3, 3, 1), bias=False)
 * on x (16, 3, 256, 256, 10) fp32 -> y (16, 64, 254, 254, 10).
 *
 * The module builds a (k, k, 1) kernel: a 2-D 3x3 stencil applied to each of the 10 depth slices.
 *
 * Eager PyTorch 2.11: Conv3d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 3.57e+10 FLOP -> 0.09 ms at ~400 TFLOP/s TF32 (0.53 ms at 67 TFLOP/s FP32);
 * x 0.117 GiB, w 0.00659 MiB, y 2.46 GiB: 2.77 GB, 0.64 ms at ~4.3 TB/s.
 * Eager's peak memory is resident + y (+0 MiB): the engine needs little or no workspace.
 * PyTorch measures 2.74 ms (FP32 mode) / 2.73 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 27 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 3, COUT = 64, ID = 256, IH = 256, IW = 10, KD = 3, KH = 3, KW = 1, OD = 254, OH = 254, OW = 10 };

static void reference(kb_ref *r) /* y = self.conv3d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv3d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv standard 3D asymmetric input square kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, ID, IH, IW), KB_RAND),
                     KB_PARAM("conv3d.weight", KB_F32, KB_DIMS(COUT, CIN, KD, KH, KW), KB_KAIMING(CIN * KD * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = 27)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * KD * KH * KW)
