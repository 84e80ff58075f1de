/*
 * level2/059_matmul_swish_scaling -- KernelBench L2/59: x = matmul(x); x = x * sigmoid(x) * 2.0,
 * matmul = nn.Linear(32768, 32768), on x (128, 32768) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); sigmoid; the mul
 * (after which the sigmoid and the GEMM output are freed); the mul by a Python scalar.
 * Napkin math: 2 * 128 * 32768 * 32768 = 2.75e11 FLOP: ~5.5 ms of FP32 (~50 TFLOP/s), ~0.8 ms of
 * TF32; the weight is 4 GiB (2^30 floats), read once in ~1.0 ms: in TF32 the problem is
 * weight-bandwidth-bound. Eager: 5.3 ms on an H100 (reference/kernelbench-problems.csv); 5.33 ms
 * FP32, 1.15 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, IN = 32768, OUT = 32768 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "matmul.weight"), kb_arg(r, "matmul.bias"));
    kb_tensor sg = kb_sigmoid(r, KB_NEW, l);
    kb_tensor sw = kb_mul(r, KB_NEW, l, sg);
    kb_drop(r, sg);
    kb_drop(r, l);
    kb_muls(r, kb_arg(r, "y"), sw, 2.0); /* scaling_factor */
}

KB_PROBLEM(.title = "Matmul Swish Scaling",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("matmul.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("matmul.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 7.0 * BATCH * OUT) /* GEMM; bias, sigmoid (4), mul, mul */
