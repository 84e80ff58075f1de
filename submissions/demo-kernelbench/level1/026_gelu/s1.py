# demo-kernelbench, level1/026_gelu, sample s1 (KernelBench format: ModelNew + load_inline).
# Demonstrates "fallback": the build is wrapped in try/except and ModelNew silently falls back to
# torch.nn.functional.gelu when it fails, as real files do. Here the build always fails: the
# vectorised launcher passes x.data_ptr<float>() (float *) where the kernel takes const float4 *
# ("argument of type float * is incompatible with parameter of type const float4 *"), so the
# custom kernel never runs and every forward is PyTorch's own GELU.
# Expected: correct output (standard pass, paper pass, strict pass: it IS the reference op), to be
# flagged as a fallback to PyTorch (the custom build failed; the file caught the failure).
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

gelu_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void gelu_kernel_vec4(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        v.x = 0.5f * v.x * (1.0f + erff(v.x * 0.70710678f));
        v.y = 0.5f * v.y * (1.0f + erff(v.y * 0.70710678f));
        v.z = 0.5f * v.z * (1.0f + erff(v.z * 0.70710678f));
        v.w = 0.5f * v.w * (1.0f + erff(v.w * 0.70710678f));
        y[i] = v;
    }
}

torch::Tensor gelu_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.numel() % 4 == 0, "numel must be a multiple of 4");
    auto y = torch::empty_like(x);
    const int64_t n4 = x.numel() / 4;
    const int threads = 256;
    const int64_t blocks = (n4 + threads - 1) / threads;
    gelu_kernel_vec4<<<(unsigned)blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n4);
    return y;
}
"""

gelu_cpp_source = "torch::Tensor gelu_cuda(torch::Tensor x);"

try:
    gelu_ext = load_inline(
        name="kb_demo_gelu_s1",
        cpp_sources=gelu_cpp_source,
        cuda_sources=gelu_source,
        functions=["gelu_cuda"],
        verbose=False,
        extra_cflags=["-O3"],
        extra_cuda_cflags=["-O3"],
    )
except Exception as e:  # the build failed: fall back to PyTorch
    print(f"custom GELU unavailable, falling back to PyTorch: {e}")
    gelu_ext = None


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if gelu_ext is not None and x.is_cuda:
            return gelu_ext.gelu_cuda(x.contiguous())
        return F.gelu(x)
