/*
 * level2/041_gemm_batchnorm_gelu_relu -- KernelBench L2/41: x = relu(gelu(batch_norm(gemm(x)))),
 * gemm = nn.Linear(4096, 4096), batch_norm = nn.BatchNorm1d(4096) in training mode (batch
 * statistics, eps 1e-5, momentum 0.1; weight = ones, bias = zeros at initialisation), on
 * x (16384, 4096) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); BatchNorm1d on a
 * 2-D input is native batch_norm_cuda, not cuDNN (_select_batch_norm_backend wants >= 3 dims):
 * per-feature statistics over the 16384 rows, invstd, the transform (kb_batch_norm_train; the
 * contiguous (N, C) input has stride 1 along C: PyTorch's channels-last kernels); then GELU
 * (approximate='none', erf) and relu. Each temporary is freed once the next op has read it.
 * Deliberate difference, none touching y: the running statistics are module state (KB_STATE, bound to the submission's buffers); the
 * reference passes none (their update kernel runs as the plain invstd kernel; num_batches_tracked
 * += 1 not reproduced), as L1/33.
 * Accuracy: terms = 4096 * 16384 (batch statistics over 16384 GEMM outputs of 4096 terms).
 * Napkin math: 2 * 16384 * 4096 * 4096 = 5.50e11 FLOP: ~11 ms of FP32 (~50 TFLOP/s), ~1.6 ms of
 * TF32; the norm, GELU and relu make ~5 passes over the 268 MB result (~1.3 GB, ~0.3 ms). Eager:
 * 11.5 ms on an H100 (reference/kernelbench-problems.csv); 11.56 ms FP32, 2.01 ms TF32 on the
 * H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 16384, IN = 4096, OUT = 4096 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor n = kb_batch_norm_train(r, KB_NEW, g, kb_arg(r, "batch_norm.weight"), kb_arg(r, "batch_norm.bias"),
                                      KB_NEW, KB_NEW, 0.1, 1e-5);
    kb_drop(r, g);
    kb_tensor e = kb_gelu(r, KB_NEW, n);
    kb_drop(r, n);
    kb_relu(r, kb_arg(r, "y"), e);
}

KB_PROBLEM(.title = "Gemm BatchNorm GELU ReLU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN)),
                     KB_PARAM("batch_norm.weight", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_PARAM("batch_norm.bias", KB_F32, KB_DIMS(OUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_mean", KB_F32, KB_DIMS(OUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_var", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_STATE("batch_norm.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * BATCH)),
           .flops = 2.0 * BATCH * OUT * IN + 11.0 * BATCH * OUT, /* GEMM; bias, the norm (~8), gelu, relu */
           .flags = KB_PROB_CENTERED)
