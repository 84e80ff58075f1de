/*
 * level2/071_conv2d_divide_leakyrelu -- KernelBench L2/71: x = conv(x); x = x / 2;
 * x = leaky_relu(x, 0.01), with conv = nn.Conv2d(8, 64, 3), on x (128, 8, 128, 128) fp32.
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, then the division by the Python int 2 (div_true_kernel_cuda's CPU-scalar
 * case: a multiply by 1/2) and leaky_relu: four kernels, each temporary freed when the next op
 * has read it. Napkin math: 2 * 128*64*126*126 * 72 = 1.9e10 FLOP, ~0.05 ms at ~400 TFLOP/s TF32
 * (0.28 ms at 67 TFLOP/s FP32); y is 0.52 GB, written by the conv, read and written by the bias
 * add, the divide and leaky_relu: ~3.7 GB of traffic, ~0.86 ms at ~4.3 TB/s: memory-bound.
 * Eager: 1.80 ms on an H100 (reference/kernelbench-problems.csv), 1.66 ms on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor d = kb_divs(r, KB_NEW, c, 2.0);
    kb_drop(r, c);
    kb_leaky_relu(r, kb_arg(r, "y"), d, 0.01);
}

KB_PROBLEM(.title = "Conv2d Divide LeakyReLU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * K * K)),
           /* the convolution, then one per element for its bias, the divide and leaky_relu */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 3.0 * BATCH * COUT * OH * OW)
