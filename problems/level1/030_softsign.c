/*
 * level1/030_softsign -- KernelBench L1/30: x / (1 + torch.abs(x)), x (4096, 393216) fp32.
 *
 * Eager PyTorch: three kernels. torch.abs(x) -> t1; 1 + t1 (add with a CPU scalar) -> t2, after
 * which t1 is freed; x / t2 (true division, tensor / tensor) -> y, after which t2 is freed. Peak:
 * x, t1, t2 during the add (and x, t2, y during the divide) = 19.6 GB, eager's measured peak.
 * Napkin math: 12.9 + 12.9 + 19.3 = 45.1 GB; ~10.5 ms at ~4.3 TB/s; eager takes 10.62 ms on
 * the H200 (fp32 warm median).
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor a = kb_abs(r, KB_NEW, x);
    kb_tensor d = kb_adds(r, KB_NEW, a, 1.0);
    kb_drop(r, a);
    kb_div(r, kb_arg(r, "y"), x, d);
    kb_drop(r, d);
}

KB_PROBLEM(.title = "Softsign",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 3.0 * BATCH * DIM)
