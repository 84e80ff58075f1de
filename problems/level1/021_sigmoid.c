/*
 * level1/021_sigmoid -- KernelBench L1/21: torch.sigmoid(x) on x (4096, 393216) fp32 (6 GiB).
 *
 * Eager PyTorch: one vectorised TensorIterator kernel, 1 / (1 + expf(-x)) in float.
 * Napkin math: 6.44 GB read + 6.44 GB written = 12.9 GB; ~3.0 ms at ~4.3 TB/s; eager takes
 * 3.06 ms on the H200 (reference/pytorch-eager-h200.csv, fp32 warm median). The math is a few
 * FP32 instructions per element, far under the bandwidth bound.
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_sigmoid(r, kb_arg(r, "y"), kb_arg(r, "x"));
}

KB_PROBLEM(.title = "Sigmoid",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 4.0 * BATCH * DIM)
