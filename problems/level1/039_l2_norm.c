/*
 * level1/039_l2_norm -- KernelBench L1/39: x / torch.norm(x, p=2, dim=1, keepdim=True) on
 * x (32768, 65535) fp32 (8 GiB).
 *
 * Eager PyTorch: torch.norm(p=2, dim=1) is linalg.vector_norm: one reduce_kernel (NormTwoOps:
 * sum of squares, sqrt at the end) over rows of 65535, a (32768, 1) result; then the broadcast
 * division x / norm writing the 8 GiB output. No full-size temporary.
 * Napkin math: 8.6 GB read for the norm + 17.2 GB for the division = 25.8 GB, ~6 ms at
 * ~4.3 TB/s; eager takes 8.38 ms on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 32768, DIM = 65535 };

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor norm = kb_norm(r, KB_NEW, x, 2.0, 1, 1); /* torch.norm(x, p=2, dim=1, keepdim=True) */
    kb_div(r, kb_arg(r, "y"), x, norm);                /* x / norm */
}

KB_PROBLEM(.title = "L2Norm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM), .terms = DIM)), /* the row norm */
           .flops = 3.0 * BATCH * DIM) /* square, sum, divide per element */
