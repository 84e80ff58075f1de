/*
 * ops/pool.cu -- max and average pooling, 1-D to 3-D, NC(D)HW fp32 (kb/ops.h, kb/ref/pool.h).
 *
 * Every op is the kernel eager PyTorch 2.11 launches for a contiguous input, with its geometry and
 * integer types (these set the speed: the kernels are issue-bound, not bandwidth-bound) and its
 * summation order (so averages are bitwise PyTorch's):
 *
 * max_pool2d (and max_pool1d, which eager runs as max_pool1d_with_indices -> max_pool2d_with_indices
 *   on the (N, C, 1, L) view): ATen/native/cuda/DilatedMaxPool2d.cu max_pool_forward_nchw, ONE
 *   THREAD PER OUTPUT element, 256 threads per block, grid = ceil(outputs / 256). Each thread
 *   decodes (n, c, ph, pw) from its index (32-bit divisions by the pooled extents, 64-bit ones by
 *   the int64 channel count), clips the dilated window to the image, scans it row by row with
 *   64-bit offsets and keeps the first maximum -- except that a NaN always wins
 *   (`val > max || isnan(val)`), so the last NaN of the window is the result -- and writes both
 *   the value and its int64 index (h * W + w within the plane). F.max_pool1d/2d drop the indices;
 *   eager still computes and stores them, so they go to counted scratch here, freed after the
 *   call. PyTorch picks index_t = int when every input offset and H*W fit in int32
 *   (can_use_int32_nchw), else int64; so does this file.
 *
 * max_pool3d: DilatedMaxPool3d.cu max_pool3d_with_indices_single_out_frame, blocks of 32 x 8
 *   threads over (out_w, out_h) of one output frame, blockIdx.z = (n * C + c) * out_t + t, launched
 *   in chunks of 65535 frames (offsetZ). The frame decode is unsigned 32-bit, the (n, c) volume
 *   offset 64-bit, offsets inside a volume int (PyTorch's types); this file switches to all-64-bit
 *   above 2^31 elements per volume (PyTorch would overflow there). Same NaN rule, int64 indices
 *   (t * H * W + h * W + w) to counted scratch. The kernel is PyTorch's line for line: a tidier
 *   version measured 11% slower on L1/43 (4.37 vs 3.91 ms): ptxas merges the two address forms
 *   of the inner loop, and PyTorch's int `index * features` keeps that merged form 32-bit.
 *
 * avg_pool2d (and avg_pool1d = avg_pool2d on the (N, C, 1, L) view, kernel (1, k), Pooling.cpp):
 *   AveragePool2d.cu avg_pool2d_out_cuda_frame, one thread per output, 1024 threads per block
 *   (min(maxThreadsPerBlock, 1024)), grid = ceil(outputs / 1024). int output index (PyTorch
 *   refuses outputs of 2^31 elements or more: checked_convert<int32_t>; this file runs an
 *   all-64-bit instantiation there), int64 channel / extent arithmetic, so the plane offset and
 *   h * W are 64-bit: an input above 2^31 elements (L1/45, 4.29e9) needs no other variant.
 *   Sum in float over the clipped window, rows then columns; divide by the window size clipped to
 *   the padded input (count_include_pad), the valid count, or divisor_override.
 *
 * avg_pool3d: AveragePool3d.cu avg_pool3d_cuda_update_output on the (N*C, T, H, W) view, blocks of
 *   32 x 8 over (out_w, out_h), blockIdx.z = slice * out_t + t in chunks of 65535, the kernel width
 *   a template parameter for kW = 1..7. PyTorch indexes through PackedTensorAccessor64: every
 *   element address is sum(i_d * stride_d) in 64-bit with the strides (the last one, 1, too) as
 *   runtime values; this file does the same. Float sum in (t, h, w) order, then sum / (float)divisor.
 *
 * adaptive_avg_pool{1,2,3}d to an output of 1: the mean over the spatial dims (kb_mean_dims), as
 *   AdaptivePooling.cpp dispatches it; other output sizes are not implemented (at the end).
 *
 * Output extent: pooling_output_shape (floor, or ceil with the "last window starts inside the
 * input or left padding" correction). Napkin math per problem is in the problems' headers; the
 * 2-D max pool (L1/42, 535 M outputs x 16 loads, 8.6 GB with the indices) measured 10.93 ms on
 * the H200 against eager's 10.98 ms.
 */
#include <cmath>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "kb/ref.h"

