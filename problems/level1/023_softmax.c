/*
 * level1/023_softmax -- KernelBench L1/23: torch.softmax(x, dim=1) on x (4096, 393216) fp32 (6 GiB).
 *
 * Eager PyTorch: host_softmax (ATen/native/cuda/SoftMax.cu) -> one cunn_SoftMaxForward launch, one
 * 1024-thread block per row. A 1.5 MB row fits neither registers nor shared memory, so each block
 * makes three float4 passes over its row in global memory (max, sum of exp, then
 * exp(x - max) / sum written out); ops/softmax.cu keeps that dispatch.
 * Napkin math: 3 x 6.44 GB read + 6.44 GB written = 25.8 GB; at ~4.2 TB/s that is ~6.1 ms, what
 * eager PyTorch takes on the H200 (6.17 ms, reference/pytorch-eager-h200.csv). A single-pass (online)
 * softmax needs only 12.9 GB, hence the headroom a submission can legitimately win.
 */
#include "kb/ref.h"

enum { BATCH = 4096, DIM = 393216 };

static void reference(kb_ref *r)
{
    kb_softmax(r, kb_arg(r, "y"), kb_arg(r, "x"), 1);
}

KB_PROBLEM(.title = "Softmax",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM), .terms = DIM)), /* the row sum */
           .flops = 5.0 * BATCH * DIM, /* max, subtract, exp, sum, divide per element */
           .flags = KB_PROB_CENTERED)
