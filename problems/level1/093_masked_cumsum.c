/*
 * level1/093_masked_cumsum -- KernelBench L1/93: torch.cumsum(x * mask, dim=1) on x (32768, 32768)
 * fp32 and mask (32768, 32768) bool (torch.randint(0, 2, x.shape).bool(): Bernoulli(0.5)).
 *
 * Eager PyTorch: x * mask is one TensorIterator mul kernel with type promotion (bool -> float,
 * read 4 + 1 bytes, write 4 per element) into a temporary; then the innermost-dim scan (block
 * (16, 32), 1024 blocks, as L1/89) into y; the product is freed when cumsum returns.
 * Napkin math: mul 4.29 + 1.07 + 4.29 GB = 9.7 GB, ~2.3 ms; scan 4.55 ms: ~6.8 ms; eager takes
 * 8.19 ms on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 32768, N = 32768 };

static void reference(kb_ref *r)
{
    kb_tensor masked = kb_mul(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "mask")); /* float * bool -> float */
    kb_cumsum(r, kb_arg(r, "y"), masked, 1);
    kb_drop(r, masked);
}

KB_PROBLEM(.title = "masked cumsum",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, N), KB_RAND),
                     KB_INPUT("mask", KB_BOOL, KB_DIMS(BATCH, N), KB_BERNOULLI(0.5))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, N), .terms = N)),
           .flops = 2.0 * BATCH * N) /* one multiply and one add per element */
