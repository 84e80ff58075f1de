/*
 * level2/084_gemm_batchnorm_scaling_softmax -- KernelBench L2/84: x = bn(gemm(x));
 * return softmax(scale * x, dim=1), gemm = nn.Linear(8192, 8192), bn = nn.BatchNorm1d(8192) in
 * training mode (batch statistics, eps 1e-5, momentum 0.1; weight = ones, bias = zeros at
 * initialisation), scale (1,) ~ ones, on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); BatchNorm1d on a
 * 2-D input is native batch_norm_cuda, not cuDNN (_select_batch_norm_backend wants >= 3 dims):
 * per-feature statistics over the 1024 rows, invstd, the transform (kb_batch_norm_train; the
 * contiguous (N, C) input has stride 1 along C: PyTorch's channels-last kernels); scale * x with
 * scale a one-element (1,) CUDA tensor (the csv calls it 0-d; either way TensorIterator
 * broadcasts it, no CPU scalar: kb_mul with scale first, as written); nn.Softmax(dim=1)
 * (host_softmax, one block per row: kb_softmax). Each temporary is freed once the next op has
 * read it.
 * Deliberate difference, none touching y: the running statistics are module state (KB_STATE, bound to the submission's buffers); the
 * reference passes none (their update kernel runs as the plain invstd kernel; num_batches_tracked
 * += 1 not reproduced), as L1/33.
 * Accuracy: terms = 8192 * (1024 + 8192): batch statistics over 1024 GEMM outputs of 8192 terms,
 * then the softmax's row sum over 8192 of them (the two reductions' errors add, as L1/99's).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the norm, mul and softmax make ~7 passes over the 33.5 MB result (~0.1 ms). Eager: 2.8 ms
 * on an H100 (reference/kernelbench-problems.csv); 2.85 ms FP32, 0.47 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor n = kb_batch_norm_train(r, KB_NEW, g, kb_arg(r, "bn.weight"), kb_arg(r, "bn.bias"), KB_NEW, KB_NEW,
                                      0.1, 1e-5); /* bn_momentum, bn_eps */
    kb_drop(r, g);
    kb_tensor s = kb_mul(r, KB_NEW, kb_arg(r, "scale"), n);
    kb_drop(r, n);
    kb_softmax(r, kb_arg(r, "y"), s, 1);
}

KB_PROBLEM(.title = "Gemm BatchNorm Scaling Softmax",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("scale", KB_F32, KB_DIMS(1), KB_ONES),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN)),
                     KB_PARAM("bn.weight", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_PARAM("bn.bias", KB_F32, KB_DIMS(OUT), KB_ZEROS),
                     KB_STATE("bn.running_mean", KB_F32, KB_DIMS(OUT), KB_ZEROS),
                     KB_STATE("bn.running_var", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_STATE("bn.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * (BATCH + OUT))),
           .flops = 2.0 * BATCH * OUT * IN + 15.0 * BATCH * OUT, /* GEMM; bias, the norm (~8), mul, softmax (5) */
           .flags = KB_PROB_CENTERED)
