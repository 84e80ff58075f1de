/*
 * level2/021_conv2d_add_scale_sigmoid_groupnorm -- KernelBench L2/21: x = conv(x);
 * x = x + self.bias; x = x * self.scale; x = sigmoid(x); x = self.group_norm(x), with
 * conv = nn.Conv2d(8, 32, 3), bias and scale (32, 1, 1) ~ randn and
 * group_norm = nn.GroupNorm(8, 32) (eps 1e-5), on x (128, 8, 256, 256) fp32 -> (128, 32, 254, 254).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, the broadcast add and multiply, sigmoid, then native_group_norm
 * (RowwiseMomentsCUDAKernel per (n, group), ComputeFusedParamsCUDAKernel, one elementwise
 * y = a * x + b): eight kernels, each temporary freed when the next op has read it.
 * Napkin math: 2 * 128*32*254*254 * 72 = 3.8e10 FLOP, ~0.10 ms at ~400 TFLOP/s TF32 (0.57 ms at
 * 67 TFLOP/s FP32); the conv output is 1.06 GB, written, read and written by the bias add, the
 * add, the multiply and sigmoid, read twice and written by the group norm: ~13 GB of traffic,
 * ~3.0 ms at ~4.3 TB/s: memory-bound. Eager: 6.45 ms on an H100
 * (reference/kernelbench-problems.csv), 5.95 ms on the H200 (reference/pytorch-eager-h200.csv).
 * .terms: the conv's 72 products times the 4*254*254 values of each group's statistics.
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 32, H = 256, W = 256, K = 3, OH = H - K + 1, OW = W - K + 1, GROUPS = 8 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor a = kb_add(r, KB_NEW, c, kb_arg(r, "bias"));
    kb_drop(r, c);
    kb_tensor m = kb_mul(r, KB_NEW, a, kb_arg(r, "scale"));
    kb_drop(r, a);
    kb_tensor s = kb_sigmoid(r, KB_NEW, m);
    kb_drop(r, m);
    kb_group_norm(r, kb_arg(r, "y"), s, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"), 1e-5);
}

KB_PROBLEM(.title = "Conv2d Add Scale Sigmoid GroupNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1), KB_RANDN),
                     KB_PARAM("scale", KB_F32, KB_DIMS(COUT, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW),
                                .terms = (int64_t)CIN * K * K * (COUT / GROUPS) * OH * OW)),
           /* the convolution, its bias, add, multiply, sigmoid, the group norm (8) per element */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 12.0 * BATCH * COUT * OH * OW,
           .flags = KB_PROB_CENTERED)
