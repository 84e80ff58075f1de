/*
 * level2/012_gemm_multiply_leakyrelu -- KernelBench L2/12: x = leaky_relu(gemm(x) * 2.0, 0.1),
 * gemm = nn.Linear(8192, 8192), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: nn.Linear of a 2-D input is at::addmm(bias, x, weight.t()), one cuBLAS(Lt) GEMM
 * with the bias in its epilogue for these shapes (kb_linear), then two TensorIterator kernels:
 * mul by a Python scalar, nn.LeakyReLU(0.1). Each temporary is freed once the next op has read it.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32 (~350 TFLOP/s); the 268 MB weight is read in ~0.06 ms, each pass over the 33.5 MB result
 * takes ~0.016 ms: compute-bound. Eager: 2.73 ms on an H100 (reference/kernelbench-problems.csv);
 * 2.77 ms FP32, 0.40 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor m = kb_muls(r, KB_NEW, g, 2.0); /* multiplier */
    kb_drop(r, g);
    kb_leaky_relu(r, kb_arg(r, "y"), m, 0.1); /* negative_slope */
}

KB_PROBLEM(.title = "Gemm Multiply LeakyReLU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 3.0 * BATCH * OUT) /* GEMM; bias, mul, leaky_relu */
