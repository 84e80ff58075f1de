/*
 * level1/050_conv2d_alexnet_conv1 -- KernelBench L1/50:
 * nn.Conv2d(3, 96, 11, stride=4, padding=2, bias=True)
 * on x (256, 3, 224, 224) fp32 -> y (256, 96, 55, 55).
 *
 * AlexNet's first layer (with bias); the num_classes init argument is unused.
 *
 * Eager PyTorch 2.11: Conv2d -> at::convolution -> cudnn_convolution: ONE cuDNN v8 forward graph,
 * engine from the heuristics (benchmark off), TF32 allowed by torch.backends.cudnn.allow_tf32 (True by
 * default, in both of the paper's modes); ops/dnn.cu.
 * The bias is a second kernel, output.add_(bias.reshape(1, C, 1, 1)) (Convolution.cpp), not fused.
 * Napkin math: 5.34e+10 FLOP -> 0.13 ms at ~400 TFLOP/s TF32 (0.80 ms at 67 TFLOP/s FP32);
 * x 0.144 GiB, w 0.133 MiB, y 0.277 GiB: 0.452 GB, 0.11 ms at ~4.3 TB/s.
 * Eager's peak memory (reference/pytorch-eager-h200.csv) is resident + y + 431 MiB: the engine's
 * workspace (NCHW<->NHWC staging), whose traffic adds to the above.
 * PyTorch measures 2.22 ms (FP32 mode) / 2.13 ms (TF32 mode) on the H200.
 * terms: each output element sums at most 363 products (C_in/groups * prod(kernel)).
 */
#include "kb/ref.h"

enum { BATCH = 256, CIN = 3, COUT = 96, IH = 224, IW = 224, KH = 11, KW = 11, OH = 55, OW = 55 };

static void reference(kb_ref *r) /* y = self.conv1(x) */
{
    kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv1.weight"), kb_arg(r, "conv1.bias"),
            KB_CONV_PARAMS(.stride = {4, 4}, .padding = {2, 2}));
}

KB_PROBLEM(.title = "conv standard 2D square input square kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, IH, IW), KB_RAND),
                     KB_PARAM("conv1.weight", KB_F32, KB_DIMS(COUT, CIN, KH, KW), KB_KAIMING(CIN * KH * KW)),
                     KB_PARAM("conv1.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = 363)),
           /* one multiply-add per (output position, tap) pair inside the unpadded input; pairs per dim: 602, 602 */
           .flops = 2.0 * BATCH * COUT * CIN * 602.0 * 602.0)
