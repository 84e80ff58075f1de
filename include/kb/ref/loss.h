/*
 * kb/ref/loss.h -- the tensor-level loss ops (ops/loss.cu): see kb/ref.h for the conventions.
 *
 * Each composite below issues the same kernels, in the same order and with the same
 * temporaries, as the ATen function it names (aten/src/ATen/native/Loss.cpp, Distance.cpp);
 * the elementwise and reduction steps are the elementwise / reduce families' ops, the
 * loss-specific elementwise kernels (smooth_l1_kernel_cuda, xlogy_kernel_cuda) are here.
 * `reduction` takes at::Reduction's values. Float tensors are KB_F32.
 */
#ifndef KB_REF_LOSS_H
#define KB_REF_LOSS_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* at::Reduction (aten/src/ATen/core/Reduction.h): None = 0, Mean = 1, Sum = 2. */
typedef enum kb_reduction { KB_REDUCTION_NONE = 0, KB_REDUCTION_MEAN = 1, KB_REDUCTION_SUM = 2 } kb_reduction;

/* F.cross_entropy(logits [N, C], targets [N] int64 class indices, reduction='mean',
 * ignore_index=-100) -> 0-d: log_softmax materialised, then nll_loss's one-block mean
 * (kb_op_cross_entropy). */
kb_tensor kb_cross_entropy(kb_ref *r, kb_tensor out, kb_tensor logits, kb_tensor targets);

/* The elementwise smooth-L1 loss (smooth_l1_kernel_cuda), same-shape contiguous operands:
 * z = |a - b|; z < beta ? 0.5 * z * z / beta : z - 0.5 * beta (in float). beta > 0. */
kb_tensor kb_smooth_l1(kb_ref *r, kb_tensor out, kb_tensor input, kb_tensor target, double beta);

/* F.smooth_l1_loss(input, target, reduction, beta) (at::smooth_l1_loss, a structured kernel):
 * beta == 0 is not supported (ATen runs l1_loss there). For MEAN / SUM: the functional
 * output is first allocated at the input's full shape by the meta function and then resized
 * to 0-d (its storage kept), the loss tensor is a second full-size temporary, then mean / sum
 * into `out`; both full-size buffers are counted here as in eager. */
kb_tensor kb_smooth_l1_loss(kb_ref *r, kb_tensor out, kb_tensor input, kb_tensor target, kb_reduction reduction,
                            double beta);

/* torch.xlogy(x, y) (xlogy_kernel_cuda), same-shape contiguous operands:
 * isnan(y) ? NaN : x == 0 ? 0 : x * log(y). */
kb_tensor kb_xlogy(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor y);

/* torch.kl_div(input, target, reduction, log_target) (at::kl_div, composite):
 *   log_target = 0: xlogy(target, target) - target * input      (xlogy, mul, sub)
 *   log_target = 1: exp(target) * (target - input)               (exp, sub, mul)
 * then apply_loss_reduction (mean() / sum()). F.kl_div's 'batchmean' is SUM here followed by
 * the caller's division by input.size(0), as torch/nn/functional.py does it. */
kb_tensor kb_kl_div(kb_ref *r, kb_tensor out, kb_tensor input, kb_tensor target, kb_reduction reduction,
                    int log_target);

/* F.pairwise_distance(x1, x2, p, eps) (at::pairwise_distance): norm(x1 - x2 + eps, p, -1),
 * same-shape operands, p = 1 or 2 (kb_norm's). The result drops the last dimension. */
kb_tensor kb_pairwise_distance(kb_ref *r, kb_tensor out, kb_tensor x1, kb_tensor x2, double p, double eps);

/* F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap=False, reduction)
 * (at::triplet_margin_loss): d_pos, d_neg = pairwise_distance(...);
 * clamp_min(margin + d_pos - d_neg, 0), then mean / sum. */
kb_tensor kb_triplet_margin_loss(kb_ref *r, kb_tensor out, kb_tensor anchor, kb_tensor positive, kb_tensor negative,
                                 double margin, double p, double eps, kb_reduction reduction);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
