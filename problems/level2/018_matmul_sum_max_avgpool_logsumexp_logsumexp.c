/*
 * level2/018_matmul_sum_max_avgpool_logsumexp_logsumexp -- KernelBench L2/18: x = linear(x);
 * x = torch.sum(x, 1, keepdim=True); then torch.max(x, 1, keepdim=True)[0], torch.mean(x, 1,
 * keepdim=True) and torch.logsumexp(x, 1, keepdim=True) twice, linear = nn.Linear(8192, 8192),
 * on x (1024, 8192) fp32 -> (1024, 1).
 *
 * After the row sum every op reduces a dimension of size 1: mathematically the output is the row
 * sum of linear(x) (max, mean and logsumexp of one value are that value), but eager launches every
 * op: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear), the row sum
 * (gpu_reduce_kernel), max.dim (values and int64 indices, the indices freed with the tuple), mean,
 * and each logsumexp as its composite (amax, the infinite-max mask, sub, exp, sum, log, add:
 * kb_logsumexp) on 1024 values. Each temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 8192 (the row sum of 8192-term GEMM outputs, flattened).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the reductions after the row sum are launch latency (~15 launches of a few us). Eager:
 * 2.77 ms on an H100 (reference/kernelbench-problems.csv); 2.81 ms FP32, 0.43 ms TF32 on the
 * H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    static const int dim1[] = {1};
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear.weight"), kb_arg(r, "linear.bias"));
    kb_tensor s = kb_sum(r, KB_NEW, l, 1, 1);
    kb_drop(r, l);
    /* torch.max(x, 1, keepdim=True) returns (values, indices); [0] keeps the values */
    kb_tensor idx = KB_EMPTY(r, KB_I64, BATCH, 1);
    kb_tensor m = kb_max_dim(r, KB_NEW, idx, s, 1, 1);
    kb_drop(r, idx);
    kb_drop(r, s);
    kb_tensor a = kb_mean(r, KB_NEW, m, 1, 1);
    kb_drop(r, m);
    kb_tensor e = kb_logsumexp(r, KB_NEW, a, dim1, 1, 1);
    kb_drop(r, a);
    kb_logsumexp(r, kb_arg(r, "y"), e, dim1, 1, 1);
}

KB_PROBLEM(.title = "Matmul Sum Max AvgPool LogSumExp LogSumExp",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("linear.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1), .terms = (int64_t)IN * OUT)),
           .flops = 2.0 * BATCH * OUT * IN + 2.0 * BATCH * OUT, /* GEMM; bias, row sum (the rest ~1e4) */
           .flags = KB_PROB_CENTERED)
