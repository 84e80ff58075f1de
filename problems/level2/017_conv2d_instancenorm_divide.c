/*
 * level2/017_conv2d_instancenorm_divide -- KernelBench L2/17: x = conv(x);
 * x = self.instance_norm(x); x = x / 2.0, with conv = nn.Conv2d(64, 128, 3) and
 * instance_norm = nn.InstanceNorm2d(128) (affine=False, no running statistics, eps 1e-5), on
 * x (128, 64, 128, 128) fp32 -> (128, 128, 126, 126).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel; F.instance_norm views x as (1, 128*128, 126, 126) and calls batch_norm
 * (training, no weight, bias or running stats), which is NOT cuDNN but the native batch_norm_cuda
 * (kb_instance_norm): statistics per (n, c) plane, invstd, transform; then the scalar division
 * (a multiply by 1/2): six kernels, each temporary freed when the next op has read it.
 * Napkin math: 2 * 128*128*126*126 * 576 = 3.0e11 FLOP, ~0.75 ms at ~400 TFLOP/s TF32 (4.5 ms at
 * 67 TFLOP/s FP32); the conv output is 1.04 GB, written, read and written by the bias add, read
 * twice and written by the norm, read and written by the division: ~8.9 GB of traffic, ~2.1 ms
 * at ~4.3 TB/s. Eager: 4.94 ms on an H100 (reference/kernelbench-problems.csv), 4.40 ms on the
 * H200 (reference/pytorch-eager-h200.csv). .terms: the conv's 576 products times the 126*126
 * values of each plane's statistics.
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 128, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor n = kb_instance_norm(r, KB_NEW, c, KB_NEW, KB_NEW, 1e-5);
    kb_drop(r, c);
    kb_divs(r, kb_arg(r, "y"), n, 2.0);
}

KB_PROBLEM(.title = "Conv2d InstanceNorm Divide",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = (int64_t)CIN * K * K * OH * OW)),
           /* the convolution, its bias, the norm (mean, variance, normalise: 8), the division */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 10.0 * BATCH * COUT * OH * OW,
           .flags = KB_PROB_CENTERED)
