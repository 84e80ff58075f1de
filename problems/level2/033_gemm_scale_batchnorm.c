/*
 * level2/033_gemm_scale_batchnorm -- KernelBench L2/33: x = bn(gemm(x) * scale), gemm =
 * nn.Linear(8192, 8192), scale (8192,) ~ randn, bn = nn.BatchNorm1d(8192) in training mode (batch
 * statistics, eps 1e-5, momentum 0.1; weight = ones, bias = zeros at initialisation), on
 * x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); the broadcast mul
 * by scale; BatchNorm1d on a 2-D input is not cuDNN (_select_batch_norm_backend wants >= 3 dims)
 * but native batch_norm_cuda: per-feature mean and variance over the 1024 rows, invstd, then the
 * transform (kb_batch_norm_train). A contiguous (N, C) input has stride 1 along C, so
 * batch_norm_choose_impl picks PyTorch's channels-last kernels for it. Each temporary is freed once
 * the next op has read it.
 * Deliberate difference, none touching y: the running statistics are module state (KB_STATE, bound to the submission's buffers); the reference passes none, so the small kernel that updates them
 * (batch_norm_update_stats_and_invert) runs as the plain invstd kernel, and num_batches_tracked
 * += 1 is not reproduced (as L1/33).
 * Accuracy: terms = 8192 * 1024 (batch statistics over 1024 GEMM outputs of 8192 terms).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the mul and the norm make ~4 passes over the 33.5 MB result (~0.06 ms). Eager: 2.76 ms on
 * an H100 (reference/kernelbench-problems.csv); 2.88 ms FP32, 0.45 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor s = kb_mul(r, KB_NEW, g, kb_arg(r, "scale"));
    kb_drop(r, g);
    kb_batch_norm_train(r, kb_arg(r, "y"), s, kb_arg(r, "bn.weight"), kb_arg(r, "bn.bias"), KB_NEW, KB_NEW, 0.1,
                        1e-5);
}

KB_PROBLEM(.title = "Gemm Scale BatchNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("scale", KB_F32, KB_DIMS(OUT), KB_RANDN),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN)),
                     KB_PARAM("bn.weight", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_PARAM("bn.bias", KB_F32, KB_DIMS(OUT), KB_ZEROS),
                     KB_STATE("bn.running_mean", KB_F32, KB_DIMS(OUT), KB_ZEROS),
                     KB_STATE("bn.running_var", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_STATE("bn.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * BATCH)),
           .flops = 2.0 * BATCH * OUT * IN + 10.0 * BATCH * OUT, /* GEMM; bias, mul, the norm (~8) */
           .flags = KB_PROB_CENTERED)
