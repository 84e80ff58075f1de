/*
 * level1/014_triu_matmul -- KernelBench L1/14: C = torch.triu(torch.matmul(A, B)), A and B
 * (4096, 4096) upper-triangular fp32 (get_inputs applies torch.triu to torch.rand: KB_RAND_TRIU).
 *
 * Eager PyTorch: two ops. torch.matmul -> at::mm -> cublasSgemm of the full matrices (the zeros
 * are multiplied like any value; no trmm), into a 64 MiB temporary; then torch.triu, PyTorch's own
 * triu kernel (elementwise family's kb_triu) into the result; the temporary dies when forward
 * returns (kb_drop: the peak is A, B, the temporary and C, as eager's).
 * Napkin math: 2 * 4096^3 = 1.37e11 FLOP: ~2.7 ms FP32, ~0.36 ms TF32; the triu pass moves 134 MB,
 * ~0.03 ms. Eager: 2.78 / 0.392 ms. (A triangular product needs only ~1/3 of the
 * FLOPs; the count below is the full GEMM the reference runs, as the paper counts it.)
 */
#include "kb/ref.h"

enum { N = 4096 };

static void reference(kb_ref *r)
{
    kb_tensor prod = kb_matmul(r, KB_NEW, kb_arg(r, "A"), kb_arg(r, "B"));
    kb_triu(r, kb_arg(r, "C"), prod, 0);
    kb_drop(r, prod);
}

KB_PROBLEM(.title = "Matmul for upper triangular matrices",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(N, N), KB_RAND_TRIU),
                     KB_INPUT("B", KB_F32, KB_DIMS(N, N), KB_RAND_TRIU)),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(N, N), .terms = N)),
           .flops = 2.0 * N * N * N + 1.0 * N * N)
