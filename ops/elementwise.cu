/*
 * ops/elementwise.cu -- kb_op_unary: y[i] = op(x[i]) for the unfused activations (see kb/ops.h).
 *
 * Eager PyTorch runs each of these as one TensorIterator kernel, vectorized_elementwise_kernel
 * (ATen/native/cuda/CUDALoops.cuh): 128 threads per block (num_threads() on CUDA), each thread
 * one 16-byte vector (4 floats) per block-sized step, grid = ceil(n / 512), and the scalar
 * "unrolled" policy when the pointers are not 16-byte aligned. This file does the same with a
 * grid-stride loop and 64-bit indices, so one launch covers tensors above 2^31 elements (where
 * TensorIterator instead splits the work into 32-bit-indexable launches); with the grid sized
 * to the data every thread runs exactly one iteration, which is PyTorch's geometry.
 *
 * Math is PyTorch's, in float (the opmath type of float):
 *   relu       NaN stays NaN, else max(x, 0)            (relu is clamp_min(x, 0) in ATen)
 *   gelu       x * 0.5 * (1 + erf(x * M_SQRT1_2))       (GeluCUDAKernelImpl, approximate='none')
 *   gelu_tanh  0.5 * x * (1 + tanh(kBeta * (x + 0.044715 * x^3))), kBeta = sqrt(2/pi)
 *   sigmoid    1 / (1 + exp(-x))
 *   tanh       tanhf(x)
 *
 * Napkin math (L1/19 ReLU, L1/26 GELU: x (4096, 393216) fp32, 6 GiB): 6.44 GB read + 6.44 GB
 * written = 12.9 GB; at ~4.2 TB/s of read+write bandwidth that is ~3.1 ms, what eager PyTorch
 * takes on the H200 (ReLU 3.06 ms, GELU 3.17 ms median). erff/tanhf/expf cost ~20-40 FP32
 * instructions per element, while the H200 can issue ~100 FP32 operations in the time it moves
 * one element's 8 bytes (67 TFLOP/s vs 4.8 TB/s), so every op here is bound by memory, not math.
 * Measured on the H200 with this file: ReLU 3.00 ms, GELU 3.09 ms.
 */
#include <stdint.h>

#include "kb/ops.h"

namespace {

constexpr int kThreads = 128;    /* PyTorch num_threads() on CUDA */
constexpr int kThreadWork = 4;   /* elements per thread per step (one float4) */
constexpr int kBlockWork = kThreads * kThreadWork;

template <int OP>
__device__ __forceinline__ float unary_op(float x)
{
    if (OP == KB_UNARY_RELU) {
        return isnan(x) ? x : fmaxf(x, 0.0f);
    } else if (OP == KB_UNARY_GELU) {
        const float kAlpha = 0.70710678118654752440f; /* M_SQRT1_2 */
        return x * 0.5f * (1.0f + erff(x * kAlpha));
    } else if (OP == KB_UNARY_GELU_TANH) {
        /* M_SQRT2 * M_2_SQRTPI * 0.5 evaluated in double, then rounded to float, as PyTorch's
         * constexpr does. */
        const float kBeta = (float)(1.41421356237309504880 * 1.12837916709551257390 * 0.5);
        const float kKappa = 0.044715f;
        const float x_cube = x * x * x;
        const float inner = kBeta * (x + kKappa * x_cube);
        return 0.5f * x * (1.0f + tanhf(inner));
    } else if (OP == KB_UNARY_SIGMOID) {
        return 1.0f / (1.0f + expf(-x));
    } else {
        return tanhf(x);
    }
}

/* x and y 16-byte aligned: nvec float4 vectors, then the n % 4 tail elements at 4 * nvec done
 * by the first threads of block 0. x may equal y (in place), so no __restrict__. */
template <int OP>
__global__ void __launch_bounds__(kThreads)
unary_vec4_kernel(const float *x, float *y, int64_t nvec, int tail)
{
    const float4 *xv = reinterpret_cast<const float4 *>(x);
    float4 *yv = reinterpret_cast<float4 *>(y);
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += step) {
        float4 v = xv[i];
        v.x = unary_op<OP>(v.x);
        v.y = unary_op<OP>(v.y);
        v.z = unary_op<OP>(v.z);
        v.w = unary_op<OP>(v.w);
        yv[i] = v;
    }
    if (blockIdx.x == 0 && (int)threadIdx.x < tail) {
        const int64_t i = nvec * 4 + threadIdx.x;
        y[i] = unary_op<OP>(x[i]);
    }
}

