/*
 * level1/085_depthwise_conv2d_asym -- KernelBench L1/85: depthwise nn.Conv2d(128, 128, (3, 7),
 * stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=128, bias=False) on x (32, 128, 128, 256)
 * fp32 -> (32, 128, 126, 250). The module's out_channels and groups arguments are ignored: its
 * layer is built with in_channels output channels and groups=in_channels.
 *
 * Eager PyTorch: at::_conv_depthwise2d; 3x7 has no templated instance, so
 * conv_depthwise2d_forward_kernel_generic runs (clipped tap range, runtime loops; mirrored by
 * kb_depthwise_conv2d). Napkin math: 0.54 GB read + 0.52 GB written = 1.05 GB, ~0.25 ms at
 * ~4.3 TB/s; 21 FMAs per output = 5.4 GFLOP, ~0.08 ms at 67 TFLOP/s. Issue-bound (21 L1 loads per
 * output through runtime loops): eager takes 2.30 ms on the H200.
 */
#include "kb/ref.h"

enum { BATCH = 32, C = 128, H = 128, W = 256, KH = 3, KW = 7, OH = H - KH + 1, OW = W - KW + 1 };

static void reference(kb_ref *r) /* y = self.conv2d(x) */
{
    kb_depthwise_conv2d(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW,
                        1, 1, 0, 0, 1, 1);
}

KB_PROBLEM(.title = "conv depthwise 2D asymmetric input asymmetric kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, C, H, W), KB_RAND),
                     KB_PARAM("conv2d.weight", KB_F32, KB_DIMS(C, 1, KH, KW), KB_KAIMING(1 * KH * KW))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, C, OH, OW), .terms = KH * KW)),
           .flops = 2.0 * KH * KW * BATCH * C * OH * OW)