namespace {

constexpr int kMaxThreads = 256;  /* max_pool2d: min(maxThreadsPerBlock, BLOCK_THREADS) */
constexpr int kAvgThreads = 1024; /* avg_pool2d: min(maxThreadsPerBlock, 1024) */
constexpr int kStepZ = 65535;     /* 3-D pools: frames per launch (gridDim.z limit) */

/* PyTorch's local min(int, int): the window bounds are clipped with a 32-bit min in the int
 * instantiations (the int64 extent is narrowed, as the implicit conversion there does). */
__device__ __forceinline__ int min_int(int a, int b) { return a <= b ? a : b; }
__device__ __forceinline__ int64_t min_int(int64_t a, int64_t b) { return a <= b ? a : b; }
__device__ __forceinline__ int max_int(int a, int b) { return a >= b ? a : b; }
__device__ __forceinline__ int64_t max_int(int64_t a, int64_t b) { return a >= b ? a : b; }

/* ---- max_pool2d: max_pool_forward_nchw -------------------------------------------------------- */

/* The types are PyTorch 2.11's: the output index (index_t) and the pooled extents are int, the
 * channel count and the input extents int64_t, so `% channels`, `/ channels` and the `h * width`
 * offsets are 64-bit arithmetic while the rest is 32-bit. */
template <typename index_t>
__global__ void max_pool_forward_nchw(const index_t nthreads, const float *bottom, const int64_t channels,
                                      const int64_t height, const int64_t width, const int pooled_h,
                                      const int pooled_w, const int kernel_h, const int kernel_w,
                                      const int stride_h, const int stride_w, const int pad_h, const int pad_w,
                                      const int dilation_h, const int dilation_w, float *top, int64_t *top_mask)
{
    const int64_t step = (int64_t)blockDim.x * gridDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)nthreads; i += step) {
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

/* ---- avg_pool2d: avg_pool2d_out_cuda_frame ---------------------------------------------------- */

/* PyTorch's types: int output index and pooled width; int64 channels, extents and pooled height
 * (so ph's modulo, the channel decode, the plane offset and h * width are 64-bit). */
template <typename index_t>
__global__ void __launch_bounds__(kAvgThreads)
avg_pool2d_forward_nchw(const index_t nthreads, const float *bottom, const int64_t channels, const int64_t height,
                        const int64_t width, const int64_t pooled_h, const index_t pooled_w, const int kernel_h,
                        const int kernel_w, const int stride_h, const int stride_w, const int pad_h,
                        const int pad_w, float *top, const int divisor_override, const bool count_include_pad,
                        const bool use_divisor)
{
    const int64_t step = (int64_t)blockDim.x * gridDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)nthreads; i += step) {
        const index_t index = (index_t)i;
        const index_t pw = index % pooled_w;
        const index_t ph = (index_t)((index / pooled_w) % pooled_h);
        const index_t c = (index_t)((index / pooled_w / pooled_h) % channels);
        const index_t n = (index_t)(index / pooled_w / pooled_h / channels);
        index_t hstart = ph * stride_h - pad_h;
        index_t wstart = pw * stride_w - pad_w;
        index_t hend = min_int(hstart + (index_t)kernel_h, (index_t)(height + pad_h));
        index_t wend = min_int(wstart + (index_t)kernel_w, (index_t)(width + pad_w));
        const index_t pool_size = (hend - hstart) * (wend - wstart);
        hstart = max_int(hstart, (index_t)0);
        wstart = max_int(wstart, (index_t)0);
        hend = min_int(hend, (index_t)height);
        wend = min_int(wend, (index_t)width);
        if (hstart >= hend || wstart >= wend) {
            top[index] = 0.0f;
            continue;
        }
        float aveval = 0.0f;
        const float *slice = bottom + (n * channels + c) * height * width;
        for (index_t h = hstart; h < hend; ++h)
            for (index_t w = wstart; w < wend; ++w)
                aveval += slice[h * width + w];
        index_t divide_factor;
        if (use_divisor)
            divide_factor = divisor_override;
        else if (count_include_pad)
            divide_factor = pool_size;
        else
            divide_factor = (hend - hstart) * (wend - wstart);
        top[index] = aveval / (float)divide_factor;
    }
}

/* ---- max_pool3d: max_pool3d_with_indices_single_out_frame ------------------------------------- */

/* PyTorch's kernel as it is (int arguments, the channels-last decode and bounds checks kept although
 * this file only passes channels_last = false): measured on the H200, this exact shape runs L1/43
 * in 3.91 ms like eager, while a tidier version with the same arithmetic compiled to code 11%
 * slower (4.35 ms), so the shape is kept for speed fidelity. */
__global__ void max_pool3d_forward_pt(const float *inputData, float *outputData, int64_t *indicesData, int features,
                                      int itime, int iheight, int iwidth, int obatch, int otime, int oheight,
                                      int owidth, int kT, int kH, int kW, int dT, int dH, int dW, int pT, int pH,
                                      int pW, int dilationT, int dilationH, int dilationW, int offsetZ,
                                      bool channels_last)
{
    int oColumn = blockIdx.x * blockDim.x + threadIdx.x;
    int oRow = blockIdx.y * blockDim.y + threadIdx.y;
    int oFrame = 0;
    int64_t slice = 0;
    int batch = 0;
    int channel = 0;
    if (!channels_last) {
        oFrame = (blockIdx.z * blockDim.z + threadIdx.z + offsetZ) % otime;
        slice = (blockIdx.z * blockDim.z + threadIdx.z + offsetZ) / otime;
    } else {
        channel = (blockIdx.z * blockDim.z + threadIdx.z + offsetZ) % features;
        slice = (blockIdx.z * blockDim.z + threadIdx.z + offsetZ) / features;
        batch = slice / otime;
        oFrame = slice % otime;
    }
    if (oRow < oheight && oColumn < owidth && oFrame < otime && channel < features && batch < obatch) {
        int tStart = oFrame * dT - pT;
        int hStart = oRow * dH - pH;
        int wStart = oColumn * dW - pW;
        const int tEnd = min_int(tStart + (kT - 1) * dilationT + 1, itime);
        const int hEnd = min_int(hStart + (kH - 1) * dilationH + 1, iheight);
        const int wEnd = min_int(wStart + (kW - 1) * dilationW + 1, iwidth);
        while (tStart < 0)
            tStart += dilationT;
        while (hStart < 0)
            hStart += dilationH;
        while (wStart < 0)
            wStart += dilationW;
        int64_t maxIndex = tStart * iheight * iwidth + hStart * iwidth + wStart;
        if (!channels_last)
            inputData += slice * itime * iheight * iwidth;
        else
            inputData += ((int64_t)batch * itime * iheight * iwidth * features) + channel;
        float maxval = -INFINITY;
        for (int t = tStart; t < tEnd; t += dilationT) {
            for (int h = hStart; h < hEnd; h += dilationH) {
                for (int w = wStart; w < wEnd; w += dilationW) {
                    float val;
                    const int index = t * iheight * iwidth + h * iwidth + w;
                    if (!channels_last) {
                        val = inputData[index];
                    } else {
                        const int64_t index_channels_last = index * features; /* int product, as PyTorch */
                        val = inputData[index_channels_last];
                    }
                    if (maxval < val || isnan(val)) {
                        maxval = val;
                        maxIndex = index;
                    }
                }
            }
        }
        int64_t out_index;
        if (!channels_last)
            out_index = slice * otime * oheight * owidth + oFrame * oheight * owidth + oRow * owidth + oColumn;
        else
            out_index = ((int64_t)batch * otime * oheight * owidth + oFrame * oheight * owidth + oRow * owidth + oColumn) *
                            features + channel;
        outputData[out_index] = maxval;
        indicesData[out_index] = maxIndex;
    }
}

