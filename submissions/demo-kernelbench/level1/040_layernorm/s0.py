# demo-kernelbench, level1/040_layernorm, sample s0 (KernelBench format: ModelNew + load_inline).
# LayerNorm over the last 3 dims: 128 blocks/row double partial stats, finalize, normalise.
# PORT of submissions/demo-tuned/level1/040_layernorm/s0.cu: the same __global__ kernel code (copied verbatim, with
# its helpers and constants) and the same launch configuration (grid, block, dynamic shared
# memory, kernel attributes); only the torch::Tensor launcher around it is new (it replaces
# kb_forward: TORCH_CHECKs instead of return 1, torch::empty* instead of harness outputs and
# cudaMallocAsync scratch). The same kernel is timed through both submission kinds; the two
# times must agree within 2%.
# Stream: like most real files, every launch uses <<<grid, block>>> on the legacy default stream
# (stream 0); scratch and outputs come from torch's caching allocator.
# Expected: correct (standard pass, paper pass, strict pass).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define SPLITS 128    /* stats blocks per row */
#define STAT_UNROLL 8 /* float4 loads in flight per thread in pass 1 */
#define NORM_V4 4     /* float4 per thread in pass 3: a block covers 4096 elements */
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

/* Block L: split s = L / B, row r = L % B (split-major, row innermost). Slice [s*slice4,
 * min((s+1)*slice4, D4)) of row r, in float4 units. */
static __global__ void __launch_bounds__(THREADS)
ln_partials(const float4 *__restrict__ x4, int64_t B, int64_t D4, int64_t slice4, double2 *__restrict__ partial)
{
    __shared__ double sm[WARPS];
    const int64_t L = blockIdx.x;
    const int64_t s_idx = L / B, r = L % B;
    const int64_t begin = s_idx * slice4;
    const int64_t end = begin + slice4 < D4 ? begin + slice4 : D4;
    const float4 *xr = x4 + r * D4;
    double s = 0.0, q = 0.0;
    for (int64_t j = begin + threadIdx.x; j < end; j += (int64_t)STAT_UNROLL * THREADS) {
        float4 v[STAT_UNROLL];
#pragma unroll
        for (int u = 0; u < STAT_UNROLL; u++) {
            const int64_t jj = j + (int64_t)u * THREADS;
            v[u] = jj < end ? __ldg(xr + jj) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < STAT_UNROLL; u++) {
            const double a = v[u].x, b = v[u].y, c = v[u].z, d = v[u].w;
            s += (a + b) + (c + d);
            q += (a * a + b * b) + (c * c + d * d);
        }
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0)
        partial[r * SPLITS + s_idx] = make_double2(s, q);
}

/* One warp per row: stats[r] = {mean, rstd}. */
static __global__ void __launch_bounds__(32)
ln_finalize(const double2 *__restrict__ partial, int64_t D, int64_t nsplit, float2 *__restrict__ stats)
{
    const int64_t r = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (int64_t i = threadIdx.x; i < nsplit; i += 32) {
        const double2 pq = partial[r * SPLITS + i];
        s += pq.x;
        q += pq.y;
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        s += __shfl_xor_sync(0xffffffffu, s, off);
        q += __shfl_xor_sync(0xffffffffu, q, off);
    }
    if (threadIdx.x == 0) {
        const double mean = s / (double)D;
        double var = q / (double)D - mean * mean;
        if (var < 0.0)
            var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative; NaN stays NaN */
        stats[r] = make_float2((float)mean, (float)(1.0 / sqrt(var + EPS)));
    }
}

/* Block L (reversed: L' = gridDim.x - 1 - L): chunk c = L' / B, row r = L' % B; the chunk is
 * NORM_V4 * THREADS float4 of the row. */
