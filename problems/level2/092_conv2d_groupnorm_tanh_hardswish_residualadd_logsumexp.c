/*
 * level2/092_conv2d_groupnorm_tanh_hardswish_residualadd_logsumexp -- KernelBench L2/92:
 * x_conv = conv(x); x_norm = group_norm(x_conv); x_tanh = tanh(x_norm);
 * x_hard_swish = hardswish(x_tanh); x_res = x_conv + x_hard_swish;
 * return torch.logsumexp(x_res, dim=1, keepdim=True), with conv = nn.Conv2d(8, 64, 3) and
 * group_norm = nn.GroupNorm(16, 64, eps=1e-5), on x (128, 8, 128, 128) fp32 -> (128, 1, 126, 126).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, native_group_norm (moments, fused params, one elementwise pass), nn.Tanh,
 * nn.Hardswish, the residual add, then torch.logsumexp's composite (amax over the channels, the
 * infinite maxima masked, exp(x - max), sum, log, + max). Every intermediate is a named local of
 * forward(), alive until it returns: the reference drops none, so its peak holds x_conv, x_norm,
 * x_tanh, x_hard_swish and x_res at once (5 x 0.52 GB), as eager's does.
 * Napkin math: 2 * 128*64*126*126 * 72 = 1.9e10 FLOP, ~0.05 ms at ~400 TFLOP/s TF32 (0.28 ms at
 * 67 TFLOP/s FP32); each (128, 64, 126, 126) tensor is 0.52 GB: the conv writes one, the bias
 * add reads and writes it, the group norm reads it twice and writes one, tanh and hardswish read
 * and write one each, the add reads two and writes one, logsumexp reads x_res about four times
 * and writes one temporary: ~10 GB of traffic, ~2.3 ms at ~4.3 TB/s: memory-bound. Eager:
 * 4.25 ms on an H100 (reference/kernelbench-problems.csv), 3.56 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: the conv's 72 products times the 4*126*126 values
 * of each group's statistics, the longest sum of the chain (the logsumexp's is 64 long).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1, GROUPS = 16 };

static void reference(kb_ref *r)
{
    kb_tensor x_conv = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor x_norm = kb_group_norm(r, KB_NEW, x_conv, GROUPS, kb_arg(r, "group_norm.weight"),
                                     kb_arg(r, "group_norm.bias"), 1e-5);
    kb_tensor x_tanh = kb_tanh(r, KB_NEW, x_norm);
    kb_tensor x_hard_swish = kb_hardswish(r, KB_NEW, x_tanh);
    kb_tensor x_res = kb_add(r, KB_NEW, x_conv, x_hard_swish);
    kb_logsumexp(r, kb_arg(r, "y"), x_res, (const int[]){1}, 1, /*keepdim=*/1);
}

KB_PROBLEM(.title = "Conv2d GroupNorm Tanh HardSwish ResidualAdd LogSumExp",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1, OH, OW),
                                .terms = (int64_t)CIN * K * K * (COUT / GROUPS) * OH * OW)),
           /* the convolution, its bias, the group norm (8), tanh, hardswish, the add and the
            * logsumexp (max, subtract, exp, sum: 4) per element */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 16.0 * BATCH * COUT * OH * OW,
           .flags = KB_PROB_CENTERED)