/* Above 2^31 elements per volume or frames (PyTorch would overflow its int offsets): the same
 * algorithm with every index 64-bit (NARROW = false; NARROW = true is PyTorch's int arithmetic in
 * tidier form, unused: see max_pool3d_forward_pt). */
template <bool NARROW>
__global__ void max_pool3d_forward(const float *input, float *output, int64_t *indices, int64_t itime_,
                                   int64_t iheight_, int64_t iwidth_, int64_t otime_, int64_t oheight_,
                                   int64_t owidth_, int kT, int kH, int kW, int dT, int dH, int dW, int pT, int pH,
                                   int pW, int dilationT, int dilationH, int dilationW, int64_t offsetZ_)
{
    typedef typename std::conditional<NARROW, int, int64_t>::type idx;
    typedef typename std::conditional<NARROW, unsigned, int64_t>::type zidx;
    const idx itime = (idx)itime_, iheight = (idx)iheight_, iwidth = (idx)iwidth_;
    const idx otime = (idx)otime_, oheight = (idx)oheight_, owidth = (idx)owidth_;
    const idx oColumn = (idx)(blockIdx.x * blockDim.x + threadIdx.x);
    const idx oRow = (idx)(blockIdx.y * blockDim.y + threadIdx.y);
    const zidx z = (zidx)(blockIdx.z * blockDim.z + threadIdx.z) + (zidx)offsetZ_;
    const idx oFrame = (idx)(z % (zidx)otime);
    const int64_t slice = (int64_t)(z / (zidx)otime);
    if (oRow < oheight && oColumn < owidth && oFrame < otime) {
        idx tStart = oFrame * dT - pT;
        idx hStart = oRow * dH - pH;
        idx wStart = oColumn * dW - pW;
        const idx tEnd = min_int(tStart + (idx)((kT - 1) * dilationT + 1), itime);
        const idx hEnd = min_int(hStart + (idx)((kH - 1) * dilationH + 1), iheight);
        const idx wEnd = min_int(wStart + (idx)((kW - 1) * dilationW + 1), iwidth);
        while (tStart < 0)
            tStart += dilationT;
        while (hStart < 0)
            hStart += dilationH;
        while (wStart < 0)
            wStart += dilationW;
        int64_t maxIndex = tStart * iheight * iwidth + hStart * iwidth + wStart;
        const float *vol = input + slice * itime * iheight * iwidth;
        float maxval = -INFINITY;
        for (idx t = tStart; t < tEnd; t += dilationT) {
            for (idx h = hStart; h < hEnd; h += dilationH) {
                for (idx w = wStart; w < wEnd; w += dilationW) {
                    const idx index = t * iheight * iwidth + h * iwidth + w;
                    const float val = vol[index];
                    if (maxval < val || isnan(val)) {
                        maxval = val;
                        maxIndex = index;
                    }
                }
            }
        }
        const int64_t out_index = slice * otime * oheight * owidth + oFrame * oheight * owidth + oRow * owidth + oColumn;
        output[out_index] = maxval;
        indices[out_index] = maxIndex;
    }
}

/* ---- avg_pool3d: avg_pool3d_cuda_update_output ------------------------------------------------ */

/* A 4-d view (slices, T, H, W) as PackedTensorAccessor64 holds it: sizes and strides in int64,
 * the address of [s][t][h][w] = s*st0 + t*st1 + h*st2 + w*st3 (st3 = 1, still multiplied). */
struct acc4 {
    int64_t size[4];
    int64_t stride[4];
};

/* KW > 0: the kernel width as a template parameter (PyTorch's kW = 1..7 instantiations); KW = 0:
 * the general kernel with kW at run time. idx: int (PyTorch) or int64_t. */
template <int KW, typename idx>
__global__ void avg_pool3d_forward(const float *input, acc4 in, float *output, acc4 out, int kT, int kH, int kW_,
                                   int dT, int dH, int dW, int padT, int padH, int padW, bool count_include_pad,
                                   int64_t offsetZ, int divisor_override)
{
    const int kW = KW > 0 ? KW : kW_;
    const idx oCol = (idx)(blockIdx.x * blockDim.x + threadIdx.x);
    const idx oRow = (idx)(blockIdx.y * blockDim.y + threadIdx.y);
    /* PyTorch: (blockIdx.z + offsetZ) % output.size(1), unsigned promoted to int64 */
    const int64_t z = sizeof(idx) == 4 ? (int64_t)(blockIdx.z + (unsigned)offsetZ) : (int64_t)blockIdx.z + offsetZ;
    const idx oFrame = (idx)(z % out.size[1]);
    const idx slice = (idx)(z / out.size[1]);
    if (oRow < out.size[2] && oCol < out.size[3]) {
        float sum = 0.0f;
        idx tstart = oFrame * dT - padT;
        idx hstart = oRow * dH - padH;
        idx wstart = oCol * dW - padW;
        idx tend = min_int(tstart + (idx)kT, (idx)(in.size[1] + padT));
        idx hend = min_int(hstart + (idx)kH, (idx)(in.size[2] + padH));
        idx wend = min_int(wstart + (idx)kW, (idx)(in.size[3] + padW));
        const idx pool_size = (tend - tstart) * (hend - hstart) * (wend - wstart);
        tstart = max_int(tstart, (idx)0);
        hstart = max_int(hstart, (idx)0);
        wstart = max_int(wstart, (idx)0);
        tend = min_int(tend, (idx)in.size[1]);
        hend = min_int(hend, (idx)in.size[2]);
        wend = min_int(wend, (idx)in.size[3]);
        const int64_t o = (int64_t)slice * out.stride[0] + (int64_t)oFrame * out.stride[1] +
                          (int64_t)oRow * out.stride[2] + (int64_t)oCol * out.stride[3];
        if (tstart >= tend || hstart >= hend || wstart >= wend) {
            output[o] = 0.0f;
            return;
        }
        float divide_factor;
        if (divisor_override)
            divide_factor = (float)divisor_override;
        else if (count_include_pad)
            divide_factor = (float)pool_size;
        else
            divide_factor = (float)((tend - tstart) * (hend - hstart) * (wend - wstart));
        for (idx ti = tstart; ti < tend; ++ti)
            for (idx hi = hstart; hi < hend; ++hi)
                for (idx wi = wstart; wi < wend; ++wi)
                    sum += input[(int64_t)slice * in.stride[0] + (int64_t)ti * in.stride[1] +
                                 (int64_t)hi * in.stride[2] + (int64_t)wi * in.stride[3]];
        output[o] = sum / divide_factor;
    }
}

