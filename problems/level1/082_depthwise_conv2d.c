/*
 * level1/082_depthwise_conv2d -- KernelBench L1/82: nn.Conv2d(64, 64, 3, stride=1, padding=0,
 * groups=64, bias=False) on x (16, 64, 512, 512) fp32 -> (16, 64, 510, 510).
 *
 * Eager PyTorch: fp32 NCHW depthwise is not sent to cuDNN (use_cudnn_depthwise wants fp16) but to
 * at::_conv_depthwise2d: conv_depthwise2d_forward_kernel<3> (DepthwiseConv2d.cu), one thread per
 * output, 128-thread blocks, int32 indices, the 3x3 taps unrolled (kb_depthwise_conv2d mirrors
 * it). Napkin math: 1.07 GB read + 1.07 GB written = 2.1 GB, ~0.5 ms at ~4.3 TB/s; 9 FMAs per
 * output = 4.8 GFLOP, ~0.07 ms at 67 TFLOP/s. The kernel is bound by instruction issue (index math
 * and a bounds-checked L1 load per tap), not DRAM: eager takes 2.59 ms on the H200
 * (reference/pytorch-eager-h200.csv), ~3.4x the traffic bound.
 */
#include "kb/ref.h"

enum { BATCH = 16, C = 64, H = 512, W = 512, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r) /* y = self.conv2d(x) */
{
    kb_depthwise_conv2d(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW,
                        1, 1, 0, 0, 1, 1);
}

KB_PROBLEM(.title = "conv depthwise 2D square input square kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, C, H, W), KB_RAND),
                     KB_PARAM("conv2d.weight", KB_F32, KB_DIMS(C, 1, K, K), KB_KAIMING(1 * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, C, OH, OW), .terms = K * K)),
           .flops = 2.0 * K * K * BATCH * C * OH * OW)
