# demo-kernelbench, level1/033_batchnorm, sample s0 (KernelBench format: ModelNew + load_inline).
# BatchNorm2d, training mode: double-precision partial statistics, per-channel finalize, normalise.
# PORT of submissions/demo-tuned/level1/033_batchnorm/s0.cu: the same __global__ kernel code (copied verbatim, with
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
#define PARTS 4  /* stats blocks per plane */
#define UNROLL 8 /* float4 loads in flight per thread */
#define EPS 1e-5

/* Sum over the block in a fixed order; valid in thread 0. sm: WARPS doubles. */
static __device__ __forceinline__ double block_sum(double v, double *sm)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads(); /* sm may still be read by a previous call */
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = 0.0;
    if (threadIdx.x == 0)
        for (int w = 0; w < WARPS; w++)
            v += sm[w];
    return v;
}

/* Block L: plane P = L / PARTS (P = n*C + c), part p = L % PARTS covering float4s
 * [p*part4, min((p+1)*part4, HW4)) of the plane. */
static __global__ void __launch_bounds__(THREADS)
bn_partials(const float4 *__restrict__ x4, int64_t C, int64_t HW4, int64_t part4, double2 *__restrict__ partial,
            int64_t nparts_per_channel)
{
    __shared__ double sm[WARPS];
    const int64_t L = blockIdx.x;
    const int64_t P = L / PARTS, p = L % PARTS;
    const int64_t n = P / C, c = P % C;
    const int64_t begin = p * part4;
    const int64_t end = begin + part4 < HW4 ? begin + part4 : HW4;
    const float4 *xp = x4 + P * HW4;
    double s = 0.0, q = 0.0;
    for (int64_t j = begin + threadIdx.x; j < end; j += (int64_t)UNROLL * THREADS) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const int64_t jj = j + (int64_t)u * THREADS;
            v[u] = jj < end ? __ldg(xp + jj) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const double a = v[u].x, b = v[u].y, cc = v[u].z, d = v[u].w;
            s += (a + b) + (cc + d);
            q += (a * a + b * b) + (cc * cc + d * d);
        }
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0)
        partial[c * nparts_per_channel + n * PARTS + p] = make_double2(s, q);
}

/* One warp per channel: stats[c] = {mean, invstd}. */
static __global__ void __launch_bounds__(32)
bn_finalize(const double2 *__restrict__ partial, int64_t nparts_per_channel, double count, float2 *__restrict__ stats)
{
    const int64_t c = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (int64_t i = threadIdx.x; i < nparts_per_channel; i += 32) {
        const double2 pq = partial[c * nparts_per_channel + i];
        s += pq.x;
        q += pq.y;
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        s += __shfl_xor_sync(0xffffffffu, s, off);
        q += __shfl_xor_sync(0xffffffffu, q, off);
    }
    if (threadIdx.x == 0) {
        const double mean = s / count;
        double var = q / count - mean * mean;
        if (var < 0.0)
            var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative; NaN stays NaN */
        stats[c] = make_float2((float)mean, (float)(1.0 / sqrt(var + EPS)));
    }
}

/* Block L' = gridDim.x - 1 - blockIdx.x (reverse order): plane P = L' / chunks, chunk k = L' %
 * chunks of UNROLL * THREADS float4. */
static __global__ void __launch_bounds__(THREADS)
bn_normalize(const float4 *__restrict__ x4, const float2 *__restrict__ stats, const float *__restrict__ w,
             const float *__restrict__ b, int64_t C, int64_t HW4, int64_t chunks, float4 *__restrict__ y4)
{
    const int64_t L = (int64_t)gridDim.x - 1 - blockIdx.x;
    const int64_t P = L / chunks, k = L % chunks;
    const int64_t c = P % C;
    const float2 st = stats[c];
    const float mean = st.x, invstd = st.y, wc = w[c], bc = b[c];
    const float4 *xp = x4 + P * HW4;
    float4 *yp = y4 + P * HW4;
    const int64_t j0 = k * (UNROLL * THREADS) + threadIdx.x;
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const int64_t j = j0 + (int64_t)u * THREADS;
        if (j < HW4)
            v[u] = __ldcs(xp + j);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const int64_t j = j0 + (int64_t)u * THREADS;
        if (j < HW4) {
            float4 o;
            o.x = (v[u].x - mean) * invstd * wc + bc;
            o.y = (v[u].y - mean) * invstd * wc + bc;
            o.z = (v[u].z - mean) * invstd * wc + bc;
            o.w = (v[u].w - mean) * invstd * wc + bc;
            __stcs(yp + j, o);
        }
    }
}

