# demo-kernelbench, level1/023_softmax, sample s1 (KernelBench format: ModelNew + load_inline).
# Demonstrates "build_failure": an older-style file that no longer builds under torch 2.11. It
# checks its launch with C10_CUDA_KERNEL_LAUNCH_CHECK() but never includes the header that defines
# the macro (<c10/cuda/CUDAException.h>); torch/extension.h does not pull it in, so nvcc stops with
# "identifier C10_CUDA_KERNEL_LAUNCH_CHECK is undefined". The kernel itself (one block per row,
# max and sum reductions in shared memory) would be correct.
# Expected: compile failure (expected_compile = compile_error); every later stage records it, and
# the sample counts as incorrect in every protocol.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
    extern __shared__ float red[];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;

    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        m = fmaxf(m, xr[j]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        sum += expf(xr[j] - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    sum = red[0];

    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = expf(xr[j] - m) / sum;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const int threads = 1024;
    softmax_kernel<<<(unsigned)x.size(0), threads, threads * sizeof(float)>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

softmax_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax_ext = load_inline(
    name="kb_demo_softmax_s1",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_source,
    functions=["softmax_cuda"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax_ext.softmax_cuda(x)