static __global__ void __launch_bounds__(THREADS)
ln_normalize(const float4 *__restrict__ x4, const float2 *__restrict__ stats, const float4 *__restrict__ w4,
             const float4 *__restrict__ b4, int64_t B, int64_t D4, float4 *__restrict__ y4)
{
    const int64_t L = (int64_t)gridDim.x - 1 - blockIdx.x;
    const int64_t c = L / B, r = L % B;
    const float2 st = stats[r];
    const float mean = st.x, rstd = st.y;
    const int64_t j0 = c * (NORM_V4 * THREADS) + threadIdx.x;
    float4 v[NORM_V4], w[NORM_V4], b[NORM_V4];
#pragma unroll
    for (int u = 0; u < NORM_V4; u++) {
        const int64_t j = j0 + (int64_t)u * THREADS;
        if (j < D4) {
            v[u] = __ldcs(x4 + r * D4 + j); /* last use of x */
            w[u] = __ldg(w4 + j);           /* re-read by the other rows: keep cached */
            b[u] = __ldg(b4 + j);
        }
    }
#pragma unroll
    for (int u = 0; u < NORM_V4; u++) {
        const int64_t j = j0 + (int64_t)u * THREADS;
        if (j < D4) {
            float4 o;
            o.x = (v[u].x - mean) * rstd * w[u].x + b[u].x;
            o.y = (v[u].y - mean) * rstd * w[u].y + b[u].y;
            o.z = (v[u].z - mean) * rstd * w[u].z + b[u].z;
            o.w = (v[u].w - mean) * rstd * w[u].w + b[u].w;
            __stcs(y4 + r * D4 + j, o);
        }
    }
}

static int aligned16(const void *p) { return ((uintptr_t)p % 16) == 0; }

torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b)
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
    TORCH_CHECK(x.dim() == 4 && w.dim() == 3 && b.dim() == 3, "x must be 4-D, weight and bias 3-D");
    for (int d = 0; d < 3; d++)
        TORCH_CHECK(w.size(d) == x.size(d + 1) && b.size(d) == x.size(d + 1), "weight/bias shape mismatch");
    const int64_t B = x.size(0), D = x.size(1) * x.size(2) * x.size(3);
    TORCH_CHECK(B > 0 && D > 0 && D % 4 == 0, "bad shape");
    auto y = torch::empty_like(x);
    TORCH_CHECK(aligned16(x.data_ptr<float>()) && aligned16(w.data_ptr<float>()) && aligned16(b.data_ptr<float>()) &&
                    aligned16(y.data_ptr<float>()),
                "tensors must be 16-byte aligned");
    const int64_t D4 = D / 4;
    const int64_t slice4 = (D4 + SPLITS - 1) / SPLITS;
    const int64_t nsplit = (D4 + slice4 - 1) / slice4; /* <= SPLITS, every split non-empty */
    const int64_t chunks = (D4 + NORM_V4 * THREADS - 1) / (NORM_V4 * THREADS);
    TORCH_CHECK(B * nsplit <= 0x7fffffff && B * chunks <= 0x7fffffff, "grid too large");

    /* scratch: per-(row, split) double sums, then per-row (mean, rstd) */
    auto partial_t = torch::empty({B * SPLITS * 2}, x.options().dtype(torch::kFloat64));
    auto stats_t = torch::empty({B * 2}, x.options());
    double2 *partial = reinterpret_cast<double2 *>(partial_t.data_ptr<double>());
    float2 *stats = reinterpret_cast<float2 *>(stats_t.data_ptr<float>());

    ln_partials<<<(unsigned)(B * nsplit), THREADS>>>((const float4 *)x.data_ptr<float>(), B, D4, slice4, partial);
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "ln_partials launch failed: ", cudaGetErrorString(err));
    }
    ln_finalize<<<(unsigned)B, 32>>>(partial, D, nsplit, stats);
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "ln_finalize launch failed: ", cudaGetErrorString(err));
    }
    ln_normalize<<<(unsigned)(B * chunks), THREADS>>>((const float4 *)x.data_ptr<float>(), stats,
                                                     (const float4 *)w.data_ptr<float>(),
                                                     (const float4 *)b.data_ptr<float>(), B, D4,
                                                     (float4 *)y.data_ptr<float>());
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "ln_normalize launch failed: ", cudaGetErrorString(err));
    }
    return y;
}
"""

cpp_source = "torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b);"

ext = load_inline(
    name="kb_demo_layernorm_s0",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["layernorm_forward"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        # Same submodule as the problem's Model, so the parameters are ln.weight and ln.bias.
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Normalises over the last 3 dims with eps = 1e-5 (the kernel's EPS, nn.LayerNorm's default).
        return ext.layernorm_forward(x, self.ln.weight, self.ln.bias)
