/*
 * kb/ref/scan.h -- the tensor-level scan ops (ops/scan.cu): see kb/ref.h for the conventions.
 *
 * torch.cumsum / torch.cumprod(x, dim) on CUDA (ATen/native/cuda/ScanUtils.cuh, scan_dim): a
 * non-contiguous x is first made contiguous (expect_contiguous: a counted copy, as eager does),
 * then one kernel: tensor_kernel_scan_innermost_dim when dim is the last one, the sequential
 * tensor_kernel_scan_outer_dim otherwise, CUB's inclusive scan when x has one non-trivial
 * dimension. float accumulation, the result is contiguous float32 of x's shape.
 */
#ifndef KB_REF_SCAN_H
#define KB_REF_SCAN_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

kb_tensor kb_cumsum(kb_ref *r, kb_tensor out, kb_tensor x, int dim);
kb_tensor kb_cumprod(kb_ref *r, kb_tensor out, kb_tensor x, int dim);

/* Raw entry point: y = scan of contiguous x viewed as [outer, len, inner] along len
 * (y may not alias x). */
typedef enum kb_scan_op { KB_SCAN_SUM = 0, KB_SCAN_PROD = 1 } kb_scan_op;
int kb_op_scan(kb_ctx *ctx, kb_scan_op op, const float *x, float *y, int64_t outer, int64_t len, int64_t inner);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
