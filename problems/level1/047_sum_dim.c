/*
 * level1/047_sum_dim -- KernelBench L1/47: torch.sum(x, dim=1, keepdim=True) on x (128, 4096, 4095)
 * fp32 -> (128, 1, 4095).
 *
 * Eager PyTorch: gpu_reduce_kernel (Reduce.cuh), a column reduction -- block (32, 16): 32
 * consecutive output columns per block (4095 is odd: no output vectorisation), 16 warps splitting
 * the 4096 summed rows, float accumulation, a shared-memory tree over the warps (ops/reduce.cu
 * derives the same config). Napkin math: 8.59 GB read once, 2 MB written; at ~4.15 TB/s that is
 * ~2.07 ms, what eager takes on the H200 (2.07 ms, reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, DIM1 = 4096, DIM2 = 4095 };

static void reference(kb_ref *r)
{
    kb_sum(r, kb_arg(r, "y"), kb_arg(r, "x"), 1, 1);
}

KB_PROBLEM(.title = "Sum reduction over a dimension",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM1, DIM2), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1, DIM2), .terms = DIM1)),
           .flops = 1.0 * BATCH * DIM1 * DIM2) /* one add per input element */
