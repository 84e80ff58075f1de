/*
 * level2/001_conv2d_relu_biasadd -- KernelBench L2/1: x = relu(conv(x)); x = x + self.bias, with
 * conv = nn.Conv2d(64, 128, 3) and bias (128, 1, 1) ~ randn, on x (128, 64, 128, 128) fp32.
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, then relu and the broadcast add: four kernels, each temporary freed when the
 * next op has read it. Napkin math: 2 * 128*128*126*126 * 576 = 3.0e11 FLOP, ~0.75 ms of TF32;
 * y is 1.0 GB, written by the conv, read and written by the bias add, relu and the add: ~7 GB of
 * traffic, ~1.7 ms at ~4.3 TB/s. Eager: 4.35 ms on an H100 (reference/kernelbench-problems.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 128, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"),
                          KB_CONV_PARAMS(.stride = {1, 1}));
    kb_tensor t = kb_relu(r, KB_NEW, c);
    kb_drop(r, c);
    kb_add(r, kb_arg(r, "y"), t, kb_arg(r, "bias"));
}

KB_PROBLEM(.title = "Conv2D ReLU BiasAdd",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * K * K)),
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K)
