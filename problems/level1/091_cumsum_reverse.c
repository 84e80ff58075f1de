/*
 * level1/091_cumsum_reverse -- KernelBench L1/91: torch.cumsum(x.flip(1), dim=1).flip(1) on
 * x (32768, 32768) fp32.
 *
 * Eager PyTorch: three kernels -- flip (a TensorIterator copy with a negative stride) into a
 * temporary, the innermost-dim scan (block (16, 32), as L1/89) into a second temporary, which
 * frees the first (the flip's result is only an argument), and a second flip into y; peak
 * x + 2 temporaries = 12.9 GB, as eager's (13.19 GB with its 0.3 GB baseline).
 * Napkin math: each flip moves 8.6 GB (~2.0 ms), the scan 4.55 ms: ~8.6 ms; eager takes 10.39 ms
 * on the H200 (reference/pytorch-eager-h200.csv): the flips run below copy bandwidth.
 */
#include "kb/ref.h"

enum { BATCH = 32768, N = 32768 };

static void reference(kb_ref *r)
{
    kb_tensor flipped = kb_flip(r, KB_NEW, kb_arg(r, "x"), 1);
    kb_tensor scanned = kb_cumsum(r, KB_NEW, flipped, 1);
    kb_drop(r, flipped); /* the argument's last reference goes when cumsum returns */
    kb_flip(r, kb_arg(r, "y"), scanned, 1);
}

KB_PROBLEM(.title = "cumsum reverse",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, N), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, N), .terms = N)),
           .flops = 1.0 * BATCH * N) /* one add per element; the flips are data movement */
