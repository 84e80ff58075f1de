/*
 * level2/038_convtranspose3d_avgpool_clamp_softmax_multiply -- KernelBench L2/38:
 * x = torch.clamp(conv_transpose(avg_pool(x)), 0.0, 1.0); x = torch.softmax(x.view(b, c, -1),
 * dim=2).view(b, c, d, h, w) * self.scale, with avg_pool = nn.AvgPool3d(2), conv_transpose =
 * nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1) and scale (1, 64, 1, 1, 1)
 * ~ ones, on x (32, 32, 32, 64, 64) fp32 -> (32, 64, 32, 64, 64).
 *
 * The average pool runs BEFORE the transposed convolution, whatever the name's order says; the
 * softmax is over each (n, c)'s 32*64*64 = 131072 spatial values (the last dim of the view).
 * Eager PyTorch: avg_pool3d, the cuDNN backward-data convolution (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel, the clamp, the softmax over the last
 * dim of the (32, 64, 131072) view (host_softmax, inner size 1), the broadcast multiply: six
 * kernels, views free, each temporary freed when the next op has read it. Napkin math:
 * 2 * 32*32*64 * (47*95*95 input-tap pairs inside the output) = 5.6e10 FLOP, ~0.93 ms of TF32 at
 * ~60 TFLOP/s; x is 0.5 GiB and the conv output 1 GiB: the pool reads x, the conv writes, the bias
 * add, the clamp, the softmax (which reads its rows more than once) and the multiply read and
 * write: ~10.3 GB of traffic, ~2.4 ms at ~4.3 TB/s. Eager: 5.68 ms on an H100
 * (reference/kernelbench-problems.csv), 4.64 ms on an H200 (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 32, CIN = 32, COUT = 64, D = 32, H = 64, W = 64, POOL = 2, K = 3, S = 2, P = 1, OP = 1 };
enum { PD = D / POOL, PH = H / POOL, PW = W / POOL }; /* 16, 32, 32 */
enum { OD = (PD - 1) * S - 2 * P + K + OP, OH = (PH - 1) * S - 2 * P + K + OP, OW = (PW - 1) * S - 2 * P + K + OP }; /* 32, 64, 64 */

static void reference(kb_ref *r)
{
    kb_tensor p = kb_avg_pool3d(r, KB_NEW, kb_arg(r, "x"), POOL, /*stride=None*/ 0, 0, /*ceil_mode=*/0,
                                /*count_include_pad=*/1, /*divisor_override=None*/ 0);
    kb_tensor c = kb_conv_transpose(r, KB_NEW, p, kb_arg(r, "conv_transpose.weight"), kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}, .output_padding = {OP, OP, OP}));
    kb_drop(r, p);
    kb_tensor q = kb_clamp(r, KB_NEW, c, 0.0, 1.0); /* self.clamp_min, self.clamp_max */
    kb_drop(r, c);
    kb_tensor s = kb_softmax(r, KB_NEW, KB_VIEW(r, q, BATCH, COUT, -1), 2);
    kb_drop(r, q);
    kb_mul(r, kb_arg(r, "y"), KB_VIEW(r, s, BATCH, COUT, OD, OH, OW), kb_arg(r, "scale"));
}

KB_PROBLEM(.title = "ConvTranspose3d AvgPool Clamp Softmax Multiply",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("scale", KB_F32, KB_DIMS(1, COUT, 1, 1, 1), KB_ONES),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the pool's 8, the 256 products that reach a conv output (C_in * 2*2*2 taps), the
            * softmax's sum over 131072 values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW),
                                .terms = (int64_t)POOL * POOL * POOL * CIN * 8 * (OD * OH * OW))),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one add per pool tap, one multiply-add per (input position, tap) pair inside the output
            * (per dim 47, 95, 95), then per element: the bias add, the clamp, 5 for the softmax, the
            * multiply */
           .flops = 1.0 * BATCH * CIN * D * H * W + 2.0 * BATCH * CIN * COUT * 47.0 * 95.0 * 95.0 +
                    8.0 * BATCH * COUT * OD * OH * OW)