/* ---- host helpers ----------------------------------------------------------------------------- */

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

static unsigned grid_1d(int64_t count, int threads)
{
    int64_t blocks = (count + threads - 1) / threads;
    if (blocks > INT32_MAX)
        blocks = INT32_MAX; /* the grid-stride loops cover the rest */
    return (unsigned)blocks;
}

/* PyTorch's pool2d/pool3d_shape_check argument checks, shared by the raw ops. */
static int check_window(kb_ctx *ctx, const char *op, int nd, const int *kernel, const int *stride, const int *pad,
                        const int *dilation)
{
    for (int i = 0; i < nd; i++) {
        if (kernel[i] <= 0 || stride[i] <= 0 || dilation[i] <= 0)
            return kb_ctx_fail(ctx, "%s: kernel %d, stride %d and dilation %d (dimension %d) must be positive", op,
                               kernel[i], stride[i], dilation[i], i);
        if (pad[i] < 0 || pad[i] > kernel[i] / 2)
            return kb_ctx_fail(ctx, "%s: padding %d (dimension %d) must be in [0, kernel / 2 = %d] (PyTorch's check)",
                               op, pad[i], i, kernel[i] / 2);
    }
    return 0;
}

} /* namespace */

/* ---- raw ops: 2-D ------------------------------------------------------------------------------ */

extern "C" void kb_pool2d_out_size(const kb_pool2d_desc *d, int64_t *out_h, int64_t *out_w)
{
    *out_h = pool_out(d->in_h, d->kernel_h, d->pad_h, d->stride_h, d->dilation_h, d->ceil_mode);
    *out_w = pool_out(d->in_w, d->kernel_w, d->pad_w, d->stride_w, d->dilation_w, d->ceil_mode);
}

static int check_pool2d(kb_ctx *ctx, const char *op, const kb_pool2d_desc *d, int64_t *oh, int64_t *ow)
{
    if (!d)
        return kb_ctx_fail(ctx, "%s: NULL descriptor", op);
    const int k[2] = {d->kernel_h, d->kernel_w}, s[2] = {d->stride_h, d->stride_w}, p[2] = {d->pad_h, d->pad_w},
              dl[2] = {d->dilation_h, d->dilation_w};
    if (check_window(ctx, op, 2, k, s, p, dl))
        return -1;
    if (d->batch < 0 || d->channels < 0 || d->in_h < 0 || d->in_w < 0)
        return kb_ctx_fail(ctx, "%s: negative input extent", op);
    kb_pool2d_out_size(d, oh, ow);
    if (*oh <= 0 || *ow <= 0)
        return kb_ctx_fail(ctx, "%s: output size %lld x %lld is too small", op, (long long)*oh, (long long)*ow);
    if (*oh > INT32_MAX || *ow > INT32_MAX)
        return kb_ctx_fail(ctx, "%s: output extent %lld x %lld above 2^31", op, (long long)*oh, (long long)*ow);
    return 0;
}

extern "C" int kb_op_max_pool2d_with_indices(kb_ctx *ctx, const kb_pool2d_desc *d, const float *x, float *y,
                                             int64_t *mask)
{
    int64_t oh = 0, ow = 0;
    if (check_pool2d(ctx, "kb_op_max_pool2d", d, &oh, &ow))
        return -1;
    const int64_t count = d->batch * d->channels * oh * ow;
    if (count == 0)
        return 0;
    if (!x || !y || !mask)
        return kb_ctx_fail(ctx, "kb_op_max_pool2d: NULL tensor pointer");
    cudaStream_t s = kb_ctx_stream(ctx);
    /* can_use_int32_nchw: the largest input offset, the output batch offset and H*W fit in int. */
    const int64_t hw = d->in_h * d->in_w;
    const int64_t max_in = d->batch * d->channels * hw - 1;
    const int64_t max_out_batch = (d->batch ? d->batch - 1 : 0) * oh * ow * d->channels;
    const unsigned blocks = grid_1d(count, kMaxThreads);
    if (count <= INT32_MAX && max_in <= INT32_MAX && max_out_batch <= INT32_MAX && hw <= INT32_MAX)
        max_pool_forward_nchw<int><<<blocks, kMaxThreads, 0, s>>>(
            (int)count, x, d->channels, d->in_h, d->in_w, (int)oh, (int)ow, d->kernel_h, d->kernel_w, d->stride_h,
            d->stride_w, d->pad_h, d->pad_w, d->dilation_h, d->dilation_w, y, mask);
    else
        max_pool_forward_nchw<int64_t><<<blocks, kMaxThreads, 0, s>>>(
            count, x, d->channels, d->in_h, d->in_w, (int)oh, (int)ow, d->kernel_h, d->kernel_w, d->stride_h,
            d->stride_w, d->pad_h, d->pad_w, d->dilation_h, d->dilation_w, y, mask);
    KB_OP_LAUNCHED(ctx);
    return 0;
}

