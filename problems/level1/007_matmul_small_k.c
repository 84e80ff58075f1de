/*
 * level1/007_matmul_small_k -- KernelBench L1/7: C = torch.matmul(A, B), A (32768, 64),
 * B (64, 32768) -> C (32768, 32768), fp32 (C is 4 GiB).
 *
 * Eager PyTorch: torch.matmul of two 2-D tensors is at::mm -> addmm_out_cuda_impl ->
 * at::cuda::blas::gemm<float> -> cublasSgemm (column-major C^T = B^T A^T: transa = transb = 'n'),
 * math mode from torch.backends.cuda.matmul.allow_tf32; kb_matmul makes the same call.
 * Napkin math: 2 * 32768^2 * 64 = 1.37e11 FLOP: ~2.7 ms at ~51 TFLOP/s FP32; writing the 4.3 GB of
 * C takes ~1.0 ms on its own, and with K = 64 there is little reuse to hide it behind: eager takes
 * 4.15 ms in FP32 and 1.46 ms with TF32 (close to the store bound).
 */
#include "kb/ref.h"

enum { M = 32768, N = 32768, K = 64 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Matmul with small K dimension",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(M, K), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(K, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(M, N), .terms = K)),
           .flops = 2.0 * M * N * K)
