/*
 * level1/012_diag_matmul -- KernelBench L1/12: C = torch.diag(A) @ B, A (4096,), B (4096, 4096)
 * fp32.
 *
 * KernelBench's forward is torch.diag(A) @ B, and eager PyTorch runs exactly that: diag of a 1-d
 * tensor is at::diag_embed (a zero fill of the [N, N] matrix, then a strided copy of A onto its
 * diagonal: two launches), then a 4096^3 cuBLAS SGEMM (TF32 when matmul TF32 is on). The H200
 * timings confirm it: 2.94 ms in FP32 (137 GFLOP at ~47 TFLOP/s), 0.38 ms with TF32; a row
 * broadcast A[:, None] * B would take ~0.05 ms. Mathematically C[i, j] = A[i] * B[i, j] (the other
 * 4095 products of each sum are exact zeros): the direct form is what a good submission writes.
 * The diag matrix (64 MiB) is a temporary freed after the GEMM, as eager's refcount frees it.
 * .flops counts the minimal N * M multiplies; .terms the GEMM's K (its TF32 rounding of A and B
 * is what the tolerance must absorb in TF32 mode).
 */
#include "kb/ref.h"

enum { M = 4096, N = 4096 };

static void reference(kb_ref *r)
{
    kb_tensor D = kb_diag(r, KB_NEW, kb_arg(r, "A"));
    kb_matmul(r, kb_arg(r, "C"), D, kb_arg(r, "B"));
    kb_drop(r, D);
}

KB_PROBLEM(.title = "Matmul with diagonal matrices",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(N), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(N, M), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(N, M), .terms = N)),
           .flops = 1.0 * N * M)
