/*
 * level2/022_matmul_scale_residualadd_clamp_logsumexp_mish -- KernelBench L2/22: x = matmul(x) * 2.0;
 * x = clamp(x + x, -10, 10); x = torch.logsumexp(x, 1, keepdim=True); x = x * mish(x),
 * matmul = nn.Linear(8192, 8192), on x (1024, 8192) fp32 -> (1024, 1).
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear), mul by a Python
 * scalar, x + x (one add kernel reading x twice), clamp, logsumexp's composite over the 8192
 * features (amax, the infinite-max mask, sub, exp, sum, log, add: kb_logsumexp), then mish and the
 * product on 1024 values. Each temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 8192 (the log-sum-exp sums 8192 exponentials of 8192-term GEMM outputs).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the epilogue makes ~7 passes over the 33.5 MB result (~0.1 ms). Eager: 2.84 ms on an H100
 * (reference/kernelbench-problems.csv); 2.90 ms FP32, 0.50 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, HIDDEN = 8192 };

static void reference(kb_ref *r)
{
    static const int dim1[] = {1};
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "matmul.weight"), kb_arg(r, "matmul.bias"));
    kb_tensor s = kb_muls(r, KB_NEW, l, 2.0); /* scale_factor */
    kb_drop(r, l);
    kb_tensor a = kb_add(r, KB_NEW, s, s);
    kb_drop(r, s);
    kb_tensor c = kb_clamp(r, KB_NEW, a, -10.0, 10.0); /* clamp_min, clamp_max */
    kb_drop(r, a);
    kb_tensor e = kb_logsumexp(r, KB_NEW, c, dim1, 1, 1);
    kb_drop(r, c);
    kb_tensor m = kb_mish(r, KB_NEW, e);
    kb_mul(r, kb_arg(r, "y"), e, m);
}

KB_PROBLEM(.title = "Matmul Scale ResidualAdd Clamp LogSumExp Mish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("matmul.weight", KB_F32, KB_DIMS(HIDDEN, IN), KB_KAIMING(IN)),
                     KB_PARAM("matmul.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1), .terms = (int64_t)IN * HIDDEN)),
           /* GEMM; bias, mul, add, clamp (2), logsumexp (~5) per element */
           .flops = 2.0 * BATCH * HIDDEN * IN + 10.0 * BATCH * HIDDEN,
           .flags = KB_PROB_CENTERED)
