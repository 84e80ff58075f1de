/*
 * level2/061_convtranspose3d_relu_groupnorm -- KernelBench L2/61: x = group_norm(relu(conv_transpose(x))),
 * with conv_transpose = nn.ConvTranspose3d(64, 128, 3, bias=False) and group_norm =
 * nn.GroupNorm(8, 128), on x (16, 64, 32, 32, 32) fp32 -> (16, 128, 34, 34, 34).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32; no bias, so
 * no bias kernel), relu, native_group_norm (row moments per (n, group), the fused parameters, the
 * elementwise y = a*x + b): each temporary freed when the next op has read it. Napkin math:
 * 2 * 16*64*128 * 96^3 (stride 1: every input-tap pair lands in the output) = 2.3e11 FLOP,
 * ~3.9 ms of TF32 at ~60 TFLOP/s; y is 0.3 GiB, written by the conv, read and written by relu,
 * read twice and written by the GroupNorm: ~2.1 GB of traffic, ~0.48 ms at ~4.3 TB/s. Eager:
 * 3.79 ms on an H100 (reference/kernelbench-problems.csv), 3.50 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 64, COUT = 128, GROUPS = 8, D = 32, H = 32, W = 32, K = 3 };
enum { OD = D + K - 1, OH = H + K - 1, OW = W + K - 1 }; /* 34 each */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"), KB_NEW, NULL);
    kb_tensor a = kb_relu(r, KB_NEW, c);
    kb_drop(r, c);
    kb_group_norm(r, kb_arg(r, "y"), a, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"), 1e-5);
}

KB_PROBLEM(.title = "ConvTranspose3d ReLU GroupNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           /* terms: the conv's 1728 products (C_in * 3*3*3 taps), the group statistics over
            * 16*34*34*34 values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW),
                                .terms = (int64_t)CIN * K * K * K * (COUT / GROUPS) * OD * OH * OW)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per input element, output channel and tap, then per element: relu, 8
            * for the GroupNorm */
           .flops = 2.0 * BATCH * CIN * D * H * W * COUT * K * K * K + 9.0 * BATCH * COUT * OD * OH * OW)
