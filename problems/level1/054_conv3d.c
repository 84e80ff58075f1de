/*
 * level1/054_conv3d -- KernelBench L1/54:
 * nn.Conv3d(3, 64, 3, bias=False)
 * on x (16, 3, 64, 64, 64) fp32 -> y (16, 64, 62, 62, 62).
 *
 * Eager PyTorch 2.11: Conv3d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 3.95e+10 FLOP -> 0.10 ms at ~400 TFLOP/s TF32 (0.59 ms at 67 TFLOP/s FP32);
 * x 0.0469 GiB, w 0.0198 MiB, y 0.909 GiB: 1.03 GB, 0.24 ms at ~4.3 TB/s.
 * Eager's peak memory is resident + y (+0 MiB): the engine needs little or no workspace.
 * PyTorch measures 1.88 ms (FP32 mode) / 1.87 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 81 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 3, COUT = 64, ID = 64, IH = 64, IW = 64, KD = 3, KH = 3, KW = 3, OD = 62, OH = 62, OW = 62 };

static void reference(kb_ref *r) /* y = self.conv3d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv3d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv standard 3D square input square kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, ID, IH, IW), KB_RAND),
                     KB_PARAM("conv3d.weight", KB_F32, KB_DIMS(COUT, CIN, KD, KH, KW), KB_KAIMING(CIN * KD * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = 81)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * KD * KH * KW)
