# demo-kernelbench, level1/026_gelu, sample s0 (KernelBench format: ModelNew + load_inline).
# y = gelu(x), exact erf form: persistent grid-stride kernel with erff, 4 x 16-byte loads per thread.
# PORT of submissions/demo-tuned/level1/026_gelu/s0.cu: the same __global__ kernel code (copied verbatim, with
# its helpers and constants) and the same launch configuration (grid, block, dynamic shared
# memory, kernel attributes); only the torch::Tensor launcher around it is new (it replaces
# kb_forward: TORCH_CHECKs instead of return 1, torch::empty* instead of harness outputs and
# cudaMallocAsync scratch). The same kernel is timed through both submission kinds; the two
# times must agree within 2%.
# Stream: like most real files, every launch uses <<<grid, block>>> on the legacy default stream
# (stream 0); scratch and outputs come from torch's caching allocator.
# Expected: correct (standard pass, paper pass, strict pass): the exact erf GELU, evaluated as PyTorch does.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <cuda_runtime.h>

#define THREADS 256
#define UNROLL 4 /* independent 16-byte loads in flight per thread */

static __device__ __forceinline__ float op1(float v)
{
    const float kAlpha = 0.70710678118654752440f; /* 1/sqrt(2) */
    return v * 0.5f * (1.0f + erff(v * kAlpha));
}

static __device__ __forceinline__ float4 op4(float4 v)
{
    v.x = op1(v.x);
    v.y = op1(v.y);
    v.z = op1(v.z);
    v.w = op1(v.w);
    return v;
}

/* Grid-stride loop over the n4 float4s (UNROLL of them per thread per trip, each a grid-stride
 * apart so that every load instruction of a warp covers 512 contiguous bytes), then the n - 4*n4
 * trailing floats one per thread. n4 = 0 (unaligned buffers) makes everything scalar. Every
 * element is visited exactly once: float4 q by the thread with q % stride == its id, float
 * 4*n4 + e likewise. */
static __global__ void __launch_bounds__(THREADS)
ew_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t n4, int64_t n)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    const int64_t tid = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float4 *y4 = reinterpret_cast<float4 *>(y);

    int64_t i = tid;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = __ldcs(x4 + i + u * stride); /* streaming: touched once */
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            __stcs(y4 + i + u * stride, op4(v[u]));
    }
    for (; i < n4; i += stride)
        __stcs(y4 + i, op4(__ldcs(x4 + i)));
    for (int64_t j = 4 * n4 + tid; j < n; j += stride)
        y[j] = op1(x[j]);
}

torch::Tensor gelu_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0)
        return y;
    const float *xp = x.data_ptr<float>();
    float *yp = y.data_ptr<float>();

    /* Persistent grid: as many blocks as fit on the GPU at once (the occupancy calculator
     * accounts for this kernel's register count), never more than there is work for. */
    int dev = 0, sms = 0, per_sm = 0;
    TORCH_CHECK(cudaGetDevice(&dev) == cudaSuccess &&
                    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
                    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ew_kernel, THREADS, 0) == cudaSuccess,
                "device query failed");
    TORCH_CHECK(sms > 0 && per_sm > 0, "no SMs or zero occupancy");

    const int aligned = ((uintptr_t)xp % 16 == 0) && ((uintptr_t)yp % 16 == 0);
    const int64_t n4 = aligned ? n / 4 : 0;
    const int64_t work = n4 + (n - 4 * n4); /* vector items + scalar items */
    int64_t blocks = (int64_t)sms * per_sm;
    const int64_t need = (work + THREADS - 1) / THREADS;
    if (blocks > need)
        blocks = need;

    ew_kernel<<<(unsigned)blocks, THREADS>>>(xp, yp, n4, n);
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "gelu kernel launch failed: ", cudaGetErrorString(err));
    }
    return y;
}
"""

cpp_source = "torch::Tensor gelu_forward(torch::Tensor x);"

ext = load_inline(
    name="kb_demo_gelu_s0",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["gelu_forward"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.gelu_forward(x)