/* Unaligned pointers: PyTorch's unrolled policy, 4 elements per thread at stride kThreads so
 * a warp's accesses stay coalesced. */
template <int OP>
__global__ void __launch_bounds__(kThreads)
unary_scalar_kernel(const float *x, float *y, int64_t n)
{
    const int64_t step = (int64_t)gridDim.x * kBlockWork;
    for (int64_t base = (int64_t)blockIdx.x * kBlockWork; base < n; base += step) {
        float v[kThreadWork];
#pragma unroll
        for (int j = 0; j < kThreadWork; j++) {
            const int64_t i = base + threadIdx.x + (int64_t)j * kThreads;
            if (i < n)
                v[j] = x[i];
        }
#pragma unroll
        for (int j = 0; j < kThreadWork; j++) {
            const int64_t i = base + threadIdx.x + (int64_t)j * kThreads;
            if (i < n)
                y[i] = unary_op<OP>(v[j]);
        }
    }
}

/* Grid size for `work` items of `per_block` each: one block per chunk, as PyTorch launches,
 * capped at the gridDim.x limit (the grid-stride loops cover the rest). */
static unsigned int grid_for(int64_t work, int64_t per_block)
{
    int64_t blocks = (work + per_block - 1) / per_block;
    if (blocks < 1)
        blocks = 1;
    if (blocks > INT32_MAX)
        blocks = INT32_MAX;
    return (unsigned int)blocks;
}

template <int OP>
static int launch_unary(kb_ctx *ctx, const float *x, float *y, int64_t n)
{
    cudaStream_t stream = kb_ctx_stream(ctx);
    const int aligned = (((uintptr_t)x | (uintptr_t)y) % 16) == 0;
    if (aligned) {
        const int64_t nvec = n / 4;
        const int tail = (int)(n - nvec * 4);
        unary_vec4_kernel<OP><<<grid_for(nvec, kThreads), kThreads, 0, stream>>>(x, y, nvec, tail);
    } else {
        unary_scalar_kernel<OP><<<grid_for(n, kBlockWork), kThreads, 0, stream>>>(x, y, n);
    }
    KB_OP_LAUNCHED(ctx);
    return 0;
}

} /* namespace */

extern "C" int kb_op_unary(kb_ctx *ctx, kb_unary op, const float *x, float *y, int64_t n)
{
    if (n < 0)
        return kb_ctx_fail(ctx, "kb_op_unary: negative element count %lld", (long long)n);
    if (n == 0)
        return 0;
    if (!x || !y)
        return kb_ctx_fail(ctx, "kb_op_unary: NULL tensor pointer");
    switch (op) {
    case KB_UNARY_RELU: return launch_unary<KB_UNARY_RELU>(ctx, x, y, n);
    case KB_UNARY_GELU: return launch_unary<KB_UNARY_GELU>(ctx, x, y, n);
    case KB_UNARY_GELU_TANH: return launch_unary<KB_UNARY_GELU_TANH>(ctx, x, y, n);
    case KB_UNARY_SIGMOID: return launch_unary<KB_UNARY_SIGMOID>(ctx, x, y, n);
    case KB_UNARY_TANH: return launch_unary<KB_UNARY_TANH>(ctx, x, y, n);
    }
    return kb_ctx_fail(ctx, "kb_op_unary: unknown op %d", (int)op);
}
