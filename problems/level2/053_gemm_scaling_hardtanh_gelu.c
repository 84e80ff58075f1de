/*
 * level2/053_gemm_scaling_hardtanh_gelu -- KernelBench L2/53: x = gelu(hardtanh(gemm(x) * 0.5, -2, 2)),
 * gemm = nn.Linear(8192, 8192), on x (2048, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear), then three
 * TensorIterator kernels: mul by a Python scalar, nn.Hardtanh(-2, 2) (the int bounds are taken as
 * floats), nn.GELU() (approximate='none', erf). Each temporary is freed once the next op has read it.
 * Napkin math: 2 * 2048 * 8192 * 8192 = 2.75e11 FLOP: ~5.5 ms of FP32 (~50 TFLOP/s), ~0.8 ms of
 * TF32; the 268 MB weight is read in ~0.06 ms, each pass over the 67 MB result takes ~0.03 ms:
 * compute-bound. Eager: 5.53 ms on an H100 (reference/kernelbench-problems.csv); 5.57 ms FP32,
 * 0.80 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 2048, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor s = kb_muls(r, KB_NEW, g, 0.5); /* scaling_factor */
    kb_drop(r, g);
    kb_tensor h = kb_hardtanh(r, KB_NEW, s, -2.0, 2.0); /* hardtanh_min, hardtanh_max */
    kb_drop(r, s);
    kb_gelu(r, kb_arg(r, "y"), h);
}

KB_PROBLEM(.title = "Gemm Scaling Hardtanh GELU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 5.0 * BATCH * OUT) /* GEMM; bias, mul, hardtanh (2), gelu */
