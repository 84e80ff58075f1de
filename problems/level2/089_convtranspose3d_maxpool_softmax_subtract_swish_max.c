/*
 * level2/089_convtranspose3d_maxpool_softmax_subtract_swish_max -- KernelBench L2/89:
 * x = torch.softmax(max_pool(conv_transpose(x)), dim=1) - self.subtract.view(1, -1, 1, 1, 1);
 * x = torch.max(torch.sigmoid(x) * x, dim=1)[0], with conv_transpose = nn.ConvTranspose3d(3, 16, 3,
 * stride=2, padding=1, output_padding=1), max_pool = nn.MaxPool3d(2, stride=2, padding=0) and
 * subtract (16,) ~ randn, on x (128, 3, 16, 32, 32) fp32 -> (128, 16, 32, 32).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, max_pool3d_with_indices (indices computed and dropped), the
 * softmax over the channels (dim 1 of NCDHW, inner size 16*32*32: PyTorch's spatial softmax),
 * the broadcast subtract (the view is free), sigmoid, the multiply, then torch.max over the
 * channels (values and int64 indices in one reduction; [0] keeps the values), each temporary
 * freed when the next op has read it. Napkin math: 2 * 128*3*16 * (47*95*95 input-tap pairs
 * inside the output) = 5.2e9 FLOP, ~0.09 ms of TF32 at ~60 TFLOP/s; the conv output is 1 GiB,
 * written by cuDNN, read and written by the bias add, read by the pool (which writes an eighth of
 * it, plus int64 indices); the rest works on that eighth: ~6.1 GB of traffic, ~1.4 ms at
 * ~4.3 TB/s: memory bound.
 * Eager: 5.68 ms on an H100 (reference/kernelbench-problems.csv), 5.28 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 16, D = 16, H = 32, W = 32, K = 3, S = 2, P = 1, OP = 1, POOL = 2 };
enum { CD = (D - 1) * S - 2 * P + K + OP, CH = (H - 1) * S - 2 * P + K + OP, CW = (W - 1) * S - 2 * P + K + OP }; /* 32, 64, 64 */
enum { PD = CD / POOL, PH = CH / POOL, PW = CW / POOL };                                                       /* 16, 32, 32 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}, .output_padding = {OP, OP, OP}));
    kb_tensor p = kb_max_pool3d(r, KB_NEW, c, POOL, POOL, /*padding=*/0, 1, /*ceil_mode=*/0);
    kb_drop(r, c);
    kb_tensor s = kb_softmax(r, KB_NEW, p, 1);
    kb_drop(r, p);
    kb_tensor d = kb_sub(r, KB_NEW, s, KB_VIEW(r, kb_arg(r, "subtract"), 1, -1, 1, 1, 1));
    kb_drop(r, s);
    kb_tensor g = kb_sigmoid(r, KB_NEW, d);
    kb_tensor m = kb_mul(r, KB_NEW, g, d); /* torch.sigmoid(x) * x */
    kb_drop(r, g);
    kb_drop(r, d);
    kb_max_dim(r, kb_arg(r, "y"), KB_NEW, m, 1, /*keepdim=*/0);
}

KB_PROBLEM(.title = "ConvTranspose3d MaxPool Softmax Subtract Swish Max",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("subtract", KB_F32, KB_DIMS(COUT), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 24 products that reach a conv output (C_in * 2*2*2 taps), the softmax's sum
            * over 16 channels */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, PD, PH, PW), .terms = CIN * 8 * COUT)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 47, 95, 95),
            * the bias add and one comparison per conv element, then per pooled element: 5 for the
            * softmax, the subtract, sigmoid 4, the multiply, one comparison for the max */
           .flops = 2.0 * BATCH * CIN * COUT * 47.0 * 95.0 * 95.0 + 2.0 * BATCH * COUT * CD * CH * CW +
                    12.0 * BATCH * COUT * PD * PH * PW)
