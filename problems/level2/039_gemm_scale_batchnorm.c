/*
 * level2/039_gemm_scale_batchnorm -- KernelBench L2/39: x = bn(gemm(x) * scale), gemm =
 * nn.Linear(4096, 4096), scale (4096,) ~ randn, bn = nn.BatchNorm1d(4096) in training mode (batch
 * statistics, eps 1e-5, momentum 0.1; weight = ones, bias = zeros at initialisation), on
 * x (16384, 4096) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); the broadcast mul
 * by scale; BatchNorm1d on a 2-D input is not cuDNN (_select_batch_norm_backend wants >= 3 dims)
 * but native batch_norm_cuda: per-feature mean and variance over the 16384 rows, invstd, then the
 * transform (kb_batch_norm_train); a contiguous (N, C) input has stride 1 along C, so
 * batch_norm_choose_impl picks PyTorch's channels-last kernels for it. Each temporary is freed once
 * the next op has read it.
 * Deliberate difference, none touching y: the running statistics are module state (KB_STATE, bound to the submission's buffers); the
 * reference passes none (their update kernel runs as the plain invstd kernel; num_batches_tracked
 * += 1 not reproduced), as L1/33.
 * Accuracy: terms = 4096 * 16384 (batch statistics over 16384 GEMM outputs of 4096 terms).
 * Napkin math: 2 * 16384 * 4096 * 4096 = 5.50e11 FLOP: ~11 ms of FP32 (~50 TFLOP/s), ~1.6 ms of
 * TF32; the mul and the norm make ~4 passes over the 268 MB result (~1.1 GB, ~0.25 ms). Eager:
 * 11.4 ms on an H100 (reference/kernelbench-problems.csv); 11.34 ms FP32, 1.95 ms TF32 on the
 * H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 16384, IN = 4096, OUT = 4096 };

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
