/*
 * level2/080_gemm_max_subtract_gelu -- KernelBench L2/80: x = torch.max(gemm(x), 1, keepdim=True).values;
 * x = x - x.mean(dim=1, keepdim=True); return gelu(x), gemm = nn.Linear(8192, 8192), max_dim = 1,
 * on x (1024, 8192) fp32 -> (1024, 1).
 *
 * EXCLUDED (as the paper excludes it): after the max the mean is over a dimension of size 1, so
 * x - mean is exactly 0 for every finite x and the output is GELU(0) = 0 everywhere: any kernel
 * that writes zeros passes. The reference is still eager's sequence.
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); max.dim (values
 * and int64 indices, the indices freed with the named tuple); the mean over the size-1 dim; the
 * sub (after which the mean is freed); GELU (erf).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the max reads the 33.5 MB result once (~0.008 ms). Eager: 2.72 ms on an H100
 * (reference/kernelbench-problems.csv); 2.75 ms FP32, 0.39 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor idx = KB_EMPTY(r, KB_I64, BATCH, 1);
    kb_tensor m = kb_max_dim(r, KB_NEW, idx, g, 1 /* max_dim */, 1);
    kb_drop(r, idx);
    kb_drop(r, g);
    kb_tensor a = kb_mean(r, KB_NEW, m, 1, 1);
    kb_tensor d = kb_sub(r, KB_NEW, m, a);
    kb_drop(r, a);
    kb_drop(r, m);
    kb_gelu(r, kb_arg(r, "y"), d);
}

KB_PROBLEM(.title = "Gemm Max Subtract GELU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           /* terms: the max of 8192-term GEMM outputs (the max is exact; the mean of one value adds none) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 2.0 * BATCH * OUT, /* GEMM; bias, max (the rest ~3e3) */
           .flags = KB_PROB_EXCLUDED)
