/*
 * level2/056_matmul_sigmoid_sum -- KernelBench L2/56: x = torch.sum(sigmoid(linear(x)), 1, keepdim=True),
 * linear = nn.Linear(32768, 32768), on x (128, 32768) fp32 -> (128, 1).
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); sigmoid; the row
 * sum (gpu_reduce_kernel, float accumulation). Each temporary is freed once the next op has read it.
 * Accuracy: terms = 32768 * 32768 (the row sum of 32768 sigmoids of 32768-term GEMM outputs).
 * Napkin math: 2 * 128 * 32768 * 32768 = 2.75e11 FLOP: ~5.5 ms of FP32 (~50 TFLOP/s), ~0.8 ms of
 * TF32; the weight is 4 GiB (2^30 floats), read once in ~1.0 ms: in TF32 the problem is
 * weight-bandwidth-bound. Eager: 5.29 ms on an H100 (reference/kernelbench-problems.csv);
 * 5.41 ms FP32, 1.16 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, IN = 32768, HIDDEN = 32768 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear.weight"), kb_arg(r, "linear.bias"));
    kb_tensor s = kb_sigmoid(r, KB_NEW, l);
    kb_drop(r, l);
    kb_sum(r, kb_arg(r, "y"), s, 1, 1);
}

KB_PROBLEM(.title = "Matmul Sigmoid Sum",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("linear.weight", KB_F32, KB_DIMS(HIDDEN, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1), .terms = (int64_t)IN * HIDDEN)),
           .flops = 2.0 * BATCH * HIDDEN * IN + 6.0 * BATCH * HIDDEN) /* GEMM; bias, sigmoid (4), sum */
