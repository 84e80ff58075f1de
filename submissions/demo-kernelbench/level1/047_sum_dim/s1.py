# demo-kernelbench, level1/047_sum_dim, sample s1 (KernelBench format: ModelNew + load_inline).
# Demonstrates "wrong_answer": an off-by-one in the reduction loop. One thread per output column
# sums the reduced dim in 8 chunks (8 independent accumulators for memory-level parallelism), but
# each chunk's loop stops at (c + 1) * chunk - 1 (an inclusive end used as an exclusive bound), so
# it skips the last element of every chunk: 8 of the 4096 elements of the reduced dim, the last one
# included. The expected error is 8 x 0.5 = 4 per output (std ~0.8) against the standard check's
# allowance of atol + rtol * |y| = 1e-3 + 1e-3 * 2048 ~ 2.05, so nearly every output fails.
# (Skipping ONLY the very last element would not be caught by tau = 1e-3: that error is < 1,
# under the 2.05 allowance; only the strict magnitude bound sees it.)
# Expected: standard fail, paper fail, strict fail (the standard check already fails).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_dim_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define CHUNKS 8

// x is (B, R, J) contiguous; y[b, 0, j] = sum_r x[b, r, j]. One thread per (b, j).
__global__ void sum_dim1_kernel(const float* __restrict__ x, float* __restrict__ y,
                                int64_t B, int64_t R, int64_t J) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * J)
        return;
    const int64_t b = idx / J, j = idx % J;
    const float* p = x + b * R * J + j;
    const int64_t chunk = (R + CHUNKS - 1) / CHUNKS;
    float acc[CHUNKS];
#pragma unroll
    for (int c = 0; c < CHUNKS; c++)
        acc[c] = 0.0f;
    for (int64_t i = 0; i < chunk; i++) {
#pragma unroll
        for (int c = 0; c < CHUNKS; c++) {
            const int64_t r = c * chunk + i;
            const int64_t end = (c + 1) * chunk - 1 < R ? (c + 1) * chunk - 1 : R;  // BUG: off by one
            if (r < end)
                acc[c] += p[r * J];
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < CHUNKS; c++)
        s += acc[c];
    y[idx] = s;
}

torch::Tensor sum_dim1_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    TORCH_CHECK(x.dim() == 3, "x must be 3-D");
    x = x.contiguous();
    const int64_t B = x.size(0), R = x.size(1), J = x.size(2);
    auto y = torch::empty({B, 1, J}, x.options());
    const int threads = 256;
    const int64_t blocks = (B * J + threads - 1) / threads;
    sum_dim1_kernel<<<(unsigned)blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), B, R, J);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "sum_dim1_kernel launch failed");
    return y;
}
"""

sum_dim_cpp_source = "torch::Tensor sum_dim1_cuda(torch::Tensor x);"

sum_dim_ext = load_inline(
    name="kb_demo_sum_dim_s1",
    cpp_sources=sum_dim_cpp_source,
    cuda_sources=sum_dim_source,
    functions=["sum_dim1_cuda"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert self.dim == 1, "this kernel reduces dim 1"
        return sum_dim_ext.sum_dim1_cuda(x)
