/*
 * level2/065_conv2d_avgpool_sigmoid_sum -- KernelBench L2/65: x = conv(x); x = self.avg_pool(x);
 * x = sigmoid(x); x = torch.sum(x, dim=[1, 2, 3]), with conv = nn.Conv2d(8, 64, 3) and
 * avg_pool = nn.AvgPool2d(4) (stride 4), on x (128, 8, 384, 384) fp32 -> (128,).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, avg_pool2d_out_cuda_frame, sigmoid, then one reduction kernel over the three
 * dims together: five kernels, each temporary freed when the next op has read it. The conv
 * output (128, 64, 382, 382) is 4.45 GiB, the largest tensor of the problem (1.2e9 elements,
 * below 2^31). Napkin math: 2 * 128*64*382*382 * 72 = 1.7e11 FLOP, ~0.43 ms at ~400 TFLOP/s
 * TF32 (2.6 ms at 67 TFLOP/s FP32); the conv output is 4.8 GB, written, read and written by the
 * bias add, read by the pool; the pooled 0.30 GB is read and written by sigmoid and read by the
 * sum: ~20.9 GB of traffic, ~4.9 ms at ~4.3 TB/s. Eager: 12.0 ms on an H100
 * (reference/kernelbench-problems.csv), 11.54 ms on the H200 (reference/pytorch-eager-h200.csv).
 * .terms: the conv's 72 products, times the pool's 16, times the 64*95*95 summed values.
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, H = 384, W = 384, K = 3, OH = H - K + 1, OW = W - K + 1, POOL = 4 };
enum { PH = (OH - POOL) / POOL + 1, PW = (OW - POOL) / POOL + 1 }; /* 95 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor p = kb_avg_pool2d(r, KB_NEW, c, POOL, /*stride=None*/ 0, /*padding=*/0, /*ceil_mode=*/0,
                                /*count_include_pad=*/1, /*divisor_override=None*/ 0);
    kb_drop(r, c);
    kb_tensor s = kb_sigmoid(r, KB_NEW, p);
    kb_drop(r, p);
    kb_sum_dims(r, kb_arg(r, "y"), s, (const int[]){1, 2, 3}, 3, /*keepdim=*/0);
}

KB_PROBLEM(.title = "Conv2d AvgPool Sigmoid Sum",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH),
                                .terms = (int64_t)CIN * K * K * POOL * POOL * COUT * PH * PW)),
           /* the convolution, its bias, the pool's sums, then sigmoid and one add per pooled element */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 1.0 * BATCH * COUT * OH * OW +
                    (POOL * POOL + 2.0) * BATCH * COUT * PH * PW)
