/*
 * level1/076_conv1d_dilated_strided -- KernelBench L1/76:
 * nn.Conv1d(64, 128, 3, stride=3, dilation=4, bias=False)
 * on x (64, 64, 524280) fp32 -> y (64, 128, 174758).
 *
 * x has 64*64*524280 = 2,147,450,880 elements (8 GiB): 32767 under INT_MAX, so no PyTorch path splits
 * it; 64-bit offsets are still needed for byte addresses.
 *
 * Eager PyTorch 2.11: Conv1d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * 1-D: Convolution.cpp views x and w as 2-D with H = 1 (view1d_as_2d); kb_conv does the same.
 * Napkin math: 5.5e+11 FLOP -> 1.37 ms at ~400 TFLOP/s TF32 (8.21 ms at 67 TFLOP/s FP32);
 * x 8 GiB, w 0.0938 MiB, y 5.33 GiB: 14.3 GB, 3.33 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 8193 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 10.00 ms (FP32 mode) / 10.02 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 192 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 64, CIN = 64, COUT = 128, IL = 524280, KL = 3, OL = 174758 };

static void reference(kb_ref *r) /* y = self.conv1d(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv1d.weight"), KB_NEW,
            KB_CONV_PARAMS(.stride = {3}, .dilation = {4}));
}

KB_PROBLEM(.title = "conv standard 1D dilated strided",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IL), KB_RAND),
                     KB_PARAM("conv1d.weight", KB_F32, KB_DIMS(COUT, CIN, KL), KB_KAIMING(CIN * KL))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OL), .terms = 192)),
           /* one multiply-add per output element and tap */
           .flops = 2.0 * BATCH * COUT * OL * CIN * KL)
