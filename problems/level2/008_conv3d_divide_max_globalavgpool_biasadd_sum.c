/*
 * level2/008_conv3d_divide_max_globalavgpool_biasadd_sum -- KernelBench L2/8:
 * x = torch.sum(global_avg_pool(max_pool(conv(x) / 2.0)) + self.bias, dim=1), with
 * conv = nn.Conv3d(8, 16, 3), max_pool = nn.MaxPool3d(2), global_avg_pool =
 * nn.AdaptiveAvgPool3d((1, 1, 1)) and bias (16, 1, 1, 1) ~ randn, on x (128, 8, 16, 64, 64) fp32
 * -> (128, 1, 1, 1).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, the division by the Python float (a multiply by 1/2 with a CPU scalar),
 * max_pool3d_with_indices (indices computed and dropped), the adaptive pool to 1x1x1 (at::
 * adaptive_avg_pool3d's shortcut: mean over the three spatial dims, keepdim), the broadcast add,
 * then the sum over the channels: seven kernels. Napkin math: 2 * 128*16*14*62*62 * 216 =
 * 4.8e10 FLOP, ~0.8 ms of TF32 at ~60 TFLOP/s; the conv output is 0.41 GiB, written by cuDNN, read
 * and written by the bias add and the division, read by the pool (which writes an eighth of it,
 * plus int64 indices): ~3.1 GB of traffic, ~0.73 ms at ~4.3 TB/s. Eager: 2.53 ms on an H100
 * (reference/kernelbench-problems.csv), 2.39 ms on an H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 16, D = 16, H = 64, W = 64, K = 3, POOL = 2 };
enum { CD = D - K + 1, CH = H - K + 1, CW = W - K + 1 };     /* 14, 62, 62 */
enum { PD = CD / POOL, PH = CH / POOL, PW = CW / POOL };     /* 7, 31, 31 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor q = kb_divs(r, KB_NEW, c, 2.0); /* self.divisor */
    kb_drop(r, c);
    kb_tensor p = kb_max_pool3d(r, KB_NEW, q, POOL, /*stride=None*/ 0, 0, 1, /*ceil_mode=*/0);
    kb_drop(r, q);
    kb_tensor g = kb_adaptive_avg_pool_nd(r, KB_NEW, p, 3, (const int64_t[]){1, 1, 1});
    kb_drop(r, p);
    kb_tensor b = kb_add(r, KB_NEW, g, kb_arg(r, "bias"));
    kb_drop(r, g);
    kb_sum(r, kb_arg(r, "y"), b, 1, /*keepdim=*/0); /* self.sum_dim */
}

KB_PROBLEM(.title = "Conv3d Divide Max GlobalAvgPool BiasAdd Sum",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K))),
           /* terms: the conv's 216 products, the mean over 7*31*31 pooled values, the sum over 16 channels */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1, 1, 1), .terms = (int64_t)CIN * K * K * K * PD * PH * PW * COUT)),
           /* the conv, the bias add and the division per element, a comparison per pool tap, one add
            * per pooled value for the mean, the bias add and the channel sum */
           .flops = 2.0 * BATCH * COUT * CD * CH * CW * CIN * K * K * K + 3.0 * BATCH * COUT * CD * CH * CW +
                    1.0 * BATCH * COUT * PD * PH * PW + 2.0 * BATCH * COUT)
