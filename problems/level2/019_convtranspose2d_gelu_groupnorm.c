/*
 * level2/019_convtranspose2d_gelu_groupnorm -- KernelBench L2/19: x = conv_transpose(x);
 * x = gelu(x); x = self.group_norm(x), with conv_transpose = nn.ConvTranspose2d(64, 64, 3,
 * stride=1) and group_norm = nn.GroupNorm(8, 64) (eps 1e-5), on x (128, 64, 256, 256) fp32
 * -> (128, 64, 258, 258). The `groups` init argument (8) is unused.
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel, F.gelu (erf), then native_group_norm
 * (RowwiseMomentsCUDAKernel per (n, group), ComputeFusedParamsCUDAKernel, one elementwise
 * y = a * x + b): six kernels, each temporary freed when the next op has read it. PyTorch's
 * kaiming init of a transposed weight takes fan_in from weight.size(1) * 3 * 3 = 576.
 * Napkin math: 2 * 128*64*64 * 768*768 = 6.2e11 FLOP, ~1.5 ms at ~400 TFLOP/s TF32 (9.2 ms at
 * 67 TFLOP/s FP32); the conv output is 2.18 GB, written, read and written by the bias add and
 * gelu, read twice and written by the group norm: ~19.6 GB of traffic, ~4.6 ms at ~4.3 TB/s.
 * Eager: 12.3 ms on an H100 (reference/kernelbench-problems.csv), 10.24 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: each conv output sums at most 64 input channels
 * x 3 x 3 taps, and each group's statistics sum 8*258*258 of them.
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 64, H = 256, W = 256, K = 3, S = 1,
       OH = (H - 1) * S + K, OW = (W - 1) * S + K, /* 258 */
       TAPS = 3, /* taps reaching an output per dim; without padding every (input, tap) pair lands inside */
       GROUPS = 8 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S}));
    kb_tensor g = kb_gelu(r, KB_NEW, c);
    kb_drop(r, c);
    kb_group_norm(r, kb_arg(r, "y"), g, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"), 1e-5);
}

KB_PROBLEM(.title = "ConvTranspose2d GELU GroupNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW),
                                .terms = (int64_t)CIN * TAPS * TAPS * (COUT / GROUPS) * OH * OW)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* the transposed convolution, its bias, gelu, the group norm (8) per element */
           .flops = 2.0 * BATCH * CIN * COUT * H * K * W * K + 10.0 * BATCH * COUT * OH * OW)
