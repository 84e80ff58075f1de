/*
 * level1/003_batched_matmul -- KernelBench L1/3: C = torch.bmm(A, B),
 * A (128, 512, 1024), B (128, 1024, 2048) -> C (128, 512, 2048), fp32.
 *
 * Eager PyTorch: bmm -> baddbmm_out_cuda_impl -> at::cuda::blas::bgemm<float> ->
 * cublasSgemmStridedBatched (column-major: m = 2048, n = 512, k = 1024, strides K*N, M*K, M*N),
 * math mode from torch.backends.cuda.matmul.allow_tf32; kb_bmm makes the same call.
 * Napkin math: 2 * 128 * 512 * 2048 * 1024 = 2.75e11 FLOP: ~5.4 ms at the ~51 TFLOP/s cuBLAS
 * reaches without tensor cores (eager: 5.41 ms), ~0.85 ms with TF32 (0.846 ms, ~325 TFLOP/s).
 * 1.75 GiB of operands move in ~0.45 ms, so even TF32 is compute-bound.
 */
#include "kb/ref.h"

enum { BATCH = 128, M = 512, K = 1024, N = 2048 };

static void reference(kb_ref *r)
{
    kb_bmm(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Batched matrix multiplication",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(BATCH, M, K), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(BATCH, K, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(BATCH, M, N), .terms = K)),
           .flops = 2.0 * BATCH * M * N * K)
