/*
 * level1/053_min_dim -- KernelBench L1/53: torch.min(x, dim=1)[0] on x (128, 4096, 4095) fp32 -> (128, 4095).
 *
 * Eager PyTorch: min.dim -> min_kernel_impl -> gpu_reduce_kernel with MinOps (a (float, int64)
 * accumulator, LessOrNan: NaN wins, ties to the lower index), two outputs: the values and a
 * (128, 4095) int64 index tensor (4.2 MB, allocated and written although [0] drops it). Same
 * column geometry as L1/47, block (32, 16), 4 accumulators per thread.
 * Napkin math: 8.59 GB read, 2 MB + 4 MB written: 2.07 ms if bandwidth-bound; the pair compare
 * chain costs more: eager 2.72 ms on the H200 (reference/pytorch-eager-h200.csv). Exact (no rounding).
 */
#include "kb/ref.h"

enum { BATCH = 128, DIM1 = 4096, DIM2 = 4095 };

static void reference(kb_ref *r)
{
    /* torch.min(x, dim) computes values and int64 indices in one pass; [0] drops the indices. */
    kb_min_dim(r, kb_arg(r, "y"), KB_NEW, kb_arg(r, "x"), 1, 0);
}

KB_PROBLEM(.title = "Min reduction over a dimension",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM1, DIM2), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM2), .terms = DIM1)),
           .flops = 1.0 * BATCH * DIM1 * DIM2) /* one comparison per input element */
