/*
 * level1/013_symmetric_matmul -- KernelBench L1/13: C = torch.matmul(A, B), A and B (4096, 4096)
 * symmetric fp32 (get_inputs draws (R + R^T) / 2 of torch.rand: KB_RAND_SYMMETRIC).
 *
 * Eager PyTorch: torch.matmul of two 2-D tensors is at::mm -> addmm_out_cuda_impl ->
 * at::cuda::blas::gemm<float> -> cublasSgemm (column-major C^T = B^T A^T: transa = transb = 'n'),
 * math mode from torch.backends.cuda.matmul.allow_tf32; kb_matmul makes the same call. The symmetry is not used (no symm call).
 * Napkin math: 2 * 4096^3 = 1.37e11 FLOP: ~2.7 ms at ~51 TFLOP/s FP32, ~0.36 ms with TF32. Eager: 2.76 / 0.358 ms.
 */
#include "kb/ref.h"

enum { N = 4096 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Matmul for symmetric matrices",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(N, N), KB_RAND_SYMMETRIC),
                     KB_INPUT("B", KB_F32, KB_DIMS(N, N), KB_RAND_SYMMETRIC)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(N, N), .terms = N)),
           .flops = 2.0 * N * N * N)
