/*
 * level1/001_square_matmul -- KernelBench L1/1: C = torch.matmul(A, B), A and B (4096, 4096) fp32.
 *
 * Eager PyTorch: torch.matmul of two 2-D tensors is at::mm -> addmm_out_cuda_impl ->
 * at::cuda::blas::gemm<float> -> cublasSgemm (column-major C^T = B^T A^T: transa = transb = 'n'),
 * math mode from torch.backends.cuda.matmul.allow_tf32; kb_matmul makes the same call.
 * Napkin math: 2 * 4096^3 = 1.37e11 FLOP. FP32 without tensor cores (H200 peak ~67 TFLOP/s, cuBLAS
 * reaches ~50) gives ~2.7 ms (eager: 2.73 ms); TF32 tensor cores (~385 TFLOP/s reached) ~0.36 ms
 * (eager: 0.356 ms). 192 MiB of operands move in ~0.05 ms: compute-bound either way.
 */
#include "kb/ref.h"

enum { N = 4096 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Square matrix multiplication",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(N, N), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(N, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(N, N), .terms = N)),
           .flops = 2.0 * N * N * N)
