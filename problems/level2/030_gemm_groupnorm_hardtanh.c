/*
 * level2/030_gemm_groupnorm_hardtanh -- KernelBench L2/30: x = hardtanh(group_norm(gemm(x)), -2, 2),
 * gemm = nn.Linear(8192, 8192), group_norm = nn.GroupNorm(16, 8192) (eps 1e-5, weight = ones,
 * bias = zeros at initialisation), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); native_group_norm
 * on the 2-D (N, C) input, H x W = 1: RowwiseMomentsCUDAKernel, one 512-thread block per
 * (row, group) = 16384 blocks of 512 values, then (H x W == 1) GroupNorm1dForward's single
 * TensorIterator kernel (x - mean) * rstd * gamma + beta (kb_group_norm); then hardtanh. Each
 * temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 512 (group statistics over 512 GEMM outputs of 8192 terms).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the norm reads the 33.5 MB result twice and writes it, hardtanh one pass more (~0.06 ms).
 * Eager: 2.83 ms on an H100 (reference/kernelbench-problems.csv); 2.87 ms FP32, 0.51 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192, GROUPS = 16 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor n = kb_group_norm(r, KB_NEW, g, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"),
                                1e-5);
    kb_drop(r, g);
    kb_hardtanh(r, kb_arg(r, "y"), n, -2.0, 2.0); /* hardtanh_min, hardtanh_max */
}

KB_PROBLEM(.title = "Gemm GroupNorm Hardtanh",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(OUT), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * (OUT / GROUPS))),
           .flops = 2.0 * BATCH * OUT * IN + 11.0 * BATCH * OUT, /* GEMM; bias, the norm (~8), hardtanh (2) */
           .flags = KB_PROB_CENTERED)
