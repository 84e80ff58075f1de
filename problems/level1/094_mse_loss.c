/*
 * level1/094_mse_loss -- KernelBench L1/94: torch.mean((predictions - targets) ** 2) with
 * predictions, targets (32768, 32768) fp32 U[0,1) (4 GiB each, 2^30 elements) -> 0-d mean.
 *
 * Eager PyTorch runs three kernels: sub (a vectorised TensorIterator kernel into a 4 GiB
 * temporary), pow_tensor_scalar with exponent 2 (x * x, into a second 4 GiB temporary; the
 * difference is freed when pow returns, as Python drops the intermediate), and mean over all
 * elements (reduce_kernel, float accumulation, then the division by 2^30), after which the
 * squares are freed. Peak: inputs + 8 GiB, as eager's (reference/pytorch-eager-h200.csv).
 * Napkin math: sub reads 8 GiB and writes 4, pow reads 4 and writes 4, mean reads 4: 24 GiB =
 * 25.8 GB, ~6.0 ms at ~4.3 TB/s; eager takes 5.96 ms on the H200. FLOPs: 3 per element.
 */
#include "kb/ref.h"

enum { BATCH = 32768, DIM = 32768 };

static void reference(kb_ref *r)
{
    kb_tensor diff = kb_sub(r, KB_NEW, kb_arg(r, "predictions"), kb_arg(r, "targets"));
    kb_tensor sq = kb_pows(r, KB_NEW, diff, 2.0);
    kb_drop(r, diff);
    kb_mean(r, kb_arg(r, "loss"), sq, KB_ALL_DIMS, 0);
    kb_drop(r, sq);
}

KB_PROBLEM(.title = "MSELoss",
           KB_INPUTS(KB_INPUT("predictions", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND),
                     KB_INPUT("targets", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           /* the mean sums all 2^30 squares */
           KB_OUTPUTS(KB_OUTPUT("loss", KB_F32, KB_SCALAR_DIMS, .terms = (int64_t)BATCH * DIM)),
           .flops = 3.0 * BATCH * DIM) /* subtract, square, add */
