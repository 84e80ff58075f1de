/*
 * kb/ref/reduce.h -- reductions and arg-reductions (ops/reduce.cu), as ATen's reduce_kernel runs
 * them: the same accumulation type (float for float sums, as PyTorch), the same split between
 * threads, warps and blocks for the shape (ATen/native/cuda/Reduce.cuh's ReduceConfig), so the
 * rounding and the speed are eager's.
 *
 * `dim` is Python-style (negative from the end); KB_ALL_DIMS reduces every dimension (x.sum(),
 * torch.mean(x)) to a 0-d result. keepdim as in PyTorch. Arg-reductions return int64 indices of
 * the first extreme (ties -> lowest index; NaN counts as the extreme, as in PyTorch).
 */
#ifndef KB_REF_REDUCE_H
#define KB_REF_REDUCE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define KB_ALL_DIMS (-1000)

kb_tensor kb_sum(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim);
kb_tensor kb_mean(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim);
kb_tensor kb_prod(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim);
kb_tensor kb_amax(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim);
kb_tensor kb_amin(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim);
/* torch.norm(x, p, dim, keepdim) for p = 1, 2 (and 'fro' = 2 over KB_ALL_DIMS) */
kb_tensor kb_norm(kb_ref *r, kb_tensor out, kb_tensor x, double p, int dim, int keepdim);
/* torch.max(x, dim) / torch.min(x, dim): values and int64 indices in one pass (both computed,
 * as eager does even when only [0] is used); `indices` may be KB_NEW. Returns the values. */
kb_tensor kb_max_dim(kb_ref *r, kb_tensor values, kb_tensor indices, kb_tensor x, int dim, int keepdim);
kb_tensor kb_min_dim(kb_ref *r, kb_tensor values, kb_tensor indices, kb_tensor x, int dim, int keepdim);
kb_tensor kb_argmax(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim);
kb_tensor kb_argmin(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim);

/* Reductions over several dimensions at once (x.sum(dim=(2, 3)), x.mean([2, 3, 4], keepdim=True),
 * torch.amax(x, (1, 2))): one reduction kernel over the dims given (any order, negative allowed;
 * ndims == 0 reduces every dim, as dim=[]), as eager's TensorIterator reduces them together: the
 * reduced dims coalesce into one reduced length, so x is reduced as [outer, len, inner] exactly as
 * the one-dim ops above. x must be contiguous, and the reduced dims of size > 1 must be neighbours
 * (no kept dim of size > 1 between them): otherwise TensorIterator keeps two reduced dims, which
 * is not mirrored, and the op fails with a message. */
kb_tensor kb_sum_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim);
kb_tensor kb_mean_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim);
kb_tensor kb_amax_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim);
/* torch.logsumexp(x, dims, keepdim): eager's composite (ReduceOps.cpp logsumexp_out_impl), nine
 * launches with eager's temporaries: maxes = amax(x, dims, keepdim=True); on its (squeezed) view
 * masked_fill_(maxes.abs() == inf, 0) (abs, eq, masked_fill); sum((x - maxes).exp_(), dims,
 * keepdim) (sub, exp, sum); .log_().add_(maxes) (log, add). */
kb_tensor kb_logsumexp(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim);

/* Raw (pointer-level) entry point of the family, kb/ops.h conventions: x contiguous fp32 viewed
 * as [outer, len, inner], reduced over len into [outer * inner] outputs. Value reductions write
 * `values` (indices must be NULL); KB_RED_MAX_IDX / KB_RED_MIN_IDX write the float values and/or
 * the int64 indices (either may be NULL: argmax / argmin pass values = NULL). A full reduction is
 * outer = inner = 1, len = numel. */
typedef enum kb_reduce_op {
    KB_RED_SUM = 0,
    KB_RED_MEAN = 1,
    KB_RED_PROD = 2,
    KB_RED_AMAX = 3,   /* NaN propagates */
    KB_RED_AMIN = 4,
    KB_RED_NORM1 = 5,  /* sum |x| */
    KB_RED_NORM2 = 6,  /* sqrt(sum x*x) */
    KB_RED_MAX_IDX = 7, /* torch.max(x, dim) / argmax: first index of the max, NaN wins */
    KB_RED_MIN_IDX = 8
} kb_reduce_op;
int kb_op_reduce(kb_ctx *ctx, kb_reduce_op op, const float *x, float *values, int64_t *indices, int64_t outer,
                 int64_t len, int64_t inner);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
