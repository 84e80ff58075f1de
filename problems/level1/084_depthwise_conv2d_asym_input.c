/*
 * level1/084_depthwise_conv2d_asym_input -- KernelBench L1/84: nn.Conv2d(128, 128, (3, 3),
 * stride=1, padding=0, groups=128, bias=False) on x (64, 128, 256, 512) fp32 (4 GiB)
 * -> (64, 128, 254, 510).
 *
 * Eager PyTorch: at::_conv_depthwise2d, conv_depthwise2d_forward_kernel<3> (as L1/82). The input
 * is 2^30 elements and the output 1.06e9, both under 2^31, so PyTorch's canUse32BitIndexMath
 * check passes and the int32 kernel runs (so does ours; kb_depthwise_conv2d switches to 64-bit
 * indices only past 2^31 elements, where PyTorch refuses). Napkin math: 4.29 GB read + 4.24 GB
 * written = 8.5 GB, ~2.0 ms at ~4.3 TB/s; 9 FMAs per output = 19.1 GFLOP. Issue-bound: eager
 * takes 10.19 ms on the H200 (the same ~104 outputs/ns as L1/82).
 */
#include "kb/ref.h"

enum { BATCH = 64, C = 128, H = 256, W = 512, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r) /* y = self.conv2d(x) */
{
    kb_depthwise_conv2d(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW,
                        1, 1, 0, 0, 1, 1);
}

KB_PROBLEM(.title = "conv depthwise 2D asymmetric input square kernel",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, C, H, W), KB_RAND),
                     KB_PARAM("conv2d.weight", KB_F32, KB_DIMS(C, 1, K, K), KB_KAIMING(1 * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, C, OH, OW), .terms = K * K)),
           .flops = 2.0 * K * K * BATCH * C * OH * OW)
