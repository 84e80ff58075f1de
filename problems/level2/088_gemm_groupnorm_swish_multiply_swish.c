/*
 * level2/088_gemm_groupnorm_swish_multiply_swish -- KernelBench L2/88: x = group_norm(gemm(x));
 * x = x * sigmoid(x); x = x * multiply_weight; return x * sigmoid(x), gemm = nn.Linear(8192, 8192),
 * group_norm = nn.GroupNorm(256, 8192) (eps 1e-5, weight = ones, bias = zeros at initialisation),
 * multiply_weight (8192,) ~ randn, on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); native_group_norm
 * on the 2-D input, H x W = 1: RowwiseMomentsCUDAKernel, one block per (row, group) = 262144
 * blocks of 32 values (a 32-thread warp each), then GroupNorm1dForward's (x - mean) * rstd *
 * gamma + beta (kb_group_norm); sigmoid and mul; the broadcast mul by multiply_weight; sigmoid and
 * mul again. Each temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 32 (group statistics over 32 GEMM outputs of 8192 terms).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the norm and five elementwise kernels make ~9 passes over the 33.5 MB result (~0.14 ms).
 * Eager: 3.03 ms on an H100 (reference/kernelbench-problems.csv); 3.05 ms FP32, 0.67 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192, GROUPS = 256 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor n = kb_group_norm(r, KB_NEW, g, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"),
                                1e-5);
    kb_drop(r, g);
    kb_tensor s1 = kb_sigmoid(r, KB_NEW, n);
    kb_tensor w1 = kb_mul(r, KB_NEW, n, s1);
    kb_drop(r, s1);
    kb_drop(r, n);
    kb_tensor m = kb_mul(r, KB_NEW, w1, kb_arg(r, "multiply_weight"));
    kb_drop(r, w1);
    kb_tensor s2 = kb_sigmoid(r, KB_NEW, m);
    kb_mul(r, kb_arg(r, "y"), m, s2);
}

KB_PROBLEM(.title = "Gemm GroupNorm Swish Multiply Swish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("multiply_weight", KB_F32, KB_DIMS(OUT), KB_RANDN),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(OUT), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * (OUT / GROUPS))),
           /* GEMM; bias, the norm (~8), sigmoid (4), mul, mul, sigmoid (4), mul */
           .flops = 2.0 * BATCH * OUT * IN + 20.0 * BATCH * OUT,
           .flags = KB_PROB_CENTERED)
