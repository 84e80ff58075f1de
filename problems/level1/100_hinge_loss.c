/*
 * level1/100_hinge_loss -- KernelBench L1/100: torch.mean(torch.clamp(1 - predictions * targets,
 * min=0)) with predictions (32768, 32768) fp32 U[0,1) (4 GiB) and targets (32768,) of -1 / +1
 * (torch.randint(0, 2, (N,)).float() * 2 - 1) -> 0-d.
 *
 * The targets broadcast along the LAST dimension of predictions (targets[j] multiplies column
 * j, not row j): legal only because N == D, and what eager computes. Eager PyTorch runs four
 * kernels: mul (broadcast TensorIterator kernel, 4 GiB temporary), rsub `1 - x` (a second
 * 4 GiB temporary; the product is freed when Python drops it), clamp_min (a third, the rsub
 * result freed after it), mean (reduce_kernel, float accumulation). Peak: inputs + 8 GiB, as
 * eager's (reference/pytorch-eager-h200.csv).
 * Napkin math: mul reads 4 GiB (targets stay in cache) and writes 4, rsub 4 + 4, clamp 4 + 4,
 * mean 4: 28 GiB = 30.1 GB, ~7.0 ms at ~4.3 TB/s; eager takes 8.12 ms on the H200: the
 * broadcast operand is not contiguous, so TensorIterator runs the mul with its unrolled
 * (non-vectorised, offset-calculator) kernel, the likely source of the extra ~1 ms.
 * FLOPs: 4 per element (mul, sub, max, the mean's add).
 */
#include <math.h>

#include "kb/ref.h"

enum { BATCH = 32768, DIM = 32768 };

static void reference(kb_ref *r)
{
    kb_tensor prod = kb_mul(r, KB_NEW, kb_arg(r, "predictions"), kb_arg(r, "targets"));
    kb_tensor margin = kb_rsubs(r, KB_NEW, 1.0, prod);
    kb_drop(r, prod);
    kb_tensor hinge = kb_clamp(r, KB_NEW, margin, 0.0, NAN); /* clamp(min=0): clamp_min */
    kb_drop(r, margin);
    kb_mean(r, kb_arg(r, "loss"), hinge, KB_ALL_DIMS, 0);
    kb_drop(r, hinge);
}

KB_PROBLEM(.title = "HingeLoss",
           KB_INPUTS(KB_INPUT("predictions", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND),
                     KB_INPUT("targets", KB_F32, KB_DIMS(DIM), KB_SIGN)),
           /* the mean sums all 2^30 hinge terms */
           KB_OUTPUTS(KB_OUTPUT("loss", KB_F32, KB_SCALAR_DIMS, .terms = (int64_t)BATCH * DIM)),
           .flops = 4.0 * BATCH * DIM,
           .flags = KB_PROB_INPUT_BLIND) /* the paper's prompt hides the inputs (docs/prompts.md) */
