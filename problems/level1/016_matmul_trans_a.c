/*
 * level1/016_matmul_trans_a -- KernelBench L1/16: C = torch.matmul(A.T, B), A (8192, 2048),
 * B (8192, 4096) -> C (2048, 4096), fp32.
 *
 * Eager PyTorch: A.T is a view (no copy); torch.matmul of the 2-D views is at::mm, and
 * addmm_out_cuda_impl reads the strides (prepare_matrix_for_cublas) and passes the transposition
 * to cublasSgemm as
 *   transa = 'n' (B), transb = 't' (A), ldb = 2048.
 * kb_matmul on kb_transpose views makes the same call.
 * Napkin math: 2 * 2048 * 4096 * 8192 = 1.37e11 FLOP: ~2.7 ms at ~51 TFLOP/s FP32 (eager: 2.66 ms);
 * TF32 eager: 0.553 ms (the 't' operand layout is slower for cuBLAS's TF32 kernels).
 */
#include "kb/ref.h"

enum { M = 2048, K = 8192, N = 4096 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_transpose(r, kb_arg(r, "A"), 0, 1), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Matmul with transposed A",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(K, M), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(K, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(M, N), .terms = K)),
           .flops = 2.0 * M * N * K)
