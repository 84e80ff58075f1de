/*
 * level1/028_hardsigmoid -- KernelBench L1/28: F.hardsigmoid(x) on x (4096, 393216) fp32 (6 GiB).
 *
 * Eager PyTorch: one vectorised TensorIterator kernel, min(max(x + 3, 0), 6) * (1.0f / 6) in float
 * (ActivationHardsigmoidKernel.cu multiplies by one_sixth, it does not divide by 6).
 * Napkin math: 6.44 GB read + 6.44 GB written = 12.9 GB; ~3.0 ms at ~4.3 TB/s; eager takes
 * 3.09 ms on the H200 (reference/pytorch-eager-h200.csv, fp32 warm median). The math is a few
 * FP32 instructions per element, far under the bandwidth bound.
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_hardsigmoid(r, kb_arg(r, "y"), kb_arg(r, "x"));
}

KB_PROBLEM(.title = "HardSigmoid",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 4.0 * BATCH * DIM)
