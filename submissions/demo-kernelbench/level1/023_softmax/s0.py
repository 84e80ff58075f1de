# demo-kernelbench, level1/023_softmax, sample s0 (KernelBench format: ModelNew + load_inline).
# softmax(x, dim=1): clusters of 8 CTAs hold a row in shared memory (x read once), DSMEM merge.
# PORT of submissions/demo-tuned/level1/023_softmax/s0.cu: the same __global__ kernel code (copied verbatim, with
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
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CL 8          /* CTAs per cluster = slices per row */
#define THREADS 1024  /* threads per CTA (cluster kernel) */
#define WARPS (THREADS / 32)
#define PER 12        /* float4 per thread: slice = CL * THREADS * PER * 4 = 393216 columns max */
#define FB_THREADS 512
#define FB_WARPS (FB_THREADS / 32)

static __device__ __forceinline__ float nanmax(float a, float b) { return (b > a || b != b) ? b : a; }

/* Merge (m2, s2) into (m, s); both mean "sum of exp(v - m) over the values seen"; an empty side
 * is (-inf, 0). NaN in either max propagates into s through expf. */
static __device__ __forceinline__ void merge(float &m, float &s, float m2, float s2)
{
    const float mx = nanmax(m, m2);
    if (mx == -INFINITY)
        s = s + s2;
    else
        s = s * expf(m - mx) + s2 * expf(m2 - mx);
    m = mx;
}

/* Fold one float4 into the running pair. */
static __device__ __forceinline__ void fold4(float &m, float &s, float4 v)
{
    const float cm = nanmax(nanmax(v.x, v.y), nanmax(v.z, v.w));
    const float nm = nanmax(m, cm);
    if (!(nm == m)) { /* max grew, or became NaN */
        s = (m == -INFINITY) ? 0.0f : s * expf(m - nm);
        m = nm;
    }
    if (m != -INFINITY) /* all values so far -inf: they add nothing */
        s += (expf(v.x - m) + expf(v.y - m)) + (expf(v.z - m) + expf(v.w - m));
}

static __device__ __forceinline__ void warp_merge(float &m, float &s)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, off);
        const float s2 = __shfl_xor_sync(0xffffffffu, s, off);
        merge(m, s, m2, s2);
    }
}

template <int N>
static __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

/* Wait until at most PER-1-k groups are pending (k a compile-time constant after unrolling). */
static __device__ __forceinline__ void wait_chunk(int k)
{
    switch (PER - 1 - k) {
    case 11: cp_async_wait<11>(); break;
    case 10: cp_async_wait<10>(); break;
    case 9: cp_async_wait<9>(); break;
    case 8: cp_async_wait<8>(); break;
    case 7: cp_async_wait<7>(); break;
    case 6: cp_async_wait<6>(); break;
    case 5: cp_async_wait<5>(); break;
    case 4: cp_async_wait<4>(); break;
    case 3: cp_async_wait<3>(); break;
    case 2: cp_async_wait<2>(); break;
    case 1: cp_async_wait<1>(); break;
    default: cp_async_wait<0>(); break;
    }
}

