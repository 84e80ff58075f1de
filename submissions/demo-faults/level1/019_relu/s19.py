# demo-faults, level1/019_relu, sample s19 (KernelBench format): DELIBERATE FAULT.
# Fault "build_writes_outside": the build asks the linker to write a map file outside its build
# directory (extra_ldflags=["-Wl,-Map=/tmp/kb-fault-s19"]). The compile stage builds every sample in
# its own build directory and must refuse a build that writes anywhere else (flag check or build
# sandbox), so this sample ends as a compile failure; /tmp/kb-fault-s19 must not exist afterwards.
# The ReLU source itself is correct and builds without that flag.
# Expected: expected_compile = compile_error; outcome compile_error.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        y[i] = v < 0.0f ? 0.0f : v;
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    const int threads = 256;
    const int64_t blocks = (n + threads - 1) / threads;
    if (n > 0)
        relu_kernel<<<(unsigned)blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "relu_kernel launch failed");
    return y;
}
"""

relu_cpp_source = "torch::Tensor relu_cuda(torch::Tensor x);"

relu_ext = load_inline(
    name="kb_fault_relu_s19",
    cpp_sources=relu_cpp_source,
    cuda_sources=relu_source,
    functions=["relu_cuda"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
    extra_ldflags=["-Wl,-Map=/tmp/kb-fault-s19"],  # THE FAULT: a write outside the build directory
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return relu_ext.relu_cuda(x)
