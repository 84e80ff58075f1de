/*
 * level1/095_cross_entropy -- KernelBench L1/95: F.cross_entropy(predictions, targets) with
 * predictions (32768, 4096) fp32 U[0,1) and int64 class targets in [0, 4096) -> scalar mean loss.
 *
 * Eager PyTorch: log_softmax (cunn_SoftMaxForwardReg<4>, one 1024-thread block per row) into a
 * materialised (32768, 4096) tensor (eager's peak: inputs + 512 MiB), then
 * nll_loss_forward_reduce_cuda_kernel_2d, a single block of 1024 threads gathering
 * -logp[i, t_i] and averaging in float (kb_cross_entropy -> kb_op_cross_entropy, ops/loss.cu).
 * The targets stay int64 (upstream KernelBench cast them to float and broke this problem,
 * https://github.com/ScalingIntelligence/KernelBench/issues/151).
 * Napkin math: 0.54 GB read + 0.54 GB of log-probabilities written (~0.26 ms at ~4.2 TB/s), plus
 * the latency-bound single-block gather; eager takes 0.44 ms on the H200.
 */
#include "kb/ref.h"

enum { BATCH = 32768, CLASSES = 4096 };

static void reference(kb_ref *r)
{
    kb_cross_entropy(r, kb_arg(r, "loss"), kb_arg(r, "predictions"), kb_arg(r, "targets"));
}

KB_PROBLEM(.title = "CrossEntropyLoss",
           KB_INPUTS(KB_INPUT("predictions", KB_F32, KB_DIMS(BATCH, CLASSES), KB_RAND),
                     KB_INPUT("targets", KB_I64, KB_DIMS(BATCH), KB_RANDINT(0, CLASSES))),
           /* terms: each row's logsumexp sums C = 4096 terms and the mean sums N = 32768 row
            * losses; their rounding errors add, ~2^-24 (sqrt(C) + sqrt(N)) relative, so
            * terms = C + N (not N * C, which would let a mean over a subset of the rows pass
            * the strict bound). */
           KB_OUTPUTS(KB_OUTPUT("loss", KB_F32, KB_SCALAR_DIMS, .terms = BATCH + CLASSES)),
           /* log_softmax (max, subtract, exp, sum, log, subtract) + the gathered mean */
           .flops = 7.0 * BATCH * CLASSES,
           .flags = KB_PROB_CENTERED)
