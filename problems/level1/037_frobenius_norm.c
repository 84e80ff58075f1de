/*
 * level1/037_frobenius_norm -- KernelBench L1/37: x / torch.norm(x, p='fro') on
 * x (112, 64, 512, 512) fp32 (7 GiB).
 *
 * Eager PyTorch: torch.norm(p='fro', dim=None) is linalg.vector_norm(x, 2): one reduce_kernel
 * over all 1.88e9 elements (a grid-wide reduction: per-block partials, then the last block
 * combines them) to a 0-d tensor; then x / norm, a TensorIterator division with a 0-d CUDA
 * tensor broadcast (not a CPU scalar), writing the 7 GiB output.
 * Napkin math: 7.5 GB read for the norm + 15 GB for the division = 22.5 GB, ~5.2 ms at ~4.3 TB/s;
 * eager takes 7.22 ms on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 112, FEATURES = 64, H = 512, W = 512 };

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor norm = kb_norm(r, KB_NEW, x, 2.0, KB_ALL_DIMS, 0); /* torch.norm(x, p='fro') */
    kb_div(r, kb_arg(r, "y"), x, norm);                          /* x / norm */
}

KB_PROBLEM(.title = "FrobeniusNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, FEATURES, H, W), KB_RAND)),
           /* terms: the norm sums every square of x */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, FEATURES, H, W),
                                .terms = (int64_t)BATCH * FEATURES * H * W)),
           .flops = 3.0 * BATCH * FEATURES * H * W) /* square, sum, divide per element */
