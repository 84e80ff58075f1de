/*
 * level2/097_matmul_batchnorm_biasadd_divide_swish -- KernelBench L2/97: x = bn(matmul(x));
 * x = (x + bias) / 1.0; return x * sigmoid(x), matmul = nn.Linear(8192, 8192), bn =
 * nn.BatchNorm1d(8192) in training mode (batch statistics, eps 1e-5, momentum 0.1; weight = ones,
 * bias = zeros at initialisation), bias (1,) ~ randn, divide_value = 1.0, on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); BatchNorm1d on a
 * 2-D input is native batch_norm_cuda, not cuDNN (_select_batch_norm_backend wants >= 3 dims):
 * per-feature statistics over the 1024 rows, invstd, the transform (kb_batch_norm_train; the
 * contiguous (N, C) input has stride 1 along C: PyTorch's channels-last kernels); the add of the
 * one-element (1,) bias (a CUDA tensor broadcast by TensorIterator; the csv calls it 0-d); the
 * division by 1.0 (a Python scalar: eager still launches x * (1/1.0), kb_divs); sigmoid and the
 * mul. Each temporary is freed once the next op has read it.
 * Deliberate difference, none touching y: the running statistics are module state (KB_STATE, bound to the submission's buffers); the
 * reference passes none (their update kernel runs as the plain invstd kernel; num_batches_tracked
 * += 1 not reproduced), as L1/33.
 * Accuracy: terms = 8192 * 1024 (batch statistics over 1024 GEMM outputs of 8192 terms).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the norm and four elementwise kernels make ~11 passes over the 33.5 MB result (~0.1 ms).
 * Eager: 2.83 ms on an H100 (reference/kernelbench-problems.csv); 2.86 ms FP32, 0.49 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "matmul.weight"), kb_arg(r, "matmul.bias"));
    kb_tensor n = kb_batch_norm_train(r, KB_NEW, l, kb_arg(r, "bn.weight"), kb_arg(r, "bn.bias"), KB_NEW, KB_NEW,
                                      0.1, 1e-5); /* bn_momentum, bn_eps */
    kb_drop(r, l);
    kb_tensor b = kb_add(r, KB_NEW, n, kb_arg(r, "bias"));
    kb_drop(r, n);
    kb_tensor d = kb_divs(r, KB_NEW, b, 1.0); /* divide_value */
    kb_drop(r, b);
    kb_tensor s = kb_sigmoid(r, KB_NEW, d);
    kb_mul(r, kb_arg(r, "y"), d, s);
}

KB_PROBLEM(.title = "Matmul BatchNorm BiasAdd Divide Swish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(1), KB_RANDN),
                     KB_PARAM("matmul.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("matmul.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN)),
                     KB_PARAM("bn.weight", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_PARAM("bn.bias", KB_F32, KB_DIMS(OUT), KB_ZEROS),
                     KB_STATE("bn.running_mean", KB_F32, KB_DIMS(OUT), KB_ZEROS),
                     KB_STATE("bn.running_var", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_STATE("bn.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * BATCH)),
           /* GEMM; bias, the norm (~8), add, div, sigmoid (4), mul */
           .flops = 2.0 * BATCH * OUT * IN + 16.0 * BATCH * OUT,
           .flags = KB_PROB_CENTERED)
