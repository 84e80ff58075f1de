/*
 * level2/082_conv2d_tanh_scaling_biasadd_max -- KernelBench L2/82: x = tanh(conv(x));
 * x = x * 2.0; x = x + self.bias; x = self.max_pool(x), with conv = nn.Conv2d(8, 64, 3),
 * bias (64, 1, 1) ~ randn and max_pool = nn.MaxPool2d(4) (stride 4), on x (128, 8, 256, 256)
 * fp32 -> (128, 64, 63, 63).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, tanh, the scalar multiply, the broadcast add, then max_pool2d_with_indices
 * (the int64 indices written, then freed): six kernels, each temporary freed when the next op
 * has read it. Napkin math: 2 * 128*64*254*254 * 72 = 7.6e10 FLOP, ~0.19 ms at ~400 TFLOP/s TF32
 * (1.1 ms at 67 TFLOP/s FP32); the conv output is 2.1 GB, written, read and written by the bias
 * add, tanh, the multiply and the add, read by the pool: ~21.8 GB of traffic, ~5.1 ms at
 * ~4.3 TB/s: memory-bound. Eager: 9.79 ms on an H100 (reference/kernelbench-problems.csv),
 * 8.59 ms on the H200 (reference/pytorch-eager-h200.csv). .terms: the conv's 72 products (a max
 * adds none).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, H = 256, W = 256, K = 3, OH = H - K + 1, OW = W - K + 1, POOL = 4 };
enum { PH = (OH - POOL) / POOL + 1, PW = (OW - POOL) / POOL + 1 }; /* 63 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor t = kb_tanh(r, KB_NEW, c);
    kb_drop(r, c);
    kb_tensor s = kb_muls(r, KB_NEW, t, 2.0);
    kb_drop(r, t);
    kb_tensor a = kb_add(r, KB_NEW, s, kb_arg(r, "bias"));
    kb_drop(r, s);
    kb_max_pool2d(r, kb_arg(r, "y"), a, POOL, /*stride=None*/ 0, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
}

KB_PROBLEM(.title = "Conv2d Tanh Scaling BiasAdd Max",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, PH, PW), .terms = CIN * K * K)),
           /* the convolution, its bias, tanh, multiply and add per conv output, the pool's comparisons */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 4.0 * BATCH * COUT * OH * OW +
                    1.0 * POOL * POOL * BATCH * COUT * PH * PW)
