/*
 * level1/038_l1_norm -- KernelBench L1/38: x / torch.mean(torch.abs(x), dim=1, keepdim=True) on
 * x (32768, 65535) fp32 (8 GiB). The mean, not the sum, of |x|, as in the version the paper
 * evaluates (reference/kernelbench-problems.csv) and KernelBench's current file.
 *
 * Eager PyTorch: three kernels, one per op:
 *   torch.abs        an 8 GiB temporary (freed once mean returns);
 *   mean(dim=1)      reduce_kernel over contiguous rows of 65535, a (32768, 1) result;
 *   x / mean         the broadcast division, writing the 8 GiB output.
 * Peak: x + |x| (+ the 128 KiB mean), as eager's.
 * Napkin math: abs 17.2 GB, mean 8.6 GB, division 17.2 GB = 43 GB, ~10 ms at ~4.3 TB/s; eager
 * takes 12.43 ms on the H200 (reference/pytorch-eager-h200.csv). 65535 is odd: rows are not 16-byte
 * aligned, so the reduction and the division cannot use float4 for every row.
 */
#include "kb/ref.h"

enum { BATCH = 32768, DIM = 65535 };

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor ax = kb_abs(r, KB_NEW, x);           /* torch.abs(x) */
    kb_tensor m = kb_mean(r, KB_NEW, ax, 1, 1);    /* torch.mean(..., dim=1, keepdim=True) */
    kb_drop(r, ax);
    kb_div(r, kb_arg(r, "y"), x, m);               /* x / ... */
}

KB_PROBLEM(.title = "L1Norm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM), .terms = DIM)), /* the row mean */
           .flops = 3.0 * BATCH * DIM) /* abs, sum, divide per element */
