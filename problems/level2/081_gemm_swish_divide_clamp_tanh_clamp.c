/*
 * level2/081_gemm_swish_divide_clamp_tanh_clamp -- KernelBench L2/81: x = gemm(x);
 * x = clamp(tanh(clamp(x * sigmoid(x) / 2.0, -1, 1)), -1, 1), gemm = nn.Linear(8192, 8192), on
 * x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); sigmoid; the mul
 * (after which the sigmoid and the GEMM output are freed); the division by a Python scalar
 * (x * (1/2), kb_divs); clamp; tanh; clamp. Each temporary is freed once the next op has read it.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; six elementwise passes over the 33.5 MB result take ~0.1 ms. Eager: 2.83 ms on an H100
 * (reference/kernelbench-problems.csv); 2.84 ms FP32, 0.47 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor sg = kb_sigmoid(r, KB_NEW, g);
    kb_tensor sw = kb_mul(r, KB_NEW, g, sg);
    kb_drop(r, sg);
    kb_drop(r, g);
    kb_tensor d = kb_divs(r, KB_NEW, sw, 2.0);
    kb_drop(r, sw);
    kb_tensor c = kb_clamp(r, KB_NEW, d, -1.0, 1.0);
    kb_drop(r, d);
    kb_tensor t = kb_tanh(r, KB_NEW, c);
    kb_drop(r, c);
    kb_clamp(r, kb_arg(r, "y"), t, -1.0, 1.0);
}

KB_PROBLEM(.title = "Gemm Swish Divide Clamp Tanh Clamp",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           /* GEMM; bias, sigmoid (4), mul, div, clamp (2), tanh (4), clamp (2) */
           .flops = 2.0 * BATCH * OUT * IN + 15.0 * BATCH * OUT)
