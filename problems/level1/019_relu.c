/*
 * level1/019_relu -- KernelBench L1/19: torch.relu(x), x (4096, 393216) fp32 (6 GiB).
 *
 * Eager PyTorch: one vectorised TensorIterator kernel. Napkin math: 6 GiB read + 6 GiB written =
 * 12.9 GB, ~3.0 ms at ~4.3 TB/s; eager takes 3.06 ms on the H200 (reference/pytorch-eager-h200.csv).
 * The inputs are U[0,1), so ReLU is the identity on the test data: the paper's showcase hack.
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_relu(r, kb_arg(r, "y"), kb_arg(r, "x"));
}

KB_PROBLEM(.title = "ReLU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 1.0 * BATCH * DIM) /* one comparison per element */
