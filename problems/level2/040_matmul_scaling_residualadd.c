/*
 * level2/040_matmul_scaling_residualadd -- KernelBench L2/40: x = matmul(x);
 * original_x = x.clone().detach(); return x * 0.5 + original_x, matmul = nn.Linear(4096, 4096),
 * on x (16384, 4096) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); clone (a copy
 * kernel into a new 268 MB tensor; detach makes a view); mul by a Python scalar (after which the
 * GEMM output, no longer named, is freed); the add. Mathematically 1.5 * matmul(x).
 * Napkin math: 2 * 16384 * 4096 * 4096 = 5.50e11 FLOP: ~11 ms of FP32 (~50 TFLOP/s), ~1.6 ms of
 * TF32; the clone, mul and add make 3 passes over the 268 MB result plus one more read
 * (~1.9 GB, ~0.44 ms). Eager: 11.4 ms on an H100 (reference/kernelbench-problems.csv); 11.26 ms
 * FP32, 1.88 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 16384, IN = 4096, OUT = 4096 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "matmul.weight"), kb_arg(r, "matmul.bias"));
    kb_tensor orig = kb_copy(r, KB_NEW, l); /* x.clone().detach() */
    kb_tensor s = kb_muls(r, KB_NEW, l, 0.5); /* scaling_factor */
    kb_drop(r, l);
    kb_add(r, kb_arg(r, "y"), s, orig);
}

KB_PROBLEM(.title = "Matmul Scaling ResidualAdd",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("matmul.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("matmul.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 3.0 * BATCH * OUT) /* GEMM; bias, mul, add */
