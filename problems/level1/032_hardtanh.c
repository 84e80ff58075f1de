/*
 * level1/032_hardtanh -- KernelBench L1/32: F.hardtanh(x, min_val=-1.0, max_val=1.0) on x (4096, 393216) fp32 (6 GiB).
 *
 * Eager PyTorch: one vectorised TensorIterator kernel, at::hardtanh_out is clamp_out: isnan(x) ? x : min(max(x, -1), 1).
 * Napkin math: 6.44 GB read + 6.44 GB written = 12.9 GB; ~3.0 ms at ~4.3 TB/s; eager takes
 * 3.16 ms on the H200 (reference/pytorch-eager-h200.csv, fp32 warm median). The math is a few
 * FP32 instructions per element, far under the bandwidth bound.
 * The inputs are U[0,1), so HardTanh(-1, 1) is the identity on the standard data.
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_hardtanh(r, kb_arg(r, "y"), kb_arg(r, "x"), -1.0, 1.0);
}

KB_PROBLEM(.title = "HardTanh",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 2.0 * BATCH * DIM)
