# demo-kernelbench, level1/047_sum_dim, sample s0 (KernelBench format: ModelNew + load_inline).
# torch.sum(x, dim=1, keepdim=True): clusters of 8 row-split CTAs, double accumulation, DSMEM combine.
# PORT of submissions/demo-tuned/level1/047_sum_dim/s0.cu: the same __global__ kernel code (copied verbatim, with
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
#include <stdint.h>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 256 /* columns per cluster */
#define RS 8        /* CTAs per cluster = row splits */
#define U 8         /* rows unrolled: loads in flight per thread */

/* blockIdx.x = column block * RS + rank, blockIdx.y = batch. */
static __global__ void __cluster_dims__(RS, 1, 1) __launch_bounds__(THREADS)
sum_middle(const float *__restrict__ x, int64_t R, int64_t J, float *__restrict__ y)
{
    __shared__ double part[THREADS];
    cg::cluster_group cluster = cg::this_cluster();
    const int q = (int)cluster.block_rank();
    const int tx = threadIdx.x;
    const int64_t b = blockIdx.y;
    const int64_t cb = blockIdx.x / RS;
    const int64_t col = cb * THREADS + tx;
    const int64_t rows_per = (R + RS - 1) / RS;
    const int64_t r0 = (int64_t)q * rows_per;
    const int64_t r1 = r0 + rows_per < R ? r0 + rows_per : R;

    double acc = 0.0;
    if (col < J) {
        const float *p = x + b * R * J + col;
        int64_t i = r0;
        for (; i + (U - 1) < r1; i += U) {
            float v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                v[u] = __ldcs(p + (i + u) * J);
#pragma unroll
            for (int u = 0; u < U; u++)
                acc += (double)v[u];
        }
        for (; i < r1; i++)
            acc += (double)__ldcs(p + i * J);
    }
    part[tx] = acc;
    cluster.sync(); /* all 8 partial rows of the cluster are visible */

    if (tx < THREADS / RS) {
        const int c = q * (THREADS / RS) + tx;
        double s = 0.0;
#pragma unroll
        for (int r = 0; r < RS; r++)
            s += *cluster.map_shared_rank(&part[c], r);
        const int64_t oc = cb * THREADS + c;
        if (oc < J)
            y[b * J + oc] = (float)s;
    }
    cluster.sync(); /* peers may still be reading part[] */
}

torch::Tensor sum_dim1_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 3, "x must be 3-D");
    const int64_t B = x.size(0), R = x.size(1), J = x.size(2);
    TORCH_CHECK(B > 0 && R > 0 && J > 0, "bad shape");
    auto y = torch::empty({B, 1, J}, x.options());
    const int64_t gx = (J + THREADS - 1) / THREADS * RS;
    TORCH_CHECK(B <= 65535 && gx <= 0x7fffffff, "grid too large");
    sum_middle<<<dim3((unsigned)gx, (unsigned)B), THREADS>>>(x.data_ptr<float>(), R, J, y.data_ptr<float>());
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "sum_middle launch failed: ", cudaGetErrorString(err));
    }
    return y;
}
"""

cpp_source = "torch::Tensor sum_dim1_forward(torch::Tensor x);"

ext = load_inline(
    name="kb_demo_sum_dim_s0",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["sum_dim1_forward"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        if dim != 1:
            raise ValueError("this kernel reduces dim 1 of a 3-D tensor")
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.sum_dim1_forward(x)  # keepdim=True: (B, 1, J)
