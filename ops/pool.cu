/*
 * ops/pool.cu -- kb_pool2d_out_size and kb_op_max_pool2d (NCHW, fp32; see kb/ops.h).
 *
 * Eager F.max_pool2d / nn.MaxPool2d on a contiguous NCHW tensor is max_pool2d_with_indices
 * (ATen/native/cuda/DilatedMaxPool2d.cu): max_pool_forward_nchw, ONE THREAD PER OUTPUT element,
 * 256 threads per block, grid = ceil(outputs / 256). Each thread decodes (n, c, ph, pw) from its
 * index (32-bit divisions by the pooled extents, 64-bit ones by the int64 channel count), clips
 * the dilated window to the image, scans it row by row with 64-bit offsets and keeps the first
 * maximum -- except that a NaN always wins (`val > max || isnan(val)`),
 * so the last NaN of the window is the result -- and writes both the value and its int64 index
 * (h * W + w within the plane). The indices are what F.max_pool2d drops; eager still computes and
 * stores them, so they go to counted scratch here and are freed after the call.
 * Output extent: pooling_output_shape (floor, or ceil with the "last window starts inside the
 * image" correction). PyTorch keeps the output index in an int, so it refuses outputs above
 * 2^31 elements; this file runs PyTorch's mixed 32/64-bit kernel below that and an all-64-bit
 * instantiation of the same kernel above.
 *
 * Napkin math, L1/42: x (32, 64, 512, 512) fp32, k = 4, s = 1, p = 1 -> (32, 64, 511, 511):
 * 535 M outputs. Minimal traffic is 2.15 GB read + 2.14 GB written + 4.28 GB of int64 indices
 * = 8.6 GB (~2 ms at 4.3 TB/s), but each thread issues 16 loads (mostly L1/L2 hits, 16x reuse
 * of the input) with 64-bit address arithmetic, after four 32-bit and two 64-bit runtime integer
 * divisions, which makes the kernel issue-bound: eager PyTorch takes 10.98 ms on the H200.
 * (An all-32-bit version of the same kernel takes ~8.2 ms: the 64-bit channel arithmetic is
 * part of eager's time, so it is kept.) Measured with this file on the H200: 10.93 ms.
 */
#include <math.h>
#include <stdint.h>

#include "kb/ops.h"

namespace {

constexpr int kThreads = 256; /* min(maxThreadsPerBlock, BLOCK_THREADS) */

/* The types are PyTorch 2.11's: the output index and the pooled extents are int (index_t = int),
 * the channel count and the input extents are int64_t, so `% channels`, `/ channels` and the
 * `h * width` offsets are 64-bit arithmetic while the rest is 32-bit -- which is part of what
 * sets this kernel's speed. index_t = int64_t is the variant for outputs above 2^31 elements
 * (PyTorch refuses those). Window bounds are clipped with a 32-bit min, as PyTorch's local
 * min(int, int) does. */
__device__ __forceinline__ int min_int(int a, int b) { return a <= b ? a : b; }
__device__ __forceinline__ int64_t min_int(int64_t a, int64_t b) { return a <= b ? a : b; }

template <typename index_t>
__global__ void max_pool_forward_nchw(const int64_t nthreads, const float *bottom, const int64_t channels,
                                      const int64_t height, const int64_t width, const index_t pooled_h,
                                      const index_t pooled_w, const int kernel_h, const int kernel_w,
                                      const int stride_h, const int stride_w, const int pad_h, const int pad_w,
                                      const int dilation_h, const int dilation_w, float *top, int64_t *top_mask)
{
    const int64_t step = (int64_t)blockDim.x * gridDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nthreads; i += step) {
        const index_t index = (index_t)i;
        const index_t pw = index % pooled_w;
        const index_t ph = (index / pooled_w) % pooled_h;
        const index_t c = (index_t)((index / pooled_w / pooled_h) % channels);
        const index_t n = (index_t)(index / pooled_w / pooled_h / channels);
        index_t hstart = ph * stride_h - pad_h;
        index_t wstart = pw * stride_w - pad_w;
        const index_t hend = min_int(hstart + (index_t)((kernel_h - 1) * dilation_h + 1), (index_t)height);
        const index_t wend = min_int(wstart + (index_t)((kernel_w - 1) * dilation_w + 1), (index_t)width);
        while (hstart < 0)
            hstart += dilation_h;
        while (wstart < 0)
            wstart += dilation_w;
        float maxval = -INFINITY;
        index_t maxidx = (index_t)(hstart * width + wstart);
        const float *plane = bottom + (n * channels + c) * height * width;
        for (index_t h = hstart; h < hend; h += dilation_h) {
            for (index_t w = wstart; w < wend; w += dilation_w) {
                const float val = plane[h * width + w];
                if (val > maxval || isnan(val)) {
                    maxidx = (index_t)(h * width + w);
                    maxval = val;
                }
            }
        }
        top[index] = maxval;
        top_mask[index] = maxidx;
    }
}

