/*
 * level1/020_leaky_relu -- KernelBench L1/20: torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope) on x (4096, 393216) fp32 (6 GiB).
 *
 * Eager PyTorch: one vectorised TensorIterator kernel, x > 0 ? x : x * 0.01f in float (ActivationLeakyReluKernel.cu).
 * Napkin math: 6.44 GB read + 6.44 GB written = 12.9 GB; ~3.0 ms at ~4.3 TB/s; eager takes
 * 3.07 ms on the H200 (reference/pytorch-eager-h200.csv, fp32 warm median). The math is a few
 * FP32 instructions per element, far under the bandwidth bound.
 * The inputs are U[0,1), so LeakyReLU is the identity on the standard data (D4 catches it).
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_leaky_relu(r, kb_arg(r, "y"), kb_arg(r, "x"), 0.01);
}

KB_PROBLEM(.title = "LeakyReLU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 1.0 * BATCH * DIM)
