/*
 * level1/031_elu -- KernelBench L1/31: F.elu(x, alpha=self.alpha) on x (4096, 393216) fp32 (6 GiB).
 *
 * Eager PyTorch: one vectorised TensorIterator kernel, alpha = 1 (get_init_inputs), scale = input_scale = 1: x > 0 ? x : expm1f(x) * alpha
 * (ActivationEluKernel.cu).
 * Napkin math: 6.44 GB read + 6.44 GB written = 12.9 GB; ~3.0 ms at ~4.3 TB/s; eager takes
 * 3.43 (3.13 in the TF32 run: the spread is noise) ms on the H200 (reference/pytorch-eager-h200.csv, fp32 warm median). The math is a few
 * FP32 instructions per element, far under the bandwidth bound.
 * The inputs are U[0,1), so ELU is the identity on the standard data (D4 catches it).
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_elu(r, kb_arg(r, "y"), kb_arg(r, "x"), 1.0);
}

KB_PROBLEM(.title = "ELU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 4.0 * BATCH * DIM)
