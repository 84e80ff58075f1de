/*
 * level1/024_log_softmax -- KernelBench L1/24: torch.log_softmax(x, dim=1) on x (4096, 393216)
 * fp32 (6 GiB).
 *
 * Eager PyTorch: host_softmax<LogSoftMaxForwardEpilogue> -> the same cunn_SoftMaxForward launch
 * as softmax (one 1024-thread block per row, three float4 passes over the row in global memory:
 * max, sum of exp(x - max), then x - max - log(sum) written out).
 * Napkin math: as L1/23, 3 x 6.44 GB read + 6.44 GB written = 25.8 GB, ~6.1 ms at ~4.2 TB/s;
 * eager takes 6.22 ms on the H200 (reference/pytorch-eager-h200.csv). The epilogue needs no exp, so
 * it is as memory-bound as softmax.
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_log_softmax(r, kb_arg(r, "y"), kb_arg(r, "x"), 1);
}

KB_PROBLEM(.title = "LogSoftmax",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM), .terms = DIM)), /* the row sum */
           .flops = 5.0 * BATCH * DIM, /* max, subtract, exp, sum, subtract per element */
           .flags = KB_PROB_CENTERED)
