# demo-faults, level1/019_relu, sample s18 (KernelBench format): DELIBERATE FAULT.
# Fault "py_toplevel_system": the module's top level runs os.system("touch /tmp/kb-fault-s18")
# when the file is imported. The compile stage reads the load_inline call statically (ast) and
# never runs the file, so the build succeeds; the command runs only when the runner imports the
# file inside the sandbox, where the shell's fork/exec (clone without CLONE_THREAD) is trapped.
# Expected: expected_compile = ok; outcome sandbox_violation; /tmp/kb-fault-s18 must not exist
# afterwards. The ReLU itself is correct.
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

os.system("touch /tmp/kb-fault-s18")  # THE FAULT: a process spawned at import time

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
    name="kb_fault_relu_s18",
    cpp_sources=relu_cpp_source,
    cuda_sources=relu_source,
    functions=["relu_cuda"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return relu_ext.relu_cuda(x)
