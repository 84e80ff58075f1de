/*
 * level1/086_depthwise_separable_conv2d -- KernelBench L1/86: depthwise nn.Conv2d(64, 64, 3,
 * stride=1, padding=1, dilation=1, groups=64, bias=False) then pointwise nn.Conv2d(64, 128, 1,
 * bias=False), x (16, 64, 512, 512) fp32 -> (16, 128, 512, 512).
 *
 * Eager PyTorch: two kernels. The depthwise layer goes to at::_conv_depthwise2d
 * (conv_depthwise2d_forward_kernel<3>, padding 1: the per-tap bounds checks fire on the border;
 * kb_depthwise_conv2d), writing a 1.07 GB temporary; the pointwise 1x1 layer is an ordinary
 * convolution: cuDNN forward (kb_op_conv; TF32 allowed by torch.backends.cudnn.allow_tf32, the
 * default). The temporary is freed once the pointwise output exists (refcount), hence kb_drop.
 * Napkin math: depthwise 1.07 GB read + 1.07 GB written (eager's kernel ~2.6 ms alone would be
 * L1/82's rate; padding makes it 268M outputs), pointwise 1.07 GB read + 2.15 GB written = 3.2 GB
 * (~0.75 ms) and 68.7 GFLOP (~0.17 ms TF32, ~1.0 ms FP32). Eager: 3.40 ms on the H200 (FP32 and
 * TF32 baselines alike: the pointwise layer is memory-bound).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 64, COUT = 128, H = 512, W = 512, K = 3, PAD = 1 };

static void reference(kb_ref *r)
{
    /* x = self.depthwise(x) */
    kb_tensor t = kb_depthwise_conv2d(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "depthwise.weight"), KB_NEW,
                                      1, 1, PAD, PAD, 1, 1);
    /* x = self.pointwise(x) */
    kb_conv(r, kb_arg(r, "y"), t, kb_arg(r, "pointwise.weight"), KB_NEW, KB_CONV_PARAMS(.stride = {1, 1}));
    kb_drop(r, t);
}

KB_PROBLEM(.title = "conv depthwise separable 2D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("depthwise.weight", KB_F32, KB_DIMS(CIN, 1, K, K), KB_KAIMING(1 * K * K)),
                     KB_PARAM("pointwise.weight", KB_F32, KB_DIMS(COUT, CIN, 1, 1), KB_KAIMING(CIN))),
           /* each output sums 64 pointwise products of 9-tap depthwise sums: 576 products */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, H, W), .terms = CIN * K * K)),
           .flops = 2.0 * K * K * BATCH * CIN * H * W + 2.0 * CIN * BATCH * COUT * H * W)
