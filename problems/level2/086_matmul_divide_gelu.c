/*
 * level2/086_matmul_divide_gelu -- KernelBench L2/86: x = gelu(linear(x) / 10.0),
 * linear = nn.Linear(8192, 8192), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); the division by a
 * Python scalar (div_true_kernel_cuda: x * (1/10), which rounds differently from x / 10: kb_divs);
 * GELU (erf). Each temporary is freed once the next op has read it.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the 268 MB weight is read in ~0.06 ms, each pass over the 33.5 MB result takes ~0.016 ms:
 * compute-bound. Eager: 2.73 ms on an H100 (reference/kernelbench-problems.csv); 2.77 ms FP32,
 * 0.40 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear.weight"), kb_arg(r, "linear.bias"));
    kb_tensor d = kb_divs(r, KB_NEW, l, 10.0); /* divisor */
    kb_drop(r, l);
    kb_gelu(r, kb_arg(r, "y"), d);
}

KB_PROBLEM(.title = "Matmul Divide GELU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("linear.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 3.0 * BATCH * OUT) /* GEMM; bias, div, gelu */
