/*
 * level1/090_cumprod -- KernelBench L1/90: torch.cumprod(x, dim=1) on x (32768, 32768) fp32.
 *
 * Eager PyTorch: cumprod_cuda_kernel -> scan_dim with std::multiplies, init 1 ->
 * tensor_kernel_scan_innermost_dim, block (16, 32), 1024 blocks, chunks of 32 with a 5-step
 * Sklansky scan (ops/scan.cu mirrors it; same association order, same rounding).
 * Napkin math: 8.6 GB moved, 2.0 ms if it streamed; latency-bound like L1/89: eager 4.52 ms on
 * the H200 (reference/pytorch-eager-h200.csv).
 * The data is degenerate: a running product of U[0,1) values underflows to 0 after a few hundred
 * elements (E[log u] = -1, float's range ends near e^-103), so almost all of y is exactly 0 and
 * only the first ~100 columns of each row carry information.
 */
#include "kb/ref.h"

enum { BATCH = 32768, N = 32768 };

static void reference(kb_ref *r)
{
    kb_cumprod(r, kb_arg(r, "y"), kb_arg(r, "x"), 1);
}

KB_PROBLEM(.title = "cumprod",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, N), .terms = N)),
           .flops = 1.0 * BATCH * N, /* one multiply per element */
           .flags = KB_PROB_INPUT_BLIND) /* the paper's prompt hides the inputs (docs/prompts.md) */
