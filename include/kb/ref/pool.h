/*
 * kb/ref/pool.h -- max and average pooling, 1-D to 3-D (ops/pool.cu): see kb/ref.h for the
 * tensor-level conventions, kb/ops.h for the raw ones.
 *
 * Each op runs the kernel eager PyTorch 2.11 runs on CUDA for a contiguous fp32 input, with its
 * launch geometry, index types and summation order (so results are bitwise PyTorch's):
 *   max_pool1d  max_pool1d_with_indices -> max_pool2d_with_indices on the (N, C, 1, L) view
 *               (DilatedMaxPool2d.cu max_pool_forward_nchw, 256 threads/block, one output each);
 *               the int64 indices are computed and stored, then dropped, as eager does.
 *   max_pool2d  max_pool2d_with_indices, the same kernel (kb_op_max_pool2d of kb/ops.h).
 *   max_pool3d  max_pool3d_with_indices_out_cuda (DilatedMaxPool3d.cu): blocks of 32 x 8 over
 *               (out_w, out_h), blockIdx.z over (n, c, out_t) in chunks of 65535; indices too.
 *   avg_pool1d  avg_pool2d on the (N, C, 1, L) view (Pooling.cpp), kernel (1, k).
 *   avg_pool2d  avg_pool2d_out_cuda_frame (AveragePool2d.cu), 1024 threads/block, one output each.
 *   avg_pool3d  avg_pool3d_cuda_update_output (AveragePool3d.cu): blocks of 32 x 8 over
 *               (out_w, out_h), blockIdx.z over (n*c, out_t) in chunks of 65535, the kernel
 *               width a template parameter for kW <= 7.
 * Inputs are (N, C, spatial...) or unbatched (C, spatial...), contiguous fp32; the result has the
 * input's rank. Arguments are PyTorch's: an int for every spatial dimension (the KernelBench
 * form: nn.MaxPool2d(kernel_size=4, ...)), or the _nd forms with one int per dimension
 * (D, H, W order). stride 0 (or a NULL stride array) means stride=None, i.e. the kernel size;
 * divisor_override 0 means None. NaN propagates through max (the last NaN of the window wins,
 * as in PyTorch); average sums in float in window order, then divides by the window size
 * (count_include_pad: clipped to the padded input), the valid count, or divisor_override.
 * PyTorch's argument checks apply: kernel, stride, dilation > 0, 0 <= padding <= kernel / 2,
 * output extent >= 1.
 */
#ifndef KB_REF_POOL_H
#define KB_REF_POOL_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---- tensor level ------------------------------------------------------------------------- */

/* F.max_pool1d / nn.MaxPool1d(kernel_size, stride, padding, dilation, ceil_mode) */
kb_tensor kb_max_pool1d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                        int dilation, int ceil_mode);
/* F.max_pool2d / nn.MaxPool2d, square window */
kb_tensor kb_max_pool2d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                        int dilation, int ceil_mode);
/* F.max_pool3d / nn.MaxPool3d, cubic window */
kb_tensor kb_max_pool3d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                        int dilation, int ceil_mode);

/* F.avg_pool1d / nn.AvgPool1d(kernel_size, stride, padding, ceil_mode, count_include_pad)
 * (PyTorch's 1-D average pool has no divisor_override) */
kb_tensor kb_avg_pool1d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                        int ceil_mode, int count_include_pad);
/* F.avg_pool2d / nn.AvgPool2d(kernel_size, stride, padding, ceil_mode, count_include_pad,
 * divisor_override), square window */
kb_tensor kb_avg_pool2d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                        int ceil_mode, int count_include_pad, int divisor_override);
/* F.avg_pool3d / nn.AvgPool3d, cubic window */
kb_tensor kb_avg_pool3d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                        int ceil_mode, int count_include_pad, int divisor_override);

/* The general forms: nd = 1, 2 or 3 spatial dimensions, one int per dimension in each array
 * (stride may be NULL: = kernel; dilation may be NULL: 1). `indices`: NULL drops them (eager's
 * F.max_poolNd: computed into counted scratch, freed after the call); else *indices receives
 * the int64 indices (nn.MaxPoolNd(return_indices=True)), allocated as a temporary when
 * indices->data is NULL (KB_NEW) or written in place (int64, the output's shape). An index is
 * the flat position of the maximum within its (n, c) input plane/volume, as PyTorch's. */
kb_tensor kb_max_pool_nd(kb_ref *r, kb_tensor out, kb_tensor *indices, kb_tensor x, int nd,
                         const int *kernel_size, const int *stride, const int *padding, const int *dilation,
                         int ceil_mode);
kb_tensor kb_avg_pool_nd(kb_ref *r, kb_tensor out, kb_tensor x, int nd, const int *kernel_size,
                         const int *stride, const int *padding, int ceil_mode, int count_include_pad,
                         int divisor_override);
/* nn.AdaptiveAvgPool{1,2,3}d(output_size): nd spatial dims, one output size each. An output of 1
 * everywhere is what at::adaptive_avg_pool{1,2,3}d runs then: x.mean(spatial dims, keepdim=True),
 * one reduction kernel (kb_mean_dims). Any other output size would be adaptive_avg_pool2d/3d's
 * CUDA kernel, which is not implemented: the op fails, saying so. */
kb_tensor kb_adaptive_avg_pool_nd(kb_ref *r, kb_tensor out, kb_tensor x, int nd, const int64_t *output_size);

/* ---- raw (pointer) level, kb/ops.h conventions -------------------------------------------- */

/* F.max_pool2d with the int64 indices kept: indices[n, c, oh, ow] = h * in_w + w (may not be NULL).
 * kb_op_max_pool2d (kb/ops.h) is this with the indices in counted scratch. */
int kb_op_max_pool2d_with_indices(kb_ctx *ctx, const kb_pool2d_desc *d, const float *x, float *y,
                                  int64_t *indices);

/* F.avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override) on
 * x (batch, channels, in_h, in_w); the descriptor's dilation must be 1. divisor_override 0 = None. */
int kb_op_avg_pool2d(kb_ctx *ctx, const kb_pool2d_desc *d, int count_include_pad, int divisor_override,
                     const float *x, float *y);

typedef struct kb_pool3d_desc {
    int64_t batch, channels, in_d, in_h, in_w;
    int kernel[3], stride[3], pad[3], dilation[3]; /* D, H, W */
    int ceil_mode;
} kb_pool3d_desc;

/* Output extent (D, H, W) of a 3-D pool (pooling_output_shape, as kb_pool2d_out_size). */
void kb_pool3d_out_size(const kb_pool3d_desc *d, int64_t out[3]);

/* F.max_pool3d as eager runs it: max_pool3d_with_indices. indices (int64, the output's shape;
 * index t * in_h * in_w + h * in_w + w within the (n, c) volume) may be NULL: counted scratch,
 * freed after the call. */
int kb_op_max_pool3d(kb_ctx *ctx, const kb_pool3d_desc *d, const float *x, float *y, int64_t *indices);

/* F.avg_pool3d; the descriptor's dilation must be 1. divisor_override 0 = None. */
int kb_op_avg_pool3d(kb_ctx *ctx, const kb_pool3d_desc *d, int count_include_pad, int divisor_override,
                     const float *x, float *y);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
