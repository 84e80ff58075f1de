/*
 * level2/043_conv3d_max_logsumexp_relu -- KernelBench L2/43:
 * x = torch.relu(torch.logsumexp(max_pool(conv(x)), dim=1, keepdim=True)), with
 * conv = nn.Conv3d(32, 64, 3, stride=1, padding=1) and max_pool = nn.MaxPool3d(2, stride=2), on
 * x (4, 32, 32, 128, 128) fp32 -> (4, 1, 16, 64, 64).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, max_pool3d_with_indices (indices computed and dropped), torch.logsumexp over the
 * channels (eager's composite: amax, the infinite maxima masked, exp(x - max), sum, log, + max),
 * then relu. Napkin math: 2 * 4*64*32 * (94*382*382 in-bounds taps) = 2.2e11 FLOP, ~3.7 ms of
 * TF32 at ~60 TFLOP/s; the conv output is 0.5 GiB, written by cuDNN, read and written by the bias
 * add, read by the pool: ~2.7 GB of traffic, ~0.63 ms at ~4.3 TB/s. Eager: 2.66 ms on an H100
 * (reference/kernelbench-problems.csv), 2.61 ms on an H200 (reference/pytorch-eager-h200.csv), so
 * cuDNN runs this convolution faster than the ~60 TFLOP/s assumed (2.2e11 FLOP in at most
 * 2.6 ms).
 */
#include "kb/ref.h"

enum { BATCH = 4, CIN = 32, COUT = 64, D = 32, H = 128, W = 128, K = 3, PAD = 1, POOL = 2 };
enum { PD = D / POOL, PH = H / POOL, PW = W / POOL }; /* the conv keeps D, H, W; pooled 16, 64, 64 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"),
                          KB_CONV_PARAMS(.stride = {1, 1, 1}, .padding = {PAD, PAD, PAD}));
    kb_tensor p = kb_max_pool3d(r, KB_NEW, c, POOL, POOL, 0, 1, /*ceil_mode=*/0);
    kb_drop(r, c);
    kb_tensor l = kb_logsumexp(r, KB_NEW, p, (const int[]){1}, 1, /*keepdim=*/1);
    kb_drop(r, p);
    kb_relu(r, kb_arg(r, "y"), l);
}

KB_PROBLEM(.title = "Conv3d Max LogSumExp ReLU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K))),
           /* terms: the conv's 864 products, then the log-sum-exp's sum over 64 channels */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1, PD, PH, PW), .terms = CIN * K * K * K * COUT)),
           .flags = KB_PROB_CENTERED,
           /* one multiply-add per (output, tap) pair inside the padded input (per dim 94, 382, 382),
            * the bias add and a comparison per element, 5 per pooled value for the log-sum-exp */
           .flops = 2.0 * BATCH * COUT * CIN * 94.0 * 382.0 * 382.0 + 2.0 * BATCH * COUT * D * H * W +
                    5.0 * BATCH * COUT * PD * PH * PW)
