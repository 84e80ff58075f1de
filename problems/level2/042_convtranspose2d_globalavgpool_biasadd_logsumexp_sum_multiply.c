/*
 * level2/042_convtranspose2d_globalavgpool_biasadd_logsumexp_sum_multiply -- KernelBench L2/42:
 * x = conv_transpose(x); x = torch.mean(x, dim=(2, 3), keepdim=True); x = x + self.bias;
 * x = torch.logsumexp(x, dim=1, keepdim=True); x = torch.sum(x, dim=(2, 3)); x = x * 10.0, with
 * conv_transpose = nn.ConvTranspose2d(64, 128, 3) and bias (128, 1, 1) ~ randn, on
 * x (16, 64, 512, 512) fp32 -> (16, 1).
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel, one mean reduction over H and W
 * (16 x 128 means of 514*514 values), the broadcast add, torch.logsumexp's composite (amax, the
 * infinite maxima masked, exp(x - max), sum, log, + max) over the 128 channels, the sum over
 * the two size-1 dims (a reduction of length 1, still one kernel) and the scalar multiply. Each
 * temporary is freed when the next op has read it. PyTorch's kaiming init of a transposed
 * weight takes fan_in from weight.size(1) * 3 * 3 = 1152.
 * Napkin math: 2 * 16*64*128 * 1536*1536 = 6.2e11 FLOP, ~1.5 ms at ~400 TFLOP/s TF32 (9.2 ms at
 * 67 TFLOP/s FP32); the conv output is 2.16 GB, written, read and written by the bias add, read
 * by the mean; everything after it is 2048 values: ~9.7 GB of traffic, ~2.3 ms at ~4.3 TB/s.
 * Eager: 7.17 ms on an H100 (reference/kernelbench-problems.csv), 6.03 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: each conv output sums at most 64 input channels
 * x 3 x 3 taps, and each mean 514*514 of them: the longest sum of the chain (the logsumexp's
 * 128-term sum weighs its inputs' errors by a softmax, so it does not multiply them).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 64, COUT = 128, H = 512, W = 512, K = 3,
       OH = H + K - 1, OW = W + K - 1, /* 514 */
       TAPS = 3 }; /* taps reaching an output per dim; without padding every (input, tap) pair lands inside */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), NULL);
    kb_tensor m = kb_mean_dims(r, KB_NEW, c, (const int[]){2, 3}, 2, /*keepdim=*/1);
    kb_drop(r, c);
    kb_tensor a = kb_add(r, KB_NEW, m, kb_arg(r, "bias"));
    kb_drop(r, m);
    kb_tensor l = kb_logsumexp(r, KB_NEW, a, (const int[]){1}, 1, /*keepdim=*/1);
    kb_drop(r, a);
    kb_tensor s = kb_sum_dims(r, KB_NEW, l, (const int[]){2, 3}, 2, /*keepdim=*/0);
    kb_drop(r, l);
    kb_muls(r, kb_arg(r, "y"), s, 10.0);
}

KB_PROBLEM(.title = "ConvTranspose2d GlobalAvgPool BiasAdd LogSumExp Sum Multiply",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1), .terms = (int64_t)CIN * TAPS * TAPS * OH * OW)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* the transposed convolution, its bias and the mean's add per conv output, then the
            * add and the logsumexp (max, subtract, exp, sum: 4) per mean */
           .flops = 2.0 * BATCH * CIN * COUT * H * K * W * K + 2.0 * BATCH * COUT * OH * OW + 5.0 * BATCH * COUT)
