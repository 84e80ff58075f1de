/*
 * level1/008_matmul_irregular -- KernelBench L1/8: C = torch.matmul(A, B), A (8205, 2949),
 * B (2949, 5921) -> C (8205, 5921), fp32. No dimension is a multiple of 4: cuBLAS takes its
 * unaligned (edge-handling) kernels, as it does under PyTorch.
 *
 * Eager PyTorch: torch.matmul of two 2-D tensors is at::mm -> addmm_out_cuda_impl ->
 * at::cuda::blas::gemm<float> -> cublasSgemm (column-major C^T = B^T A^T: transa = transb = 'n'),
 * math mode from torch.backends.cuda.matmul.allow_tf32; kb_matmul makes the same call.
 * Napkin math: 2 * 8205 * 5921 * 2949 = 2.87e11 FLOP: ~5.6 ms at ~51 TFLOP/s FP32 (eager: 6.49 ms,
 * the odd sizes cost ~15%); TF32 eager: 2.41 ms (the unaligned TF32 kernels are far from peak).
 */
#include "kb/ref.h"

enum { M = 8205, K = 2949, N = 5921 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Matmul with irregular shapes",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(M, K), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(K, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(M, N), .terms = K)),
           .flops = 2.0 * M * N * K)
