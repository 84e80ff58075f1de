/*
 * level1/029_softplus -- KernelBench L1/29: F.softplus(x) on x (4096, 393216) fp32 (6 GiB).
 *
 * Eager PyTorch: one vectorised TensorIterator kernel, beta = 1, threshold = 20: x * beta > threshold ? x :
 * log1pf(expf(x * beta)) / beta in float (ActivationSoftplusKernel.cu).
 * Napkin math: 6.44 GB read + 6.44 GB written = 12.9 GB; ~3.0 ms at ~4.3 TB/s; eager takes
 * 3.14 ms on the H200 (reference/pytorch-eager-h200.csv, fp32 warm median). The math is a few
 * FP32 instructions per element, far under the bandwidth bound.
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_softplus(r, kb_arg(r, "y"), kb_arg(r, "x"), 1.0, 20.0);
}

KB_PROBLEM(.title = "Softplus",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 4.0 * BATCH * DIM)