extern "C" int kb_op_max_pool2d(kb_ctx *ctx, const kb_pool2d_desc *d, const float *x, float *y)
{
    int64_t oh = 0, ow = 0;
    if (check_pool2d(ctx, "kb_op_max_pool2d", d, &oh, &ow))
        return -1;
    const int64_t count = d->batch * d->channels * oh * ow;
    if (count == 0)
        return 0;
    /* eager's indices tensor: allocated with the output, freed when the tuple is dropped */
    int64_t *mask = (int64_t *)kb_ctx_alloc(ctx, sizeof(int64_t) * (size_t)count);
    if (!mask)
        return -1;
    const int rc = kb_op_max_pool2d_with_indices(ctx, d, x, y, mask);
    kb_ctx_free(ctx, mask);
    return rc;
}

extern "C" int kb_op_avg_pool2d(kb_ctx *ctx, const kb_pool2d_desc *d, int count_include_pad, int divisor_override,
                                const float *x, float *y)
{
    int64_t oh = 0, ow = 0;
    if (check_pool2d(ctx, "kb_op_avg_pool2d", d, &oh, &ow))
        return -1;
    if (d->dilation_h != 1 || d->dilation_w != 1)
        return kb_ctx_fail(ctx, "kb_op_avg_pool2d: dilation (%d, %d) must be 1 (average pooling has none)",
                           d->dilation_h, d->dilation_w);
    if (divisor_override < 0)
        return kb_ctx_fail(ctx, "kb_op_avg_pool2d: divisor_override %d must be positive (0 = None)", divisor_override);
    const int64_t count = d->batch * d->channels * oh * ow;
    if (count == 0)
        return 0;
    if (!x || !y)
        return kb_ctx_fail(ctx, "kb_op_avg_pool2d: NULL tensor pointer");
    cudaStream_t s = kb_ctx_stream(ctx);
    const unsigned blocks = grid_1d(count, kAvgThreads);
    const bool use_divisor = divisor_override != 0;
    if (count <= INT32_MAX)
        avg_pool2d_forward_nchw<int><<<blocks, kAvgThreads, 0, s>>>(
            (int)count, x, d->channels, d->in_h, d->in_w, oh, (int)ow, d->kernel_h, d->kernel_w, d->stride_h,
            d->stride_w, d->pad_h, d->pad_w, y, divisor_override, count_include_pad != 0, use_divisor);
    else /* PyTorch refuses these (checked_convert<int32_t>); all-64-bit here */
        avg_pool2d_forward_nchw<int64_t><<<blocks, kAvgThreads, 0, s>>>(
            count, x, d->channels, d->in_h, d->in_w, oh, ow, d->kernel_h, d->kernel_w, d->stride_h, d->stride_w,
            d->pad_h, d->pad_w, y, divisor_override, count_include_pad != 0, use_divisor);
    KB_OP_LAUNCHED(ctx);
    return 0;
}

/* ---- raw ops: 3-D ------------------------------------------------------------------------------ */

extern "C" void kb_pool3d_out_size(const kb_pool3d_desc *d, int64_t out[3])
{
    const int64_t in[3] = {d->in_d, d->in_h, d->in_w};
    for (int i = 0; i < 3; i++)
        out[i] = pool_out(in[i], d->kernel[i], d->pad[i], d->stride[i], d->dilation[i], d->ceil_mode);
}

static int check_pool3d(kb_ctx *ctx, const char *op, const kb_pool3d_desc *d, int64_t o[3])
{
    if (!d)
        return kb_ctx_fail(ctx, "%s: NULL descriptor", op);
    if (check_window(ctx, op, 3, d->kernel, d->stride, d->pad, d->dilation))
        return -1;
    if (d->batch < 0 || d->channels < 0 || d->in_d < 0 || d->in_h < 0 || d->in_w < 0)
        return kb_ctx_fail(ctx, "%s: negative input extent", op);
    kb_pool3d_out_size(d, o);
    if (o[0] <= 0 || o[1] <= 0 || o[2] <= 0)
        return kb_ctx_fail(ctx, "%s: output size %lld x %lld x %lld is too small", op, (long long)o[0],
                           (long long)o[1], (long long)o[2]);
    /* grid.x / grid.y of the 32 x 8 blocks */
    if ((o[2] + 31) / 32 > INT32_MAX || (o[1] + 7) / 8 > 65535)
        return kb_ctx_fail(ctx, "%s: output height %lld / width %lld exceed the launch grid (PyTorch's too)", op,
                           (long long)o[1], (long long)o[2]);
    return 0;
}

extern "C" int kb_op_max_pool3d(kb_ctx *ctx, const kb_pool3d_desc *d, const float *x, float *y, int64_t *indices)
{
    int64_t o[3];
    if (check_pool3d(ctx, "kb_op_max_pool3d", d, o))
        return -1;
    const int64_t count = d->batch * d->channels * o[0] * o[1] * o[2];
    if (count == 0)
        return 0;
    if (!x || !y)
        return kb_ctx_fail(ctx, "kb_op_max_pool3d: NULL tensor pointer");
    int64_t *mask = indices;
    if (!mask) { /* eager's indices tensor, dropped by F.max_pool3d */
        mask = (int64_t *)kb_ctx_alloc(ctx, sizeof(int64_t) * (size_t)count);
        if (!mask)
            return -1;
    }
    const int64_t in_vol = d->in_d * d->in_h * d->in_w, out_vol = o[0] * o[1] * o[2];
    int64_t totalZ = o[0] * d->channels * d->batch;
    const bool narrow = in_vol <= INT32_MAX && out_vol <= INT32_MAX && totalZ <= INT32_MAX && d->channels <= INT32_MAX &&
                        d->batch <= INT32_MAX;
    const dim3 block(32, 8, 1);
    cudaStream_t s = kb_ctx_stream(ctx);
    cudaError_t err = cudaSuccess;
    for (int64_t offsetZ = 0; totalZ > 0 && err == cudaSuccess; totalZ -= kStepZ, offsetZ += kStepZ) {
        const dim3 grid((unsigned)((o[2] + 31) / 32), (unsigned)((o[1] + 7) / 8),
                        (unsigned)(totalZ > kStepZ ? kStepZ : totalZ));
        if (narrow)
            max_pool3d_forward_pt<<<grid, block, 0, s>>>(
                x, y, mask, (int)d->channels, (int)d->in_d, (int)d->in_h, (int)d->in_w, (int)d->batch, (int)o[0],
                (int)o[1], (int)o[2], d->kernel[0], d->kernel[1], d->kernel[2], d->stride[0], d->stride[1],
                d->stride[2], d->pad[0], d->pad[1], d->pad[2], d->dilation[0], d->dilation[1], d->dilation[2],
                (int)offsetZ, /*channels_last=*/false);
        else
            max_pool3d_forward<false><<<grid, block, 0, s>>>(
                x, y, mask, d->in_d, d->in_h, d->in_w, o[0], o[1], o[2], d->kernel[0], d->kernel[1], d->kernel[2],
                d->stride[0], d->stride[1], d->stride[2], d->pad[0], d->pad[1], d->pad[2], d->dilation[0],
                d->dilation[1], d->dilation[2], offsetZ);
        err = cudaGetLastError();
    }
    if (!indices)
        kb_ctx_free(ctx, mask);
    KB_OP_CUDA(ctx, err);
    return 0;
}

