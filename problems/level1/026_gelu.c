/*
 * level1/026_gelu -- KernelBench L1/26: F.gelu(x) (exact, erf form) on x (4096, 393216) fp32.
 *
 * Eager PyTorch: one vectorised TensorIterator kernel (GeluCUDAKernelImpl, approximate='none'),
 * computing x * 0.5 * (1 + erf(x * M_SQRT1_2)) in float.
 * Napkin math: 6.44 GB read + 6.44 GB written = 12.9 GB; at ~4.2 TB/s that is ~3.1 ms, what eager
 * PyTorch takes on the H200 (3.17 ms median). erff costs ~20 instructions per element, well under
 * the bandwidth bound.
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_gelu(r, kb_arg(r, "y"), kb_arg(r, "x"));
}

KB_PROBLEM(.title = "GELU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 1.0 * BATCH * DIM) /* one GELU per element (the roofline's minimal count) */
