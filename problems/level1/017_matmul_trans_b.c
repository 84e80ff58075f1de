/*
 * level1/017_matmul_trans_b -- KernelBench L1/17: C = torch.matmul(A, B.T), A (2048, 8192),
 * B (4096, 8192) -> C (2048, 4096), fp32.
 *
 * Eager PyTorch: B.T is a view (no copy); torch.matmul of the 2-D views is at::mm, and
 * addmm_out_cuda_impl reads the strides (prepare_matrix_for_cublas) and passes the transposition
 * to cublasSgemm as
 *   transa = 't' (B, lda = 8192), transb = 'n' (A).
 * kb_matmul on kb_transpose views makes the same call.
 * Napkin math: 2 * 2048 * 4096 * 8192 = 1.37e11 FLOP: ~2.7 ms at ~51 TFLOP/s FP32 (eager: 2.76 ms),
 * ~0.35 ms TF32 (eager: 0.345 ms).
 */
#include "kb/ref.h"

enum { M = 2048, K = 8192, N = 4096 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_transpose(r, kb_arg(r, "B"), 0, 1));
}

KB_PROBLEM(.title = "Matmul with transposed B",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(M, K), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(N, K), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(M, N), .terms = K)),
           .flops = 2.0 * M * N * K)