extern "C" int kb_op_avg_pool3d(kb_ctx *ctx, const kb_pool3d_desc *d, int count_include_pad, int divisor_override,
                                const float *x, float *y)
{
    int64_t o[3];
    if (check_pool3d(ctx, "kb_op_avg_pool3d", d, o))
        return -1;
    if (d->dilation[0] != 1 || d->dilation[1] != 1 || d->dilation[2] != 1)
        return kb_ctx_fail(ctx, "kb_op_avg_pool3d: dilation must be 1 (average pooling has none)");
    if (divisor_override < 0)
        return kb_ctx_fail(ctx, "kb_op_avg_pool3d: divisor_override %d must be positive (0 = None)", divisor_override);
    /* pool3d_shape_check(check_input_size = true), avg_pool3d only */
    if (d->in_d < d->kernel[0] || d->in_h < d->kernel[1] || d->in_w < d->kernel[2])
        return kb_ctx_fail(ctx, "kb_op_avg_pool3d: input (T %lld, H %lld, W %lld) smaller than the kernel (%d, %d, %d)",
                           (long long)d->in_d, (long long)d->in_h, (long long)d->in_w, d->kernel[0], d->kernel[1],
                           d->kernel[2]);
    const int64_t slices = d->batch * d->channels;
    const int64_t count = slices * o[0] * o[1] * o[2];
    if (count == 0)
        return 0;
    if (!x || !y)
        return kb_ctx_fail(ctx, "kb_op_avg_pool3d: NULL tensor pointer");
    const acc4 in = {{slices, d->in_d, d->in_h, d->in_w},
                     {d->in_d * d->in_h * d->in_w, d->in_h * d->in_w, d->in_w, 1}};
    const acc4 out = {{slices, o[0], o[1], o[2]}, {o[0] * o[1] * o[2], o[1] * o[2], o[2], 1}};
    int64_t totalZ = o[0] * slices;
    const int64_t big = INT32_MAX / 4;
    const bool narrow = totalZ <= INT32_MAX && slices <= INT32_MAX && d->in_d < big && d->in_h < big && d->in_w < big;
    const int kT = d->kernel[0], kH = d->kernel[1], kW = d->kernel[2];
    const int dT = d->stride[0], dH = d->stride[1], dW = d->stride[2];
    const int pT = d->pad[0], pH = d->pad[1], pW = d->pad[2];
    const bool cip = count_include_pad != 0;
    const dim3 block(32, 8);
    cudaStream_t s = kb_ctx_stream(ctx);
    cudaError_t err = cudaSuccess;
    for (int64_t offsetZ = 0; totalZ > 0 && err == cudaSuccess; totalZ -= kStepZ, offsetZ += kStepZ) {
        const dim3 grid((unsigned)((o[2] + 31) / 32), (unsigned)((o[1] + 7) / 8),
                        (unsigned)(totalZ > kStepZ ? kStepZ : totalZ));
#define KB_AVG3D(KW, IDX)                                                                                         \
    avg_pool3d_forward<KW, IDX><<<grid, block, 0, s>>>(x, in, y, out, kT, kH, kW, dT, dH, dW, pT, pH, pW, cip, \
                                                       offsetZ, divisor_override)
#define KB_AVG3D_SWITCH(IDX)                                                                                      \
    switch (kW) {                                                                                                 \
    case 1: KB_AVG3D(1, IDX); break;                                                                              \
    case 2: KB_AVG3D(2, IDX); break;                                                                              \
    case 3: KB_AVG3D(3, IDX); break;                                                                              \
    case 4: KB_AVG3D(4, IDX); break;                                                                              \
    case 5: KB_AVG3D(5, IDX); break;                                                                              \
    case 6: KB_AVG3D(6, IDX); break;                                                                              \
    case 7: KB_AVG3D(7, IDX); break;                                                                              \
    default: KB_AVG3D(0, IDX); break;                                                                             \
    }
        if (narrow) {
            KB_AVG3D_SWITCH(int)
        } else {
            KB_AVG3D_SWITCH(int64_t)
        }
#undef KB_AVG3D_SWITCH
#undef KB_AVG3D
        err = cudaGetLastError();
    }
    KB_OP_CUDA(ctx, err);
    return 0;
}

/* ---- tensor level (kb/ref/pool.h) -------------------------------------------------------------- */

