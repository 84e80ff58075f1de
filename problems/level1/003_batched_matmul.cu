/*
 * level1/003_batched_matmul -- KernelBench L1/3: C = torch.bmm(A, B),
 * A (128, 512, 1024), B (128, 1024, 2048) -> C (128, 512, 2048), fp32.
 *
 * Eager PyTorch: bmm -> baddbmm_out_cuda_impl -> at::cuda::blas::bgemm<float> ->
 * cublasSgemmStridedBatched (column-major: m = 2048, n = 512, k = 1024, strides K*N, M*K, M*N),
 * math mode from torch.backends.cuda.matmul.allow_tf32.
 * Napkin math: 2 * 128 * 512 * 2048 * 1024 = 2.75e11 FLOP: ~5.4 ms at the ~51 TFLOP/s cuBLAS
 * reaches without tensor cores (PyTorch: 5.41 ms), ~0.85 ms with TF32 (0.846 ms, ~325 TFLOP/s).
 * 1.75 GiB of operands move in ~0.45 ms, so even TF32 is compute-bound.
 */
#include "kb/ops.h"

#define BATCH 128
#define M 512
#define K 1024
#define N 2048

static const kb_tensor_spec inputs[] = {
    {"A", KB_F32, KB_SHAPE(BATCH, M, K), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
    {"B", KB_F32, KB_SHAPE(BATCH, K, N), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
};
static const kb_tensor_spec outputs[] = {
    {"C", KB_F32, KB_SHAPE(BATCH, M, N), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, K},
};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    return kb_op_matmul_batched(ctx, (const float *)a->inputs[0].data, (const float *)a->inputs[1].data,
                                (float *)a->outputs[0].data, BATCH, M, N, K, 0, 0, (int64_t)M * K,
                                (int64_t)K * N, (int64_t)M * N);
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/003_batched_matmul",
    "Batched matrix multiplication",
    2, inputs,
    1, outputs,
    2.0 * BATCH * M * N * K,                                    /* one multiply-add per (b, i, j, k) */
    4.0 * ((double)BATCH * M * K + (double)BATCH * K * N + (double)BATCH * M * N), /* A, B in; C out */
    0,
    reference,
};
