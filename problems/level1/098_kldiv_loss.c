/*
 * level1/098_kldiv_loss -- KernelBench L1/98:
 * F.kl_div(torch.log(predictions), targets, reduction='batchmean') with predictions, targets
 * (16384, 16384) fp32 rows of torch.rand(...).softmax(-1) (1 GiB each) -> 0-d.
 *
 * Eager PyTorch: torch.log (one kernel, a 1 GiB temporary), then F.kl_div with 'batchmean'
 * calls torch.kl_div(..., reduction=Sum) and divides by input.size(0) in Python. at::kl_div
 * (Loss.cpp, composite, log_target=False) is `xlogy(target, target) - target * input` (three
 * kernels: xlogy_kernel_cuda, mul, sub, each into a 1 GiB temporary; the first two die with
 * the C++ full expression) then apply_loss_reduction's sum() (reduce_kernel, float
 * accumulation), and the division is one more (0-d) kernel. Peak: inputs + 4 GiB (log, xlogy,
 * mul, sub alive together), which is eager's (reference/pytorch-eager-h200.csv).
 * Accuracy: each row's sum(t log t) ~ -9.7 and sum(t log p) ~ -9.8 nearly cancel (the KL of
 * two near-uniform rows is ~0.1), so the loss carries the rounding of sums ~100x its size.
 * Napkin math: log 2 GiB, xlogy 2 GiB (PyTorch loads target twice), mul 3 GiB, sub 3 GiB,
 * sum 1 GiB: 11 GiB = 11.8 GB, ~2.75 ms at ~4.3 TB/s; eager takes 2.75 ms on the H200.
 * FLOPs: ~5 per element (log, xlogy's multiply, mul, sub, the sum's add; log counted as one).
 */
#include "kb/ref.h"

enum { BATCH = 16384, DIM = 16384 };

static void reference(kb_ref *r)
{
    kb_tensor logp = kb_log(r, KB_NEW, kb_arg(r, "predictions"));
    kb_tensor reduced = kb_kl_div(r, KB_NEW, logp, kb_arg(r, "targets"), KB_REDUCTION_SUM, 0);
    kb_divs(r, kb_arg(r, "loss"), reduced, (double)BATCH); /* reduced / input.size()[0] */
    kb_drop(r, reduced);
    kb_drop(r, logp);
}

KB_PROBLEM(.title = "KLDivLoss",
           KB_INPUTS(KB_INPUT("predictions", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND_SOFTMAX),
                     KB_INPUT("targets", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND_SOFTMAX)),
           /* the sum runs over all 2^28 elementwise terms */
           KB_OUTPUTS(KB_OUTPUT("loss", KB_F32, KB_SCALAR_DIMS, .terms = (int64_t)BATCH * DIM)),
           .flops = 5.0 * BATCH * DIM)
