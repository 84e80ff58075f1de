/*
 * level1/048_mean_dim -- KernelBench L1/48: torch.mean(x, dim=1) on x (128, 4096, 4095) fp32 -> (128, 4095).
 *
 * Eager PyTorch: mean_kernel_cuda -> gpu_reduce_kernel with MeanOps (ReduceMomentKernel.cu):
 * the float sum of the 4096 values, then * factor, factor = float(524160) / float(2147020800)
 * (= 1/4096 exactly); the same column-reduction geometry as L1/47, block (32, 16).
 * Napkin math: 8.59 GB read once, 2 MB written: ~2.07 ms at ~4.15 TB/s; eager 2.09 ms on the
 * H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, DIM1 = 4096, DIM2 = 4095 };

static void reference(kb_ref *r)
{
    kb_mean(r, kb_arg(r, "y"), kb_arg(r, "x"), 1, 0);
}

KB_PROBLEM(.title = "Mean reduction over a dimension",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM1, DIM2), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM2), .terms = DIM1)),
           .flops = 1.0 * BATCH * DIM1 * DIM2) /* one add per input element (+ one multiply per output) */
