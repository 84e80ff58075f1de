# demo-kernelbench, level1/095_cross_entropy, sample s0 (KernelBench format: ModelNew + load_inline).
# cross_entropy(predictions, int64 targets), mean: block per row in registers, fixed-order double mean.
# PORT of submissions/demo-tuned/level1/095_cross_entropy/s0.cu: the same __global__ kernel code (copied verbatim, with
# its helpers and constants) and the same launch configuration (grid, block, dynamic shared
# memory, kernel attributes); only the torch::Tensor launcher around it is new (it replaces
# kb_forward: TORCH_CHECKs instead of return 1, torch::empty* instead of harness outputs and
# cudaMallocAsync scratch). The same kernel is timed through both submission kinds; the two
# times must agree within 2%.
# Stream: this file launches on at::cuda::getCurrentCUDAStream() (as the minority of real files
# do), so that both launch styles are covered; scratch and outputs come from torch's caching
# allocator.
# Expected: correct (standard pass, paper pass, strict pass).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define V4 4 /* float4 per thread kept in registers: rows up to THREADS * V4 * 4 = 4096 */
#define MEAN_THREADS 1024
#define IGNORE_INDEX (-100)

static __device__ __forceinline__ float nanmax(float a, float b) { return (b > a || b != b) ? b : a; }

/* Block-wide NaN-propagating max; every thread gets the result. sm: WARPS floats. */
static __device__ __forceinline__ float block_max(float v, float *sm)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v = nanmax(v, __shfl_xor_sync(0xffffffffu, v, off));
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads(); /* sm may still be read by a previous call */
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = sm[0];
#pragma unroll
    for (int w = 1; w < WARPS; w++)
        v = nanmax(v, sm[w]);
    return v;
}

/* Block-wide sum in a fixed order; every thread gets the result. */
static __device__ __forceinline__ float block_sum(float v, float *sm)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = 0.0f;
#pragma unroll
    for (int w = 0; w < WARPS; w++)
        v += sm[w];
    return v;
}

/* vec: C % 4 == 0, C <= THREADS*V4*4 and x 16-byte aligned: the row lives in registers. */
static __global__ void __launch_bounds__(THREADS)
row_loss(const float *__restrict__ x, const int64_t *__restrict__ targets, int64_t C, int vec,
         float *__restrict__ loss, float *__restrict__ valid)
{
    __shared__ float sm[WARPS];
    const int64_t r = blockIdx.x;
    const float *xr = x + r * C;
    float m = -INFINITY, s = 0.0f;

    if (vec) {
        const float4 *xr4 = reinterpret_cast<const float4 *>(xr);
        const int64_t C4 = C / 4;
        float4 v[V4];
#pragma unroll
        for (int k = 0; k < V4; k++) {
            const int64_t j = threadIdx.x + (int64_t)k * THREADS;
            v[k] = j < C4 ? __ldcs(xr4 + j) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        }
#pragma unroll
        for (int k = 0; k < V4; k++)
            m = nanmax(m, nanmax(nanmax(v[k].x, v[k].y), nanmax(v[k].z, v[k].w)));
        m = block_max(m, sm);
        if (m != -INFINITY) { /* all -inf: s stays 0 and x[t] - max = NaN makes the loss NaN, as in PyTorch */
#pragma unroll
            for (int k = 0; k < V4; k++)
                s += (expf(v[k].x - m) + expf(v[k].y - m)) + (expf(v[k].z - m) + expf(v[k].w - m));
        }
        s = block_sum(s, sm);
    } else {
        for (int64_t j = threadIdx.x; j < C; j += THREADS)
            m = nanmax(m, xr[j]);
        m = block_max(m, sm);
        if (m != -INFINITY)
            for (int64_t j = threadIdx.x; j < C; j += THREADS)
                s += expf(xr[j] - m);
        s = block_sum(s, sm);
    }

    if (threadIdx.x == 0) {
        const int64_t t = targets[r];
        if (t == IGNORE_INDEX) {
            loss[r] = 0.0f;
            valid[r] = 0.0f;
        } else if (t < 0 || t >= C) {
            loss[r] = NAN;
            valid[r] = 1.0f;
        } else {
            loss[r] = logf(s) - (xr[t] - m);
            valid[r] = 1.0f;
        }
    }
}

static __global__ void __launch_bounds__(MEAN_THREADS)
mean_loss(const float *__restrict__ loss, const float *__restrict__ valid, int64_t R, float *__restrict__ out)
{
    __shared__ double sl[MEAN_THREADS], sc[MEAN_THREADS];
    double l = 0.0, c = 0.0;
    for (int64_t i = threadIdx.x; i < R; i += MEAN_THREADS) {
        l += (double)loss[i];
        c += (double)valid[i];
    }
    sl[threadIdx.x] = l;
    sc[threadIdx.x] = c;
    __syncthreads();
    for (int half = MEAN_THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            sl[threadIdx.x] += sl[threadIdx.x + half];
            sc[threadIdx.x] += sc[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[0] = (float)(sl[0] / sc[0]); /* 0/0 = NaN when every target is ignored */
}

torch::Tensor cross_entropy_forward(torch::Tensor x, torch::Tensor t)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(t.is_cuda() && t.scalar_type() == torch::kInt64 && t.is_contiguous(), "targets must be CUDA int64");
    TORCH_CHECK(x.dim() == 2 && t.dim() == 1, "predictions must be 2-D, targets 1-D");
    const int64_t R = x.size(0), C = x.size(1);
    TORCH_CHECK(t.size(0) == R && R > 0 && C > 0 && R <= 0x7fffffff, "bad shape"); /* one block per row */
    const int vec = C % 4 == 0 && C <= (int64_t)THREADS * V4 * 4 && (uintptr_t)x.data_ptr<float>() % 16 == 0;

    cudaStream_t st = at::cuda::getCurrentCUDAStream(); /* torch's current stream */
    auto out = torch::empty({}, x.options());  /* the 0-dim mean loss */
    auto loss = torch::empty({2 * R}, x.options()); /* per-row loss, then per-row valid flag */
    row_loss<<<(unsigned)R, THREADS, 0, st>>>(x.data_ptr<float>(), t.data_ptr<int64_t>(), C, vec,
                                              loss.data_ptr<float>(), loss.data_ptr<float>() + R);
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "row_loss launch failed: ", cudaGetErrorString(err));
    }
    mean_loss<<<1, MEAN_THREADS, 0, st>>>(loss.data_ptr<float>(), loss.data_ptr<float>() + R, R,
                                          out.data_ptr<float>());
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "mean_loss launch failed: ", cudaGetErrorString(err));
    }
    return out;
}
"""

cpp_source = "torch::Tensor cross_entropy_forward(torch::Tensor x, torch::Tensor t);"

ext = load_inline(
    name="kb_demo_cross_entropy_s0",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["cross_entropy_forward"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return ext.cross_entropy_forward(predictions, targets)
