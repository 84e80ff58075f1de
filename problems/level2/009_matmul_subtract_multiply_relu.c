/*
 * level2/009_matmul_subtract_multiply_relu -- KernelBench L2/9: x = relu((linear(x) - 2.0) * 1.5),
 * linear = nn.Linear(8192, 8192), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: nn.Linear of a 2-D input is at::addmm(bias, x, weight.t()), one cuBLAS(Lt) GEMM
 * with the bias in its epilogue for these shapes (kb_linear dispatches as addmm_out_cuda_impl
 * does), then three TensorIterator kernels: sub and mul by Python scalars (CPU scalars in the
 * functor), relu. Each temporary is freed once the next op has read it.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (cuBLAS reaches ~50 TFLOP/s
 * on the H200), ~0.4 ms of TF32 (~350 TFLOP/s); the 268 MB weight is read in ~0.06 ms and each
 * elementwise pass over the 33.5 MB result takes ~0.016 ms: compute-bound, the epilogue ~2% in
 * FP32. Eager: 2.73 ms on an H100 (reference/kernelbench-problems.csv); 2.79 ms FP32, 0.41 ms
 * TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear.weight"), kb_arg(r, "linear.bias"));
    kb_tensor s = kb_subs(r, KB_NEW, l, 2.0); /* subtract_value */
    kb_drop(r, l);
    kb_tensor m = kb_muls(r, KB_NEW, s, 1.5); /* multiply_value */
    kb_drop(r, s);
    kb_relu(r, kb_arg(r, "y"), m);
}

KB_PROBLEM(.title = "Matmul Subtract Multiply ReLU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("linear.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 4.0 * BATCH * OUT) /* GEMM; bias, sub, mul, relu */
