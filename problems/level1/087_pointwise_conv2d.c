/*
 * level1/087_pointwise_conv2d -- KernelBench L1/87:
 * nn.Conv2d(64, 128, 1, bias=False)
 * on x (16, 64, 1024, 1024) fp32 -> y (16, 128, 1024, 1024).
 *
 * The attribute is named conv1d although it is a Conv2d (KernelBench's naming): the parameter is
 * conv1d.weight. y has 16*128*1024*1024 = 2^31 elements (8 GiB), one more than INT_MAX. PyTorch 2.11
 * still makes ONE cuDNN call: its batch split (split_batch_dim_to_32bit_out) is in the v7 path only,
 * and the v8 path leaves 64-bit indexing to cuDNN (ConvShared.h; ops/dnn.cu).
 *
 * Eager PyTorch 2.11: Conv2d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * Napkin math: 2.75e+11 FLOP -> 0.69 ms at ~400 TFLOP/s TF32 (4.10 ms at 67 TFLOP/s FP32);
 * x 4 GiB, w 0.0312 MiB, y 8 GiB: 12.9 GB, 3.00 ms at ~4.3 TB/s.
 * Eager's peak memory is resident + y (+0 MiB): the engine needs little or no workspace.
 * PyTorch measures 3.46 ms (FP32 mode) / 3.46 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 64 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 64, COUT = 128, IH = 1024, IW = 1024, KH = 1, KW = 1, OH = 1024, OW = 1024 };

static void reference(kb_ref *r) /* y = self.conv1d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv1d.weight"), KB_NEW, NULL);
}

KB_PROBLEM(.title = "conv pointwise 2D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv1d.weight", KB_F32, KB_DIMS(COUT, CIN, KH, KW), KB_KAIMING(CIN * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 64)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * KH * KW)
