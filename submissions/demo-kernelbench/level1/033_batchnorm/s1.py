# demo-kernelbench, level1/033_batchnorm, sample s1 (KernelBench format: ModelNew + load_inline).
# Demonstrates "torch_ops_around": PyTorch ops around the custom kernel in forward, as a sizeable
# minority of real files do. The batch statistics come from torch.var_mean (biased variance, as
# BatchNorm in training mode uses); only the normalisation y = (x - mean) * rsqrt(var + eps) * w + b
# is a custom kernel (one block row per (n, c) plane, float4 loads, grid-stride). Parameters live in
# the same submodule as the problem's Model (self.bn), so they are named bn.weight and bn.bias.
# Stream: the torch ops run on torch's current stream, the kernel on the legacy default stream.
# Expected: correct (standard pass, paper pass, strict pass); the ATen work (var_mean) is part of the
# timed forward and of the memory peak (mean/var are 64-element tensors).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

bn_normalize_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

// One block per (n, c) plane, grid-stride over the plane in float4 units (HW % 4 == 0 checked).
__global__ void bn_normalize_kernel(const float4* __restrict__ x, const float* __restrict__ mean,
                                    const float* __restrict__ var, const float* __restrict__ weight,
                                    const float* __restrict__ bias, float4* __restrict__ y,
                                    int64_t C, int64_t HW4, float eps) {
    const int64_t plane = blockIdx.x;
    const int64_t c = plane % C;
    const float m = mean[c], invstd = rsqrtf(var[c] + eps), w = weight[c], b = bias[c];
    const float4* xp = x + plane * HW4;
    float4* yp = y + plane * HW4;
    for (int64_t i = threadIdx.x; i < HW4; i += blockDim.x) {
        float4 v = xp[i];
        v.x = (v.x - m) * invstd * w + b;
        v.y = (v.y - m) * invstd * w + b;
        v.z = (v.z - m) * invstd * w + b;
        v.w = (v.w - m) * invstd * w + b;
        yp[i] = v;
    }
}

torch::Tensor bn_normalize(torch::Tensor x, torch::Tensor mean, torch::Tensor var,
                           torch::Tensor weight, torch::Tensor bias, double eps) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    TORCH_CHECK(x.dim() == 4 && x.is_contiguous(), "x must be a contiguous NCHW tensor");
    const int64_t N = x.size(0), C = x.size(1), HW = x.size(2) * x.size(3);
    TORCH_CHECK(HW % 4 == 0, "H*W must be a multiple of 4");
    TORCH_CHECK(mean.numel() == C && var.numel() == C && weight.numel() == C && bias.numel() == C,
                "per-channel tensors must have C elements");
    auto y = torch::empty_like(x);
    const int threads = 256;
    const int64_t blocks = N * C;
    bn_normalize_kernel<<<(unsigned)blocks, threads>>>(
        reinterpret_cast<const float4*>(x.data_ptr<float>()), mean.data_ptr<float>(), var.data_ptr<float>(),
        weight.data_ptr<float>(), bias.data_ptr<float>(), reinterpret_cast<float4*>(y.data_ptr<float>()),
        C, HW / 4, (float)eps);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "bn_normalize_kernel launch failed");
    return y;
}
"""

bn_normalize_cpp_source = (
    "torch::Tensor bn_normalize(torch::Tensor x, torch::Tensor mean, torch::Tensor var, "
    "torch::Tensor weight, torch::Tensor bias, double eps);"
)

bn_normalize_ext = load_inline(
    name="kb_demo_batchnorm_s1",
    cpp_sources=bn_normalize_cpp_source,
    cuda_sources=bn_normalize_source,
    functions=["bn_normalize"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        # Batch statistics with PyTorch (training mode: biased variance over N, H, W).
        var, mean = torch.var_mean(x, dim=(0, 2, 3), correction=0)
        return bn_normalize_ext.bn_normalize(x, mean.contiguous(), var.contiguous(),
                                             self.bn.weight, self.bn.bias, self.bn.eps)
