/*
 * level1/096_huber_loss -- KernelBench L1/96: F.smooth_l1_loss(predictions, targets) (beta = 1,
 * reduction='mean') with predictions, targets (32768, 32768) fp32 U[0,1) (4 GiB each) -> 0-d.
 *
 * Eager PyTorch (at::smooth_l1_loss, a structured kernel, Loss.cpp): the meta function builds a
 * binary TensorIterator on the functional output, allocating it at the full 4 GiB shape before
 * resizing it to 0-d (the storage stays); the impl then fills a second 4 GiB `loss` tensor with
 * smooth_l1_kernel_cuda (z = |a - b|; z < 1 ? 0.5 z^2 / 1 : z - 0.5, in float) and mean_out()s
 * it into the result: two kernels, peak inputs + 8 GiB (as reference/pytorch-eager-h200.csv shows).
 * kb_smooth_l1_loss does the same (ops/loss.cu). On U[0,1) inputs |a - b| < 1 always, so only
 * the quadratic branch is exercised.
 * Napkin math: the loss kernel reads 8 GiB and writes 4, the mean reads 4: 16 GiB = 17.2 GB,
 * ~4.0 ms at ~4.3 TB/s; eager takes 3.93 ms on the H200. FLOPs: ~5 per element (sub, abs,
 * compare, two multiplies / the division by beta, the mean's add).
 */
#include "kb/ref.h"

enum { BATCH = 32768, DIM = 32768 };

static void reference(kb_ref *r)
{
    kb_smooth_l1_loss(r, kb_arg(r, "loss"), kb_arg(r, "predictions"), kb_arg(r, "targets"), KB_REDUCTION_MEAN, 1.0);
}

KB_PROBLEM(.title = "HuberLoss",
           KB_INPUTS(KB_INPUT("predictions", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND),
                     KB_INPUT("targets", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           /* the mean sums all 2^30 elementwise losses */
           KB_OUTPUTS(KB_OUTPUT("loss", KB_F32, KB_SCALAR_DIMS, .terms = (int64_t)BATCH * DIM)),
           .flops = 5.0 * BATCH * DIM)
