/*
 * level2/070_gemm_sigmoid_scaling_residualadd -- KernelBench L2/70: x = gemm(x);
 * return sigmoid(x) * 2.0 + x, gemm = nn.Linear(8192, 8192), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); sigmoid; the mul
 * by a Python scalar; the add of the GEMM output (original_x is the same tensor, no copy, so it
 * lives until forward returns). Each other temporary is freed once the next op has read it.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the 268 MB weight is read in ~0.06 ms, each pass over the 33.5 MB result takes ~0.016 ms:
 * compute-bound. Eager: 2.77 ms on an H100 (reference/kernelbench-problems.csv); 2.89 ms FP32,
 * 0.47 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, HIDDEN = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor s = kb_sigmoid(r, KB_NEW, g);
    kb_tensor m = kb_muls(r, KB_NEW, s, 2.0); /* scaling_factor */
    kb_drop(r, s);
    kb_add(r, kb_arg(r, "y"), m, g);
}

KB_PROBLEM(.title = "Gemm Sigmoid Scaling ResidualAdd",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(HIDDEN, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, HIDDEN), .terms = IN)),
           .flops = 2.0 * BATCH * HIDDEN * IN + 7.0 * BATCH * HIDDEN) /* GEMM; bias, sigmoid (4), mul, add */
