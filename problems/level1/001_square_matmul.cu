/*
 * level1/001_square_matmul -- KernelBench L1/1: C = A @ B, A and B (4096, 4096) fp32.
 *
 * Eager PyTorch: torch.matmul on 2-D operands is at::mm -> at::cuda::blas::gemm<float> ->
 * cublasSgemm (no transposes in column-major terms: C^T = B^T A^T), math mode from
 * torch.backends.cuda.matmul.allow_tf32.
 * Napkin math: 2 * 4096^3 = 1.37e11 FLOP. FP32 without tensor cores (H200 peak ~67 TFLOP/s,
 * cuBLAS reaches ~50) gives ~2.7 ms (PyTorch: 2.73 ms); TF32 tensor cores (peak ~495 TFLOP/s,
 * ~385 reached) ~0.36 ms (PyTorch: 0.356 ms). 192 MiB of operands move in ~0.05 ms: compute-bound
 * either way.
 */
#include "kb/ops.h"

#define N 4096

static const kb_tensor_spec inputs[] = {
    {"A", KB_F32, KB_SHAPE(N, N), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
    {"B", KB_F32, KB_SHAPE(N, N), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
};
static const kb_tensor_spec outputs[] = {
    {"C", KB_F32, KB_SHAPE(N, N), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, N},
};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    return kb_op_matmul(ctx, (const float *)a->inputs[0].data, (const float *)a->inputs[1].data,
                        (float *)a->outputs[0].data, N, N, N, 0, 0);
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/001_square_matmul",
    "Square matrix multiplication",
    2, inputs,
    1, outputs,
    2.0 * N * N * N,     /* one multiply-add per (i, j, k) */
    3.0 * N * N * 4,     /* read A and B, write C */
    0,
    reference,
};
