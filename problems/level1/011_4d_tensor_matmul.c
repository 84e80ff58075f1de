/*
 * level1/011_4d_tensor_matmul -- KernelBench L1/11: C = torch.einsum("bijl,lk->bijk", A, B),
 * A (8, 256, 512, 256), B (256, 768) -> C (8, 256, 512, 768), fp32 (C is 3 GiB).
 *
 * Eager PyTorch: einsum of two operands is sumproduct_pair (aten/src/ATen/native/Linear.cpp):
 * b, i, j appear only in A ("lo"), k only in B ("ro"), l is summed, nothing is in both; the
 * permutations are the identity, so A.reshape(1, 8*256*512, 256) and B.reshape(1, 256, 768) are
 * views and ONE at::bmm runs, whose batch of 1 baddbmm_out_cuda_impl turns into a plain
 * cublasSgemm('n', 'n', m = 768, n = 1048576, k = 256). The result is viewed and permuted back
 * (identity) without a copy. The reference writes the same views and the same kb_bmm.
 * Napkin math: 2 * 1048576 * 768 * 256 = 4.12e11 FLOP: ~8.1 ms at ~51 TFLOP/s FP32 (eager:
 * 10.2 ms), ~1.2 ms at ~350 TFLOP/s TF32 (eager: 1.72 ms); the 3.2 GB store of C is ~0.75 ms.
 */
#include "kb/ref.h"

enum { B_ = 8, I = 256, J = 512, L = 256, K = 768 };

static void reference(kb_ref *r)
{
    const int64_t rows = (int64_t)B_ * I * J;
    /* sumproduct_pair: left (lro, lo, sum) = (1, b*i*j, l), right (lro, sum, ro) = (1, l, k) */
    kb_tensor left = KB_VIEW(r, kb_arg(r, "A"), 1, rows, L);
    kb_tensor right = KB_VIEW(r, kb_arg(r, "B"), 1, L, K);
    kb_bmm(r, KB_VIEW(r, kb_arg(r, "C"), 1, rows, K), left, right);
}

KB_PROBLEM(.title = "4D tensor matrix multiplication",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(B_, I, J, L), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(L, K), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(B_, I, J, K), .terms = L)),
           .flops = 2.0 * B_ * I * J * K * L)
