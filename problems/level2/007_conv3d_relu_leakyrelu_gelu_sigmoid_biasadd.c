/*
 * level2/007_conv3d_relu_leakyrelu_gelu_sigmoid_biasadd -- KernelBench L2/7:
 * x = sigmoid(gelu(leaky_relu(relu(conv(x)), 0.01))) + self.bias, with conv = nn.Conv3d(8, 32, 3)
 * and bias (32, 1, 1, 1) ~ randn, on x (64, 8, 32, 64, 64) fp32 -> (64, 32, 30, 62, 62).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, then relu, leaky_relu, gelu (erf), sigmoid and the broadcast add: seven kernels,
 * each temporary freed when the next op has read it. Napkin math: 2 * 64*32*30*62*62 * 216 =
 * 1.02e11 FLOP, ~1.7 ms of TF32 at ~60 TFLOP/s; y is 0.88 GiB, written by the conv, read and
 * written by the bias add and each of the five epilogue ops: ~12.5 GB of traffic, ~2.9 ms at
 * ~4.3 TB/s. Eager: 6.43 ms on an H100 (reference/kernelbench-problems.csv), 5.46 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 64, CIN = 8, COUT = 32, D = 32, H = 64, W = 64, K = 3, OD = D - K + 1, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor a = kb_relu(r, KB_NEW, c);
    kb_drop(r, c);
    kb_tensor b = kb_leaky_relu(r, KB_NEW, a, 0.01);
    kb_drop(r, a);
    kb_tensor g = kb_gelu(r, KB_NEW, b);
    kb_drop(r, b);
    kb_tensor s = kb_sigmoid(r, KB_NEW, g);
    kb_drop(r, g);
    kb_add(r, kb_arg(r, "y"), s, kb_arg(r, "bias"));
}

KB_PROBLEM(.title = "Conv3d ReLU LeakyReLU GELU Sigmoid BiasAdd",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * K * K * K)),
           /* the conv, then per element: bias, relu, leaky_relu, gelu 1 each, sigmoid 4, add 1 */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * K * K * K + 9.0 * BATCH * COUT * OD * OH * OW)
