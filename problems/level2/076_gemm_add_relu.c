/*
 * level2/076_gemm_add_relu -- KernelBench L2/76: x = relu(gemm(x) + bias), gemm =
 * nn.Linear(8192, 8192, bias=False), bias (8192,) ~ randn, on x (1024, 8192) fp32.
 *
 * Eager PyTorch: nn.Linear without a bias is at::matmul(x, weight.t()) -> at::mm -> cublasSgemm
 * with the transposed view as a flag (kb_linear with no bias); then the broadcast add and relu.
 * Each temporary is freed once the next op has read it.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the 268 MB weight is read in ~0.06 ms, each pass over the 33.5 MB result takes ~0.016 ms:
 * compute-bound. Eager: 2.78 ms on an H100 (reference/kernelbench-problems.csv); 2.77 ms FP32,
 * 0.40 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), KB_NEW /* bias=False */);
    kb_tensor a = kb_add(r, KB_NEW, g, kb_arg(r, "bias"));
    kb_drop(r, g);
    kb_relu(r, kb_arg(r, "y"), a);
}

KB_PROBLEM(.title = "Gemm Add ReLU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(OUT), KB_RANDN),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 2.0 * BATCH * OUT) /* GEMM; add, relu */
