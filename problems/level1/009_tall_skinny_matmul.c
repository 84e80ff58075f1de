/*
 * level1/009_tall_skinny_matmul -- KernelBench L1/9: C = torch.matmul(A, B), A (32768, 32),
 * B (32, 32768) -> C (32768, 32768), fp32 (C is 4 GiB).
 *
 * Eager PyTorch: torch.matmul of two 2-D tensors is at::mm -> addmm_out_cuda_impl ->
 * at::cuda::blas::gemm<float> -> cublasSgemm (column-major C^T = B^T A^T: transa = transb = 'n'),
 * math mode from torch.backends.cuda.matmul.allow_tf32; kb_matmul makes the same call.
 * Napkin math: 2 * 32768^2 * 32 = 6.9e10 FLOP (~1.35 ms at ~51 TFLOP/s FP32); the 4.3 GB store of
 * C is ~1.0 ms. Eager: 2.61 ms FP32, 1.28 ms TF32 (store-bound).
 */
#include "kb/ref.h"

enum { M = 32768, K = 32 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Tall skinny matrix multiplication",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(M, K), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(K, M), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(M, M), .terms = K)),
           .flops = 2.0 * M * M * K)
