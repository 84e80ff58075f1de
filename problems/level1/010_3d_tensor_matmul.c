/*
 * level1/010_3d_tensor_matmul -- KernelBench L1/10: C = torch.matmul(A, B), A (16, 1024, 2048),
 * B (2048, 768) -> C (16, 1024, 768), fp32.
 *
 * Eager PyTorch: _matmul_impl's should_fold is true (A is 3-D, B 2-D, A's leading dims are
 * contiguous, nothing requires grad), so A is viewed as (16384, 2048) and ONE at::mm runs:
 * cublasSgemm('n', 'n', m = 768, n = 16384, k = 2048), the result _unsafe_view-ed back to 3-D (no
 * copy, no bmm). kb_matmul folds the same way.
 * Napkin math: 2 * 16384 * 768 * 2048 = 5.15e10 FLOP: ~1.0 ms at ~51 TFLOP/s FP32 (eager: 1.085 ms),
 * ~0.15 ms at ~350 TFLOP/s TF32 (eager: 0.195 ms). 182 MiB of operands: ~0.045 ms.
 */
#include "kb/ref.h"

enum { BATCH = 16, M = 1024, K = 2048, L = 768 };

static void reference(kb_ref *r)
{
    kb_matmul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_arg(r, "B"));
}

KB_PROBLEM(.title = "3D tensor matrix multiplication",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(BATCH, M, K), KB_RAND),
                     KB_INPUT("B", KB_F32, KB_DIMS(K, L), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(BATCH, M, L), .terms = K)),
           .flops = 2.0 * BATCH * M * L * K)
