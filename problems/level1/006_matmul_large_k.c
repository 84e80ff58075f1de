/*
 * level1/006_matmul_large_k -- KernelBench L1/6: C = torch.matmul(A, B), A (256, 524288),
 * B (524288, 256) -> C (256, 256), fp32.
 *
 * Eager PyTorch: torch.matmul of two 2-D tensors is at::mm -> addmm_out_cuda_impl ->
 * at::cuda::blas::gemm<float> -> cublasSgemm (column-major C^T = B^T A^T: transa = transb = 'n'),
 * math mode from torch.backends.cuda.matmul.allow_tf32; kb_matmul makes the same call.
 * With a 256x256 result cuBLAS splits K across the SMs (split-K through its workspace: the 32 MiB
 * that blas.cu hands the handle, as PyTorch does; cuBLAS's reduction order is fixed, so the result
 * is reproducible).
 * Napkin math: 2 * 256 * 256 * 524288 = 6.9e10 FLOP: ~1.35 ms at ~51 TFLOP/s FP32 (eager: 1.40 ms);
 * the 1.07 GB of operands take ~0.25 ms, which is where TF32 ends up (eager: 0.388 ms).
 */
#include "kb/ref.h"

enum { M = 256, N = 256, K = 524288 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "Matmul with large K dimension",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(M, K), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(K, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(M, N), .terms = K)),
           .flops = 2.0 * M * N * K)
