/*
 * level1/095_cross_entropy -- KernelBench L1/95: F.cross_entropy(predictions, targets) with
 * predictions (32768, 4096) fp32 U[0,1) and int64 class targets in [0, 4096) -> scalar mean loss.
 *
 * Eager PyTorch: log_softmax (cunn_SoftMaxForwardReg<4>, one 1024-thread block per row) into a
 * materialised (32768, 4096) tensor, then nll_loss_forward_reduce_cuda_kernel_2d, a single block
 * of 1024 threads gathering -logp[i, t_i] and averaging in float. The targets stay int64 (upstream
 * KernelBench cast them to float and broke this problem, issue #151).
 * Napkin math: 0.54 GB read + 0.54 GB of log-probabilities written (~0.26 ms at ~4.2 TB/s), plus
 * the latency-bound single-block gather; eager takes 0.44 ms on the H200.
 */
#include "kb/ops.h"

static const kb_tensor_spec inputs[] = {
    {"predictions", KB_F32, KB_SHAPE(32768, 4096), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
    {"targets", KB_I64, KB_SHAPE(32768), KB_ROLE_INPUT, {KB_GEN_RANDINT, 0, 4096}, 0},
};
static const kb_tensor_spec outputs[] = {
    /* terms: each row's logsumexp sums C = 4096 terms and the mean sums N = 32768 row losses;
     * their rounding errors add, ~2^-24 (sqrt(C) + sqrt(N)) relative, so terms = C + N (not
     * N * C, which would let a mean over a subset of the rows pass the strict bound). */
    {"loss", KB_F32, KB_SCALAR, KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 32768 + 4096},
};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    const kb_input *p = &a->inputs[0];
    return kb_op_cross_entropy(ctx, (const float *)p->data, (const int64_t *)a->inputs[1].data,
                               (float *)a->outputs[0].data, p->shape[0], p->shape[1]);
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/095_cross_entropy",
    "CrossEntropyLoss",
    2, inputs,
    1, outputs,
    7.0 * 32768 * 4096, /* log_softmax (max, subtract, exp, sum, log, subtract) + the gathered mean */
    4.0 * 32768 * 4096 + 8.0 * 32768 + 4.0, /* read predictions and targets, write the loss */
    0,
    reference,
};
