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

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