/* Division rounding towards negative infinity (PyTorch's div_rtn). */
static int64_t div_rtn(int64_t x, int64_t y)
{
    int64_t q = x / y;
    const int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0)))
        q--;
    return q;
}

/* pooling_output_shape_pad_lr with pad_l == pad_r. */
static int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, int ceil_mode)
{
    if (stride <= 0)
        return 0;
    int64_t out = div_rtn(in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
    if (ceil_mode && (out - 1) * stride >= in + pad)
        out--;
    return out;
}

template <typename index_t>
static void launch_pool(const kb_pool2d_desc *d, int64_t oh, int64_t ow, int64_t count, const float *x, float *y,
                        int64_t *mask, cudaStream_t s)
{
    int64_t blocks = (count + kThreads - 1) / kThreads;
    if (blocks > INT32_MAX)
        blocks = INT32_MAX;
    max_pool_forward_nchw<index_t><<<(unsigned)blocks, kThreads, 0, s>>>(
        count, x, d->channels, d->in_h, d->in_w, (index_t)oh, (index_t)ow, d->kernel_h,
        d->kernel_w, d->stride_h, d->stride_w, d->pad_h, d->pad_w, d->dilation_h, d->dilation_w, y, mask);
}

} /* namespace */

extern "C" void kb_pool2d_out_size(const kb_pool2d_desc *d, int64_t *out_h, int64_t *out_w)
{
    *out_h = pool_out(d->in_h, d->kernel_h, d->pad_h, d->stride_h, d->dilation_h, d->ceil_mode);
    *out_w = pool_out(d->in_w, d->kernel_w, d->pad_w, d->stride_w, d->dilation_w, d->ceil_mode);
}

extern "C" int kb_op_max_pool2d(kb_ctx *ctx, const kb_pool2d_desc *d, const float *x, float *y)
{
    if (!d)
        return kb_ctx_fail(ctx, "kb_op_max_pool2d: NULL descriptor");
    if (d->kernel_h <= 0 || d->kernel_w <= 0 || d->stride_h <= 0 || d->stride_w <= 0 || d->dilation_h <= 0 ||
        d->dilation_w <= 0)
        return kb_ctx_fail(ctx, "kb_op_max_pool2d: kernel (%d, %d), stride (%d, %d) and dilation (%d, %d) must be positive",
                           d->kernel_h, d->kernel_w, d->stride_h, d->stride_w, d->dilation_h, d->dilation_w);
    if (d->pad_h < 0 || d->pad_w < 0 || d->pad_h > d->kernel_h / 2 || d->pad_w > d->kernel_w / 2)
        return kb_ctx_fail(ctx, "kb_op_max_pool2d: pad (%d, %d) must be in [0, kernel / 2] (PyTorch's check)",
                           d->pad_h, d->pad_w);
    if (d->batch < 0 || d->channels < 0 || d->in_h < 0 || d->in_w < 0)
        return kb_ctx_fail(ctx, "kb_op_max_pool2d: negative input extent");
    int64_t oh = 0, ow = 0;
    kb_pool2d_out_size(d, &oh, &ow);
    if (oh <= 0 || ow <= 0)
        return kb_ctx_fail(ctx, "kb_op_max_pool2d: output size %lld x %lld is too small", (long long)oh,
                           (long long)ow);
    const int64_t count = d->batch * d->channels * oh * ow;
    if (count == 0)
        return 0;
    if (!x || !y)
        return kb_ctx_fail(ctx, "kb_op_max_pool2d: NULL tensor pointer");

    int64_t *mask = (int64_t *)kb_ctx_alloc(ctx, sizeof(int64_t) * (size_t)count);
    if (!mask)
        return -1;
    cudaStream_t stream = kb_ctx_stream(ctx);
    if (count <= INT32_MAX && d->in_h * d->in_w <= INT32_MAX)
        launch_pool<int>(d, oh, ow, count, x, y, mask, stream);
    else
        launch_pool<int64_t>(d, oh, ow, count, x, y, mask, stream);
    const cudaError_t launched = cudaGetLastError();
    kb_ctx_free(ctx, mask);
    KB_OP_CUDA(ctx, launched);
    return 0;
}