static __device__ __forceinline__ void cp_async16(uint32_t dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/* gridDim.x = CL * clusters; cluster c handles rows c, c + clusters, ...; CTA rank r of a cluster
 * owns columns [r * slice, (r+1) * slice) with slice = cols / CL = THREADS * PER * 4 * (a
 * fraction <= 1): thread tid owns float4s tid + k * THREADS, k < PER, of the slice (those below
 * slice4). */
static __global__ void __launch_bounds__(THREADS, 1)
softmax_cluster(const float *__restrict__ x, float *__restrict__ y, int64_t rows, int64_t cols)
{
    extern __shared__ __align__(16) float4 buf[]; /* THREADS * PER float4 */
    __shared__ float wm[WARPS], ws[WARPS];
    __shared__ float2 pub[2]; /* this CTA's (max, sum), double-buffered by row parity */

    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank();
    const int64_t cid = blockIdx.x / CL, ncl = gridDim.x / CL;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int64_t slice4 = cols / 4 / CL;
    const int64_t cols4 = cols / 4;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float4 *y4 = reinterpret_cast<float4 *>(y);
    const uint32_t buf_s = (uint32_t)__cvta_generic_to_shared(buf);

    int64_t row = cid;
    if (row < rows) {
        const float4 *src = x4 + row * cols4 + rank * slice4;
#pragma unroll
        for (int k = 0; k < PER; k++) {
            const int64_t q = tid + (int64_t)k * THREADS;
            if (q < slice4)
                cp_async16(buf_s + (uint32_t)q * 16u, src + q);
            cp_async_commit(); /* one group per k, possibly empty */
        }
    }

    for (int it = 0; row < rows; it++, row += ncl) {
        /* 1. Running (max, sum) over this thread's float4s, as they land. */
        float m = -INFINITY, s = 0.0f;
#pragma unroll
        for (int k = 0; k < PER; k++) {
            wait_chunk(k);
            const int64_t q = tid + (int64_t)k * THREADS;
            if (q < slice4)
                fold4(m, s, buf[q]);
        }
        /* 2. Block merge, publish, cluster barrier, merge the 8 CTAs in rank order. */
        warp_merge(m, s);
        if (lane == 0) {
            wm[warp] = m;
            ws[warp] = s;
        }
        __syncthreads();
        if (warp == 0) {
            m = wm[lane]; /* WARPS == 32 */
            s = ws[lane];
            warp_merge(m, s);
            if (lane == 0)
                pub[it & 1] = make_float2(m, s);
        }
        cluster.sync(); /* release/acquire: every CTA's pub[it & 1] is visible to the cluster */
        float M = -INFINITY, S = 0.0f;
#pragma unroll
        for (int r = 0; r < CL; r++) {
            const float2 p = *cluster.map_shared_rank(&pub[it & 1], r);
            merge(M, S, p.x, p.y);
        }
        /* 3. Write this row's slice; refill each slot with the next row's float4 behind it. The
         * refill of slot q is issued after the store that consumed the old value (in-order issue;
         * the "memory" clobbers keep the compiler from hoisting it). */
        const int64_t next = row + ncl;
        float4 *dst = y4 + row * cols4 + rank * slice4;
        const float4 *nsrc = x4 + (next < rows ? next : row) * cols4 + rank * slice4;
#pragma unroll
        for (int k = 0; k < PER; k++) {
            const int64_t q = tid + (int64_t)k * THREADS;
            if (q < slice4) {
                float4 v = buf[q];
                v.x = expf(v.x - M) / S;
                v.y = expf(v.y - M) / S;
                v.z = expf(v.z - M) / S;
                v.w = expf(v.w - M) / S;
                __stcs(dst + q, v);
                if (next < rows)
                    cp_async16(buf_s + (uint32_t)q * 16u, nsrc + q);
            }
            cp_async_commit();
        }
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    cluster.sync(); /* peers may still be reading this CTA's pub[] */
}

/* ---- Fallback: one block per row, online pass then write pass (two reads of x). ---- */
static __global__ void __launch_bounds__(FB_THREADS)
softmax_rows(const float *__restrict__ x, float *__restrict__ y, int64_t cols)
{
    __shared__ float sm_m[FB_WARPS], sm_s[FB_WARPS];
    __shared__ float row_max, row_sum;
    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *yr = y + (int64_t)blockIdx.x * cols;
    float m = -INFINITY, s = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += FB_THREADS) {
        const float v = xr[j];
        fold4(m, s, make_float4(v, -INFINITY, -INFINITY, -INFINITY));
    }
    warp_merge(m, s);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        sm_m[warp] = m;
        sm_s[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        m = lane < FB_WARPS ? sm_m[lane] : -INFINITY;
        s = lane < FB_WARPS ? sm_s[lane] : 0.0f;
        warp_merge(m, s);
        if (lane == 0) {
            row_max = m;
            row_sum = s;
        }
    }
    __syncthreads();
    const float M = row_max, S = row_sum;
    for (int64_t j = threadIdx.x; j < cols; j += FB_THREADS)
        yr[j] = expf(xr[j] - M) / S;
}

torch::Tensor softmax_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    const int64_t rows = x.size(0), cols = x.size(1);
    TORCH_CHECK(rows > 0 && cols > 0 && rows <= 0x7fffffff, "bad shape");
    auto y = torch::empty_like(x);
    const float *xp = x.data_ptr<float>();
    float *yp = y.data_ptr<float>();
    cudaStream_t stream = at::cuda::getCurrentCUDAStream(); /* torch's current stream */

    const int fits = cols % (4 * CL) == 0 && cols / (4 * CL) <= (int64_t)THREADS * PER &&
                     (uintptr_t)xp % 16 == 0 && (uintptr_t)yp % 16 == 0;
    if (fits) {
        const size_t smem = (size_t)THREADS * PER * sizeof(float4);
        TORCH_CHECK(cudaFuncSetAttribute(softmax_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) ==
                        cudaSuccess,
                    "cudaFuncSetAttribute failed");
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = CL;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.blockDim = dim3(THREADS, 1, 1);
        cfg.dynamicSmemBytes = smem;
        cfg.stream = stream;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        cfg.gridDim = dim3((unsigned)(CL * (rows < 1024 ? rows : 1024)), 1, 1);
        int max_clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&max_clusters, softmax_cluster, &cfg) != cudaSuccess) {
            (void)cudaGetLastError(); /* clear; take the fallback */
            max_clusters = 0;
        }
        if (max_clusters > 0) {
            const int64_t ncl = rows < max_clusters ? rows : max_clusters;
            cfg.gridDim = dim3((unsigned)(CL * ncl), 1, 1);
            TORCH_CHECK(cudaLaunchKernelEx(&cfg, softmax_cluster, xp, yp, rows, cols) == cudaSuccess,
                        "cudaLaunchKernelEx failed");
            {
                const cudaError_t err = cudaGetLastError();
                TORCH_CHECK(err == cudaSuccess, "softmax_cluster launch failed: ", cudaGetErrorString(err));
            }
            return y;
        }
    }
    softmax_rows<<<(unsigned)rows, FB_THREADS, 0, stream>>>(xp, yp, cols);
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "softmax_rows launch failed: ", cudaGetErrorString(err));
    }
    return y;
}
"""

cpp_source = "torch::Tensor softmax_forward(torch::Tensor x);"

ext = load_inline(
    name="kb_demo_softmax_s0",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["softmax_forward"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.softmax_forward(x)
