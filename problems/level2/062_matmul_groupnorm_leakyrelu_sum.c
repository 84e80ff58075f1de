/*
 * level2/062_matmul_groupnorm_leakyrelu_sum -- KernelBench L2/62: x = leaky_relu(gn(fc(x)), 0.01);
 * return x + x, fc = nn.Linear(8192, 8192), gn = nn.GroupNorm(512, 8192) (eps 1e-5, weight = ones,
 * bias = zeros at initialisation), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); native_group_norm
 * on the 2-D input, H x W = 1: RowwiseMomentsCUDAKernel, one block per (row, group) = 524288
 * blocks of 16 values (a 32-thread warp each, as D x HxW < 512), then GroupNorm1dForward's
 * (x - mean) * rstd * gamma + beta (kb_group_norm); nn.LeakyReLU(0.01); x + x (one add kernel
 * reading x twice). Each temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 16 (group statistics over 16 GEMM outputs of 8192 terms).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the epilogue makes ~5 passes over the 33.5 MB result (~0.08 ms); the 524288 small
 * moment blocks (16 values for 32 threads each) are the likely reason eager's TF32 time is
 * 0.75 ms against L2/63's 0.39 ms with a plain epilogue. Eager: 3.09 ms on an H100
 * (reference/kernelbench-problems.csv); 3.12 ms FP32, 0.75 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, HIDDEN = 8192, GROUPS = 512 };

static void reference(kb_ref *r)
{
    kb_tensor f = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "fc.weight"), kb_arg(r, "fc.bias"));
    kb_tensor n = kb_group_norm(r, KB_NEW, f, GROUPS, kb_arg(r, "gn.weight"), kb_arg(r, "gn.bias"), 1e-5);
    kb_drop(r, f);
    kb_tensor l = kb_leaky_relu(r, KB_NEW, n, 0.01); /* negative_slope */
    kb_drop(r, n);
    kb_add(r, kb_arg(r, "y"), l, l);
}

KB_PROBLEM(.title = "Matmul GroupNorm LeakyReLU Sum",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("fc.weight", KB_F32, KB_DIMS(HIDDEN, IN), KB_KAIMING(IN)),
                     KB_PARAM("fc.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(IN)),
                     KB_PARAM("gn.weight", KB_F32, KB_DIMS(HIDDEN), KB_ONES),
                     KB_PARAM("gn.bias", KB_F32, KB_DIMS(HIDDEN), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, HIDDEN), .terms = (int64_t)IN * (HIDDEN / GROUPS))),
           .flops = 2.0 * BATCH * HIDDEN * IN + 11.0 * BATCH * HIDDEN, /* GEMM; bias, the norm (~8), leaky_relu, add */
           .flags = KB_PROB_CENTERED)
