/*
 * level2/094_gemm_biasadd_hardtanh_mish_groupnorm -- KernelBench L2/94: x = gemm(x) + bias;
 * return groupnorm(mish(hardtanh(x))), gemm = nn.Linear(8192, 8192), bias (8192,) ~ randn,
 * hardtanh = nn.Hardtanh() (-1, 1), groupnorm = nn.GroupNorm(256, 8192) (eps 1e-5, weight = ones,
 * bias = zeros at initialisation), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); the broadcast add
 * of bias; hardtanh; mish; native_group_norm on the 2-D input, H x W = 1: RowwiseMomentsCUDAKernel,
 * one block per (row, group) = 262144 blocks of 32 values (a 32-thread warp each), then
 * GroupNorm1dForward's (x - mean) * rstd * gamma + beta (kb_group_norm). Each temporary is freed
 * once the next op has read it.
 * Accuracy: terms = 8192 * 32 (group statistics over 32 GEMM outputs of 8192 terms).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; three elementwise kernels and the norm make ~9 passes over the 33.5 MB result (~0.14 ms).
 * Eager: 2.96 ms on an H100 (reference/kernelbench-problems.csv); 2.98 ms FP32, 0.62 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192, GROUPS = 256 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor b = kb_add(r, KB_NEW, g, kb_arg(r, "bias"));
    kb_drop(r, g);
    kb_tensor h = kb_hardtanh(r, KB_NEW, b, -1.0, 1.0);
    kb_drop(r, b);
    kb_tensor m = kb_mish(r, KB_NEW, h);
    kb_drop(r, h);
    kb_group_norm(r, kb_arg(r, "y"), m, GROUPS, kb_arg(r, "groupnorm.weight"), kb_arg(r, "groupnorm.bias"), 1e-5);
}

KB_PROBLEM(.title = "Gemm BiasAdd Hardtanh Mish GroupNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(OUT), KB_RANDN),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN)),
                     KB_PARAM("groupnorm.weight", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_PARAM("groupnorm.bias", KB_F32, KB_DIMS(OUT), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * (OUT / GROUPS))),
           /* GEMM; bias, add, hardtanh (2), mish (~5), the norm (~8) */
           .flops = 2.0 * BATCH * OUT * IN + 17.0 * BATCH * OUT,
           .flags = KB_PROB_CENTERED)
