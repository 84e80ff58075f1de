/*
 * level1/099_triplet_margin_loss -- KernelBench L1/99: nn.TripletMarginLoss(margin=1.0) (p = 2,
 * eps = 1e-6, swap = False, reduction='mean') on anchor, positive, negative (32768, 8192) fp32
 * (1 GiB each; anchor = torch.rand(...) * torch.rand(()), the others U[0,1)) -> 0-d.
 *
 * Eager PyTorch: at::triplet_margin_loss (Loss.cpp, composite) runs at::pairwise_distance
 * (Distance.cpp) twice, each `norm(x1 - x2 + eps, 2, -1)`: a sub kernel and an add-scalar
 * kernel into two 1 GiB temporaries (both alive until the norm returns: the C++ full
 * expression), then the row-wise L2 norm (reduce_kernel with NormTwoOps: float sum of squares,
 * sqrt). Then `clamp_min(margin + d_pos - d_neg, 0)` (add-scalar, sub, clamp_min on 32768
 * floats) and mean(). Peak: inputs + 2 GiB + the distances, as eager's
 * (reference/pytorch-eager-h200.csv). kb_triplet_margin_loss (ops/loss.cu) issues the same kernels.
 * Accuracy: each distance sums 8192 squares (~50 in size) and the loss is their difference
 * plus 1 (~1), averaged over 32768 rows.
 * Napkin math: per distance sub reads 2 GiB and writes 1, add reads 1 and writes 1, norm reads
 * 1: 6 GiB, twice: 12 GiB = 12.9 GB, ~3.0 ms at ~4.3 TB/s; eager takes 3.11 ms on the H200.
 * FLOPs: 6 per element pair (sub, square, add, for both distances; the eps add not counted).
 */
#include "kb/ref.h"

enum { BATCH = 32768, DIM = 8192 };

static void reference(kb_ref *r)
{
    kb_triplet_margin_loss(r, kb_arg(r, "loss"), kb_arg(r, "anchor"), kb_arg(r, "positive"), kb_arg(r, "negative"),
                           1.0 /* margin */, 2.0 /* p */, 1e-6 /* eps */, KB_REDUCTION_MEAN);
}

KB_PROBLEM(.title = "TripletMarginLoss",
           KB_INPUTS(KB_INPUT("anchor", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND_SCALED),
                     KB_INPUT("positive", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND),
                     KB_INPUT("negative", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           /* terms: each distance sums D = 8192 squares and the mean sums N = 32768 row losses;
            * their rounding errors add (as for L1/95), so terms = D + N, not N * D */
           KB_OUTPUTS(KB_OUTPUT("loss", KB_F32, KB_SCALAR_DIMS, .terms = BATCH + DIM)),
           .flops = 6.0 * BATCH * DIM)
