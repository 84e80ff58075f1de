/*
 * level2/058_convtranspose3d_logsumexp_hardswish_subtract_clamp -- KernelBench L2/58:
 * x = torch.logsumexp(conv_transpose(x), dim=1, keepdim=True); x = x * torch.sigmoid(x + 3) / 6;
 * x = torch.clamp(x - self.bias, min=-1, max=1), with conv_transpose = nn.ConvTranspose3d(3, 16, 3,
 * stride=2, padding=1) and bias (1, 1, 1, 1) ~ randn, on x (128, 3, 16, 32, 32) fp32
 * -> (128, 1, 31, 63, 63).
 *
 * The bias_shape init argument is unused: bias is a randn (1, 1, 1, 1) parameter either way. The
 * "HardSwish" is written out as x * sigmoid(x + 3) / 6 (not F.hardswish): four kernels.
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, torch.logsumexp over the channels (eager's composite: amax, the
 * infinite maxima masked, exp(x - max), sum, log, + max), then x + 3, sigmoid, the multiply, the
 * division by 6 (a multiply by 1/6 with a CPU scalar), the broadcast subtract and the clamp, each
 * temporary freed when the next op has read it. Napkin math: 2 * 128*3*16 * (46*94*94 input-tap
 * pairs inside the output) = 5.0e9 FLOP, ~0.08 ms of TF32 at ~60 TFLOP/s; the conv output is
 * 0.94 GiB, written by cuDNN, read and written by the bias add, read by the log-sum-exp; the rest
 * works on 1/16 of it: ~4.9 GB of traffic, ~1.15 ms at ~4.3 TB/s: memory bound. Eager: 6.84 ms on
 * an H100 (reference/kernelbench-problems.csv), 6.13 ms on an H200 (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 16, D = 16, H = 32, W = 32, K = 3, S = 2, P = 1 };
enum { OD = (D - 1) * S - 2 * P + K, OH = (H - 1) * S - 2 * P + K, OW = (W - 1) * S - 2 * P + K }; /* 31, 63, 63 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}));
    kb_tensor l = kb_logsumexp(r, KB_NEW, c, (const int[]){1}, 1, /*keepdim=*/1);
    kb_drop(r, c);
    kb_tensor a = kb_adds(r, KB_NEW, l, 3.0);
    kb_tensor s = kb_sigmoid(r, KB_NEW, a);
    kb_drop(r, a);
    kb_tensor m = kb_mul(r, KB_NEW, l, s);
    kb_drop(r, s);
    kb_tensor h = kb_divs(r, KB_NEW, m, 6.0);
    kb_drop(r, m);
    kb_drop(r, l);
    kb_tensor b = kb_sub(r, KB_NEW, h, kb_arg(r, "bias"));
    kb_drop(r, h);
    kb_clamp(r, kb_arg(r, "y"), b, -1.0, 1.0);
}

KB_PROBLEM(.title = "ConvTranspose3d LogSumExp HardSwish Subtract Clamp",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(1, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 24 products that reach a conv output (C_in * 2*2*2 taps), the log-sum-exp's
            * sum over 16 channels */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1, OD, OH, OW), .terms = CIN * 8 * COUT)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 46, 94, 94),
            * the bias add and 5 per conv element for the log-sum-exp, then per output element: the
            * add, sigmoid 4, the multiply, the division, the subtract, the clamp */
           .flops = 2.0 * BATCH * CIN * COUT * 46.0 * 94.0 * 94.0 + 6.0 * BATCH * COUT * OD * OH * OW +
                    9.0 * BATCH * OD * OH * OW)
