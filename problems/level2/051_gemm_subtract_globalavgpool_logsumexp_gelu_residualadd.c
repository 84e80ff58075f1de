/*
 * level2/051_gemm_subtract_globalavgpool_logsumexp_gelu_residualadd -- KernelBench L2/51:
 * original_x = x.clone().detach(); x = torch.mean(gemm(x) - subtract, 1, keepdim=True);
 * x = gelu(torch.logsumexp(x, 1, keepdim=True)); return x + original_x, gemm =
 * nn.Linear(8192, 8192), subtract (8192,) ~ randn, on x (2048, 8192) fp32.
 *
 * Eager PyTorch: the clone of the input (a copy kernel, 67 MB); addmm (one cuBLAS(Lt) GEMM with
 * the bias epilogue, kb_linear); the broadcast sub; the row mean (gpu_reduce_kernel with MeanOps);
 * logsumexp's composite over a dimension of size 1 (amax, mask, sub, exp, sum, log, add on 2048
 * values: mathematically the identity, but launched); GELU (erf); the broadcast add of the
 * (2048, 1) column to the clone. Each temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 8192 (the row mean of 8192-term GEMM outputs, flattened).
 * Napkin math: 2 * 2048 * 8192 * 8192 = 2.75e11 FLOP: ~5.5 ms of FP32 (~50 TFLOP/s), ~0.8 ms of
 * TF32; the 268 MB weight read in ~0.06 ms, the clone, sub, mean and add ~6 passes of 67 MB
 * (~0.1 ms). A submission may fold the mean into the GEMM (x @ W.mean(0)), which eager does not.
 * Eager: 5.62 ms on an H100 (reference/kernelbench-problems.csv); 5.61 ms FP32, 0.87 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 2048, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    static const int dim1[] = {1};
    kb_tensor orig = kb_copy(r, KB_NEW, kb_arg(r, "x")); /* x.clone().detach() */
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor s = kb_sub(r, KB_NEW, g, kb_arg(r, "subtract"));
    kb_drop(r, g);
    kb_tensor m = kb_mean(r, KB_NEW, s, 1, 1);
    kb_drop(r, s);
    kb_tensor e = kb_logsumexp(r, KB_NEW, m, dim1, 1, 1);
    kb_drop(r, m);
    kb_tensor u = kb_gelu(r, KB_NEW, e);
    kb_drop(r, e);
    kb_add(r, kb_arg(r, "y"), u, orig);
}

KB_PROBLEM(.title = "Gemm Subtract GlobalAvgPool LogSumExp GELU ResidualAdd",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("subtract", KB_F32, KB_DIMS(OUT), KB_RANDN),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, IN), .terms = (int64_t)IN * OUT)),
           /* GEMM; bias, sub, mean per GEMM output; the residual add per output */
           .flops = 2.0 * BATCH * OUT * IN + 3.0 * BATCH * OUT + 1.0 * BATCH * IN,
           .flags = KB_PROB_CENTERED)
