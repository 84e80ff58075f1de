/*
 * level2/029_matmul_mish_mish -- KernelBench L2/29: x = mish(mish(linear(x))),
 * linear = nn.Linear(8192, 8192), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear), then two
 * TensorIterator mish kernels (x * tanh(softplus(x)), ATen's mish_kernel), each temporary freed
 * once the next op has read it.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; each mish pass over the 33.5 MB result takes ~0.016 ms: compute-bound. Eager: 2.73 ms on
 * an H100 (reference/kernelbench-problems.csv); 2.76 ms FP32, 0.40 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear.weight"), kb_arg(r, "linear.bias"));
    kb_tensor m = kb_mish(r, KB_NEW, l);
    kb_drop(r, l);
    kb_mish(r, kb_arg(r, "y"), m);
}

KB_PROBLEM(.title = "Matmul Mish Mish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("linear.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 11.0 * BATCH * OUT) /* GEMM; bias, 2 x mish (~5: softplus, tanh, mul) */
