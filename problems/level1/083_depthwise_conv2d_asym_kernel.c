/*
 * level1/083_depthwise_conv2d_asym_kernel -- KernelBench L1/83: nn.Conv2d(8, 8, kernel_size=(3, 1),
 * stride=1, padding=0, dilation=1, groups=8, bias=False) on x (64, 8, 512, 512) fp32
 * -> (64, 8, 510, 512).
 *
 * Eager PyTorch: at::_conv_depthwise2d (fp32 depthwise is not routed to cuDNN); a 3x1 kernel has
 * no templated instance (5x5, 3x3, 1x1 only), so conv_depthwise2d_forward_kernel_generic runs: one
 * thread per output, 128-thread blocks, int32 indices, the valid tap range clipped before the
 * loop (kb_depthwise_conv2d mirrors it). Napkin math: 0.54 GB read + 0.53 GB written = 1.07 GB,
 * ~0.25 ms at ~4.3 TB/s; 3 FMAs per output = 0.8 GFLOP. Issue-bound like L1/82 (runtime loop
 * bounds, not unrolled): eager takes 1.50 ms on the H200.
 */
#include "kb/ref.h"

enum { BATCH = 64, C = 8, H = 512, W = 512, KH = 3, KW = 1, OH = H - KH + 1, OW = W - KW + 1 };

static void reference(kb_ref *r) /* y = self.conv2d(x) */
{
    kb_depthwise_conv2d(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW,
                        1, 1, 0, 0, 1, 1);
}

KB_PROBLEM(.title = "conv depthwise 2D square input asymmetric kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, C, H, W), KB_RAND),
                     KB_PARAM("conv2d.weight", KB_F32, KB_DIMS(C, 1, KH, KW), KB_KAIMING(1 * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, C, OH, OW), .terms = KH * KW)),
           .flops = 2.0 * KH * KW * BATCH * C * OH * OW)
