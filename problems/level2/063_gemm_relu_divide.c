/*
 * level2/063_gemm_relu_divide -- KernelBench L2/63: x = relu(linear(x)) / 2.0,
 * linear = nn.Linear(8192, 8192), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); relu; the division
 * by a Python scalar (div_true_kernel_cuda: x * (1/2), kb_divs). Each temporary is freed once the
 * next op has read it.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the 268 MB weight is read in ~0.06 ms, each pass over the 33.5 MB result takes ~0.016 ms:
 * compute-bound. Eager: 2.73 ms on an H100 (reference/kernelbench-problems.csv); 2.76 ms FP32,
 * 0.39 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear.weight"), kb_arg(r, "linear.bias"));
    kb_tensor a = kb_relu(r, KB_NEW, l);
    kb_drop(r, l);
    kb_divs(r, kb_arg(r, "y"), a, 2.0); /* divisor */
}

KB_PROBLEM(.title = "Gemm ReLU Divide",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("linear.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 3.0 * BATCH * OUT) /* GEMM; bias, relu, div */
