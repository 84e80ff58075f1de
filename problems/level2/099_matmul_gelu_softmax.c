/*
 * level2/099_matmul_gelu_softmax -- KernelBench L2/99: x = softmax(gelu(linear(x)), dim=1),
 * linear = nn.Linear(8192, 8192), on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); GELU (erf);
 * F.softmax over the 8192 features (host_softmax, one block per row: kb_softmax). Each temporary
 * is freed once the next op has read it.
 * Accuracy: terms = 8192 * 8192 (the softmax's row sum of exponentials of 8192-term GEMM outputs).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; GELU and the softmax make ~4 passes over the 33.5 MB result (~0.03 ms). Eager: 2.75 ms on
 * an H100 (reference/kernelbench-problems.csv); 2.79 ms FP32, 0.42 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear.weight"), kb_arg(r, "linear.bias"));
    kb_tensor e = kb_gelu(r, KB_NEW, l);
    kb_drop(r, l);
    kb_softmax(r, kb_arg(r, "y"), e, 1);
}

KB_PROBLEM(.title = "Matmul GELU Softmax",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("linear.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * OUT)),
           .flops = 2.0 * BATCH * OUT * IN + 7.0 * BATCH * OUT, /* GEMM; bias, gelu, softmax (5) */
           .flags = KB_PROB_CENTERED)