namespace {

/* What every pool wrapper needs: the validated window, the input's (batch, channels, spatial)
 * and the result's shape. */
struct pool_geom {
    int nd, ndim;
    int64_t batch, channels, in[3], out[3];
    int k[3], s[3], p[3], dl[3];
    int64_t shape[KB_MAX_DIMS];
};

static const char *max_name(int nd) { return nd == 1 ? "kb_max_pool1d" : nd == 2 ? "kb_max_pool2d" : "kb_max_pool3d"; }
static const char *avg_name(int nd) { return nd == 1 ? "kb_avg_pool1d" : nd == 2 ? "kb_avg_pool2d" : "kb_avg_pool3d"; }

static int pool_geometry(kb_ref *r, const char *op, kb_tensor x, int nd, const int *kernel, const int *stride,
                         const int *padding, const int *dilation, int ceil_mode, pool_geom *g)
{
    if (nd < 1 || nd > 3)
        return kb_ref_fail(r, "%s: %d spatial dimensions (1, 2 or 3)", op, nd);
    if (!kernel)
        return kb_ref_fail(r, "%s: kernel_size is required", op);
    if (x.dtype != KB_F32)
        return kb_ref_fail(r, "%s: x must be float32 (dtype %d given)", op, (int)x.dtype);
    if (x.ndim != nd + 1 && x.ndim != nd + 2)
        return kb_ref_fail(r, "%s: x must be %d-d (C, spatial) or %d-d (N, C, spatial), %d-d given", op, nd + 1,
                           nd + 2, x.ndim);
    if (!kb_is_contiguous(x))
        return kb_ref_fail(r, "%s: x must be contiguous (call kb_copy first, as PyTorch's .contiguous())", op);
    memset(g, 0, sizeof *g);
    g->nd = nd;
    g->ndim = x.ndim;
    g->batch = x.ndim == nd + 2 ? x.shape[0] : 1;
    g->channels = x.shape[x.ndim - nd - 1];
    for (int d = 0; d < x.ndim; d++)
        g->shape[d] = x.shape[d];
    for (int i = 0; i < nd; i++) {
        g->k[i] = kernel[i];
        g->s[i] = stride && stride[i] ? stride[i] : kernel[i]; /* stride=None: the kernel size */
        g->p[i] = padding ? padding[i] : 0;
        g->dl[i] = dilation && dilation[i] ? dilation[i] : 1;
        if (g->k[i] <= 0 || g->s[i] <= 0 || g->dl[i] <= 0)
            return kb_ref_fail(r, "%s: kernel_size %d, stride %d and dilation %d must be positive (dimension %d)", op,
                               g->k[i], g->s[i], g->dl[i], i);
        if (g->p[i] < 0 || g->p[i] > g->k[i] / 2)
            return kb_ref_fail(r, "%s: padding %d must be in [0, kernel_size / 2 = %d] (PyTorch's check), dimension %d",
                               op, g->p[i], g->k[i] / 2, i);
        const int d = x.ndim - nd + i;
        g->in[i] = x.shape[d];
        g->out[i] = pool_out(g->in[i], g->k[i], g->p[i], g->s[i], g->dl[i], ceil_mode);
        if (g->out[i] <= 0)
            return kb_ref_fail(r, "%s: input extent %lld with kernel %d, stride %d, padding %d, dilation %d gives "
                                  "output extent %lld (too small)",
                               op, (long long)g->in[i], g->k[i], g->s[i], g->p[i], g->dl[i], (long long)g->out[i]);
        g->shape[d] = g->out[i];
    }
    return 1;
}

/* The 2-D descriptor of a 1-D or 2-D pool (1-D: the (N, C, 1, L) view, window (1, k)). */
static kb_pool2d_desc desc2d(const pool_geom *g, int ceil_mode)
{
    kb_pool2d_desc d;
    memset(&d, 0, sizeof d);
    d.batch = g->batch;
    d.channels = g->channels;
    d.ceil_mode = ceil_mode;
    if (g->nd == 1) {
        d.in_h = 1, d.in_w = g->in[0];
        d.kernel_h = 1, d.kernel_w = g->k[0];
        d.stride_h = 1, d.stride_w = g->s[0];
        d.pad_h = 0, d.pad_w = g->p[0];
        d.dilation_h = 1, d.dilation_w = g->dl[0];
    } else {
        d.in_h = g->in[0], d.in_w = g->in[1];
        d.kernel_h = g->k[0], d.kernel_w = g->k[1];
        d.stride_h = g->s[0], d.stride_w = g->s[1];
        d.pad_h = g->p[0], d.pad_w = g->p[1];
        d.dilation_h = g->dl[0], d.dilation_w = g->dl[1];
    }
    return d;
}

static kb_pool3d_desc desc3d(const pool_geom *g, int ceil_mode)
{
    kb_pool3d_desc d;
    memset(&d, 0, sizeof d);
    d.batch = g->batch;
    d.channels = g->channels;
    d.in_d = g->in[0], d.in_h = g->in[1], d.in_w = g->in[2];
    for (int i = 0; i < 3; i++) {
        d.kernel[i] = g->k[i];
        d.stride[i] = g->s[i];
        d.pad[i] = g->p[i];
        d.dilation[i] = g->dl[i];
    }
    d.ceil_mode = ceil_mode;
    return d;
}

} /* namespace */

extern "C" kb_tensor kb_max_pool_nd(kb_ref *r, kb_tensor out, kb_tensor *indices, kb_tensor x, int nd,
                                    const int *kernel_size, const int *stride, const int *padding,
                                    const int *dilation, int ceil_mode)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    const char *op = max_name(nd);
    pool_geom g;
    if (!pool_geometry(r, op, x, nd, kernel_size, stride, padding, dilation, ceil_mode, &g))
        return kb_ref_none();
    kb_tensor y = kb_result(r, out, KB_F32, g.ndim, g.shape, op);
    int64_t *idx = NULL;
    if (indices) {
        if (!indices->data)
            *indices = kb_empty(r, KB_I64, g.ndim, g.shape);
        else
            *indices = kb_result(r, *indices, KB_I64, g.ndim, g.shape, op);
        idx = kb_i64(r, *indices);
    }
    const float *xp = kb_f32(r, x);
    float *yp = kb_f32(r, y);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ctx *ctx = kb_ref_ctx(r);
    int rc;
    if (nd == 3) {
        const kb_pool3d_desc d = desc3d(&g, ceil_mode);
        rc = kb_op_max_pool3d(ctx, &d, xp, yp, idx);
    } else {
        const kb_pool2d_desc d = desc2d(&g, ceil_mode);
        rc = idx ? kb_op_max_pool2d_with_indices(ctx, &d, xp, yp, idx) : kb_op_max_pool2d(ctx, &d, xp, yp);
    }
    kb_ref_check(r, rc);
    return kb_ref_ok(r) ? y : kb_ref_none();
}

