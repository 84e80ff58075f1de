/*
 * level1/089_cumsum -- KernelBench L1/89: torch.cumsum(x, dim=1) on x (32768, 32768) fp32.
 *
 * Eager PyTorch: cumsum_cuda_kernel -> scan_dim -> tensor_kernel_scan_innermost_dim
 * (ScanUtils.cuh): rows and row length are both 2^15, so num_threads_x = 2^(9/2) = 16, block
 * (16, 32), 1024 blocks; each row walks its 32768 values in 1024 chunks of 32 (shared memory,
 * running total folded into the chunk's first element, 5-step Sklansky scan). ops/scan.cu mirrors
 * it, the same association order, so the same rounding.
 * Napkin math: 4.29 GB read + 4.29 GB written = 8.6 GB, 2.0 ms at ~4.3 TB/s if it streamed; the
 * kernel is latency-bound (5 barriers per 128-byte chunk, a serial running total): eager takes
 * 4.55 ms on the H200 (reference/pytorch-eager-h200.csv). Float accumulation over up to 32768 terms.
 */
#include "kb/ref.h"

enum { BATCH = 32768, N = 32768 };

static void reference(kb_ref *r)
{
    kb_cumsum(r, kb_arg(r, "y"), kb_arg(r, "x"), 1);
}

KB_PROBLEM(.title = "cumsum",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, N), .terms = N)),
           .flops = 1.0 * BATCH * N) /* one add per element (a sequential scan's minimum) */
