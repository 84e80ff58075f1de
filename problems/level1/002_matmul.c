/*
 * level1/002_matmul -- KernelBench L1/2: C = torch.matmul(A, B), A (2048, 8192), B (8192, 4096)
 * -> C (2048, 4096), fp32.
 *
 * Eager PyTorch: torch.matmul of two 2-D tensors is at::mm -> addmm_out_cuda_impl ->
 * at::cuda::blas::gemm<float> -> cublasSgemm (column-major C^T = B^T A^T: transa = transb = 'n'),
 * math mode from torch.backends.cuda.matmul.allow_tf32; kb_matmul makes the same call.
 * Napkin math: 2 * 2048 * 4096 * 8192 = 1.37e11 FLOP: ~2.7 ms at the ~51 TFLOP/s cuBLAS reaches in
 * FP32 (eager: 2.84 ms), ~0.38 ms with TF32 (eager: 0.382 ms). 224 MiB of operands: compute-bound.
 */
#include "kb/ref.h"

enum { M = 2048, K = 8192, N = 4096 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Standard matrix multiplication",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(M, K), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(K, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(M, N), .terms = K)),
           .flops = 2.0 * M * N * K)