extern "C" kb_tensor kb_avg_pool_nd(kb_ref *r, kb_tensor out, kb_tensor x, int nd, const int *kernel_size,
                                    const int *stride, const int *padding, int ceil_mode, int count_include_pad,
                                    int divisor_override)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    const char *op = avg_name(nd);
    if (divisor_override < 0) {
        kb_ref_fail(r, "%s: divisor_override %d must be positive (0 = None)", op, divisor_override);
        return kb_ref_none();
    }
    pool_geom g;
    if (!pool_geometry(r, op, x, nd, kernel_size, stride, padding, NULL, ceil_mode, &g))
        return kb_ref_none();
    kb_tensor y = kb_result(r, out, KB_F32, g.ndim, g.shape, op);
    const float *xp = kb_f32(r, x);
    float *yp = kb_f32(r, y);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ctx *ctx = kb_ref_ctx(r);
    int rc;
    if (nd == 3) {
        const kb_pool3d_desc d = desc3d(&g, ceil_mode);
        rc = kb_op_avg_pool3d(ctx, &d, count_include_pad, divisor_override, xp, yp);
    } else {
        const kb_pool2d_desc d = desc2d(&g, ceil_mode);
        rc = kb_op_avg_pool2d(ctx, &d, count_include_pad, divisor_override, xp, yp);
    }
    kb_ref_check(r, rc);
    return kb_ref_ok(r) ? y : kb_ref_none();
}

extern "C" kb_tensor kb_max_pool1d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                                   int dilation, int ceil_mode)
{
    return kb_max_pool_nd(r, out, NULL, x, 1, &kernel_size, &stride, &padding, &dilation, ceil_mode);
}

extern "C" kb_tensor kb_max_pool2d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                                   int dilation, int ceil_mode)
{
    const int k[2] = {kernel_size, kernel_size}, s[2] = {stride, stride}, p[2] = {padding, padding},
              d[2] = {dilation, dilation};
    return kb_max_pool_nd(r, out, NULL, x, 2, k, s, p, d, ceil_mode);
}

extern "C" kb_tensor kb_max_pool3d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                                   int dilation, int ceil_mode)
{
    const int k[3] = {kernel_size, kernel_size, kernel_size}, s[3] = {stride, stride, stride},
              p[3] = {padding, padding, padding}, d[3] = {dilation, dilation, dilation};
    return kb_max_pool_nd(r, out, NULL, x, 3, k, s, p, d, ceil_mode);
}

extern "C" kb_tensor kb_avg_pool1d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                                   int ceil_mode, int count_include_pad)
{
    return kb_avg_pool_nd(r, out, x, 1, &kernel_size, &stride, &padding, ceil_mode, count_include_pad, 0);
}

extern "C" kb_tensor kb_avg_pool2d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                                   int ceil_mode, int count_include_pad, int divisor_override)
{
    const int k[2] = {kernel_size, kernel_size}, s[2] = {stride, stride}, p[2] = {padding, padding};
    return kb_avg_pool_nd(r, out, x, 2, k, s, p, ceil_mode, count_include_pad, divisor_override);
}

extern "C" kb_tensor kb_avg_pool3d(kb_ref *r, kb_tensor out, kb_tensor x, int kernel_size, int stride, int padding,
                                   int ceil_mode, int count_include_pad, int divisor_override)
{
    const int k[3] = {kernel_size, kernel_size, kernel_size}, s[3] = {stride, stride, stride},
              p[3] = {padding, padding, padding};
    return kb_avg_pool_nd(r, out, x, 3, k, s, p, ceil_mode, count_include_pad, divisor_override);
}

/* nn.AdaptiveAvgPool{1,2,3}d. AdaptivePooling.cpp / AdaptiveAveragePooling{,3d}.cpp: an output of 1
 * in every spatial dim is input.mean({-1, .., -nd}, keepdim = true), one reduction kernel
 * (adaptive_avg_pool1d is adaptive_avg_pool2d of the (.., 1, L) view with output (1, L_out), then
 * squeeze(-2): the same mean over L, the size-1 dim dropped by the iterator); any other output
 * size runs adaptive_avg_pool{2,3}d_out_cuda's kernels, which this library does not mirror: it
 * fails, saying so (no Level-2 problem pools to anything but 1). */
extern "C" kb_tensor kb_adaptive_avg_pool_nd(kb_ref *r, kb_tensor out, kb_tensor x, int nd, const int64_t *output_size)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    const char *op = nd == 1 ? "kb_adaptive_avg_pool1d" : nd == 2 ? "kb_adaptive_avg_pool2d" : "kb_adaptive_avg_pool3d";
    if (nd < 1 || nd > 3 || !output_size) {
        kb_ref_fail(r, "kb_adaptive_avg_pool_nd: %d spatial dimensions (1, 2 or 3) and an output size each", nd);
        return kb_ref_none();
    }
    if (x.ndim != nd + 1 && x.ndim != nd + 2) {
        kb_ref_fail(r, "%s: x must be %d-d (C, spatial) or %d-d (N, C, spatial), %d-d given", op, nd + 1, nd + 2,
                    x.ndim);
        return kb_ref_none();
    }
    int ones = 1;
    for (int i = 0; i < nd; i++) {
        if (output_size[i] < 0) {
            kb_ref_fail(r, "%s: output size %lld must be >= 0", op, (long long)output_size[i]);
            return kb_ref_none();
        }
        ones &= output_size[i] == 1;
    }
    if (!ones) {
        kb_ref_fail(r, "%s: only an output of 1 in every spatial dim (eager's mean) is implemented; "
                       "adaptive_avg_pool%dd_out_cuda's kernel is not mirrored",
                    op, nd == 1 ? 2 : nd);
        return kb_ref_none();
    }
    const int dims[3] = {-1, -2, -3};
    return kb_mean_dims(r, out, x, dims, nd, 1);
}
