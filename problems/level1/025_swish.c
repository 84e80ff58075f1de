/*
 * level1/025_swish -- KernelBench L1/25: x * torch.sigmoid(x), x (4096, 393216) fp32 (6 GiB).
 *
 * Eager PyTorch: two kernels. torch.sigmoid(x) into a 6 GiB temporary (1 / (1 + expf(-x)) in
 * float), then the tensor-tensor multiply x * t into the result; the temporary is freed after
 * the multiply (peak: x, t, y = 19.6 GB, eager's measured peak).
 * Napkin math: sigmoid 12.9 GB + mul 19.3 GB (two reads, one write) = 32.2 GB; ~7.5 ms at
 * ~4.3 TB/s; eager takes 7.55 ms on the H200 (fp32 warm median).
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor s = kb_sigmoid(r, KB_NEW, x);
    kb_mul(r, kb_arg(r, "y"), x, s);
    kb_drop(r, s);
}

KB_PROBLEM(.title = "Swish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 5.0 * BATCH * DIM) /* sigmoid ~4 + one multiply */