static int aligned16(const void *p) { return ((uintptr_t)p % 16) == 0; }

torch::Tensor batchnorm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(w.is_cuda(), "w must be a CUDA tensor");
    TORCH_CHECK(w.scalar_type() == torch::kFloat32, "w must be float32");
    TORCH_CHECK(w.is_contiguous(), "w must be contiguous");
    TORCH_CHECK(b.is_cuda(), "b must be a CUDA tensor");
    TORCH_CHECK(b.scalar_type() == torch::kFloat32, "b must be float32");
    TORCH_CHECK(b.is_contiguous(), "b must be contiguous");
    TORCH_CHECK(x.dim() == 4 && w.dim() == 1 && b.dim() == 1, "x must be 4-D, weight and bias 1-D");
    const int64_t N = x.size(0), C = x.size(1), HW = x.size(2) * x.size(3);
    TORCH_CHECK(w.size(0) == C && b.size(0) == C && N > 0 && C > 0 && HW > 0 && HW % 4 == 0, "bad shape");
    auto y = torch::empty_like(x);
    TORCH_CHECK(aligned16(x.data_ptr<float>()) && aligned16(y.data_ptr<float>()), "x and y must be 16-byte aligned");
    const int64_t HW4 = HW / 4;
    const int64_t part4 = (HW4 + PARTS - 1) / PARTS; /* the last part may be short (or empty) */
    const int64_t nparts_per_channel = N * PARTS;
    const int64_t chunks = (HW4 + UNROLL * THREADS - 1) / (UNROLL * THREADS);
    TORCH_CHECK(N * C * PARTS <= 0x7fffffff && N * C * chunks <= 0x7fffffff && C <= 0x7fffffff, "grid too large");

    cudaStream_t st = at::cuda::getCurrentCUDAStream(); /* torch's current stream */
    /* scratch: per-(channel, image, part) double sums, then per-channel (mean, invstd) */
    auto partial_t = torch::empty({C * nparts_per_channel * 2}, x.options().dtype(torch::kFloat64));
    auto stats_t = torch::empty({C * 2}, x.options());
    double2 *partial = reinterpret_cast<double2 *>(partial_t.data_ptr<double>());
    float2 *stats = reinterpret_cast<float2 *>(stats_t.data_ptr<float>());

    bn_partials<<<(unsigned)(N * C * PARTS), THREADS, 0, st>>>((const float4 *)x.data_ptr<float>(), C, HW4, part4,
                                                               partial, nparts_per_channel);
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "bn_partials launch failed: ", cudaGetErrorString(err));
    }
    bn_finalize<<<(unsigned)C, 32, 0, st>>>(partial, nparts_per_channel, (double)(N * HW), stats);
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "bn_finalize launch failed: ", cudaGetErrorString(err));
    }
    bn_normalize<<<(unsigned)(N * C * chunks), THREADS, 0, st>>>((const float4 *)x.data_ptr<float>(), stats,
                                                                w.data_ptr<float>(), b.data_ptr<float>(), C, HW4,
                                                                chunks, (float4 *)y.data_ptr<float>());
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "bn_normalize launch failed: ", cudaGetErrorString(err));
    }
    return y;
}
"""

cpp_source = "torch::Tensor batchnorm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b);"

ext = load_inline(
    name="kb_demo_batchnorm_s0",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["batchnorm_forward"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        # Same submodule as the problem's Model, so the parameters are bn.weight and bn.bias.
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Training-mode batch statistics (eps = 1e-5, the kernel's EPS); running stats are not updated.
        return ext.batchnorm_forward(x, self.bn.weight, self.bn.bias)
