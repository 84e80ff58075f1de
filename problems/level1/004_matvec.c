/*
 * level1/004_matvec -- KernelBench L1/4: C = torch.matmul(A, B), A (2048, 1048576), B (1048576, 1)
 * -> C (2048, 1), fp32. A is 8 GiB and has 2^31 elements: 64-bit offsets everywhere.
 *
 * Eager PyTorch: B is 2-D, so torch.matmul is at::mm (not mv, which only a 1-D B gets), the same
 * addmm_out_cuda_impl -> cublasSgemm('n', 'n', m = 1, n = 2048, k = 1048576, lda = 1,
 * ldb = 1048576, ldc = 1) as any GEMM; cuBLAS itself picks a GEMV-like kernel for m = 1. All the
 * 32-bit arguments fit (the largest is k = ldb = 2^20); only the pointer offsets exceed 2^31, and
 * those are cuBLAS's own 64-bit arithmetic. kb_matmul makes the same call.
 * Napkin math: 4.3e9 FLOP is nothing; the 8.6 GB read of A is everything: ~2.0 ms at ~4.3 TB/s.
 * Eager: 2.32 ms (3.7 TB/s) with or without TF32 (tensor cores cannot help a bandwidth-bound
 * product).
 */
#include "kb/ref.h"

enum { M = 2048, K = 1048576 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Matrix vector multiplication",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(M, K), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(K, 1), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(M, 1), .terms = K)),
           .flops = 2.0 * M * K)
