/*
 * level2/037_matmul_swish_sum_groupnorm -- KernelBench L2/37: x = matmul(x); x = sigmoid(x) * x;
 * x = group_norm(x + bias), matmul = nn.Linear(1024, 4096), bias (4096,) ~ randn, group_norm =
 * nn.GroupNorm(64, 4096) (eps 1e-5, weight = ones, bias = zeros at initialisation), on
 * x (32768, 1024) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); sigmoid, then the
 * mul (the sigmoid temporary and the GEMM output both freed after it); the broadcast add of bias;
 * native_group_norm on the 2-D input, H x W = 1: RowwiseMomentsCUDAKernel, one block per
 * (row, group) = 2097152 blocks of 64 values (a 32-thread warp each, as D x HxW < 512), then
 * GroupNorm1dForward's (x - mean) * rstd * gamma + beta (kb_group_norm).
 * Accuracy: terms = 1024 * 64 (group statistics over 64 GEMM outputs of 1024 terms).
 * Napkin math: 2 * 32768 * 4096 * 1024 = 2.75e11 FLOP: ~5.5 ms of FP32 (~50 TFLOP/s), ~0.8 ms of
 * TF32. The 537 MB result is large here: the sigmoid, mul, add and the norm make ~8 passes
 * (~4.3 GB, ~1.0 ms at ~4.3 TB/s), which is why eager's TF32 time is far above the GEMM's.
 * Eager: 8.55 ms on an H100 (reference/kernelbench-problems.csv); 8.29 ms FP32, 3.49 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 32768, IN = 1024, OUT = 4096, GROUPS = 64 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "matmul.weight"), kb_arg(r, "matmul.bias"));
    kb_tensor sg = kb_sigmoid(r, KB_NEW, l);
    kb_tensor sw = kb_mul(r, KB_NEW, sg, l);
    kb_drop(r, sg);
    kb_drop(r, l);
    kb_tensor b = kb_add(r, KB_NEW, sw, kb_arg(r, "bias"));
    kb_drop(r, sw);
    kb_group_norm(r, kb_arg(r, "y"), b, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"), 1e-5);
}

KB_PROBLEM(.title = "Matmul Swish Sum GroupNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(OUT), KB_RANDN),
                     KB_PARAM("matmul.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("matmul.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(OUT), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * (OUT / GROUPS))),
           /* GEMM; bias, sigmoid (4), mul, add, the norm (~8) */
           .flops = 2.0 * BATCH * OUT * IN + 15.0 * BATCH * OUT,
           .flags = KB_PROB_CENTERED)
