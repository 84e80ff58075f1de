/*
 * level1/052_argmin_dim -- KernelBench L1/52: torch.argmin(x, dim=1) on x (128, 4096, 4095) fp32 -> (128, 4095)
 * int64.
 *
 * Eager PyTorch: argmin_kernel_cuda -> gpu_reduce_kernel with ArgMinOps (ReduceArgMinKernel.cu):
 * the (float, int64) accumulator of MinOps (LessOrNan: NaN wins, ties to the lower index),
 * only the index written. Same column geometry as L1/47, block (32, 16).
 * Napkin math: 8.59 GB read, 4 MB written: 2.07 ms if bandwidth-bound; eager 2.73 ms on the H200
 * (reference/pytorch-eager-h200.csv). Exact: an index, no rounding (ties among U[0,1) floats are rare
 * but real in 4096 values of 2^24 levels: the first one wins, as in PyTorch).
 */
#include "kb/ref.h"

enum { BATCH = 128, DIM1 = 4096, DIM2 = 4095 };

static void reference(kb_ref *r)
{
    kb_argmin(r, kb_arg(r, "y"), kb_arg(r, "x"), 1, 0);
}

KB_PROBLEM(.title = "Argmin over a dimension",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM1, DIM2), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_I64, KB_DIMS(BATCH, DIM2), .terms = DIM1)),
           .flops = 1.0 * BATCH * DIM1 * DIM2) /* one comparison per input element */
