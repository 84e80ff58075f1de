import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

muladd_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

// One pass over the data: read a, b, c once, write out once (4 x 256 MiB at size 8192), where
// eager PyTorch runs two kernels and keeps a temporary. __fmul_rn rounds the product as eager's
// separate multiply does (no fused multiply-add), so the result matches it bit for bit.
__global__ void muladd_kernel(const float* __restrict__ a, const float* __restrict__ b,
                              const float* __restrict__ c, float* __restrict__ out, int64_t n) {
    // 64-bit indices: a tensor may hold 2^31 elements or more.
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = __fmul_rn(a[i], b[i]) + c[i];
}

torch::Tensor muladd_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor c) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda() && c.is_cuda(), "muladd: CUDA tensors expected");
    TORCH_CHECK(a.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32 &&
                    c.scalar_type() == torch::kFloat32, "muladd: float32 tensors expected");
    TORCH_CHECK(a.sizes() == b.sizes() && a.sizes() == c.sizes(), "muladd: tensors of one shape expected");
    auto ac = a.contiguous(), bc = b.contiguous(), cc = c.contiguous();
    auto out = torch::empty_like(ac);
    int64_t n = ac.numel();
    if (n == 0)
        return out;
    const int threads = 256;
    int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 1 << 20);
    // on PyTorch's current stream, the one the caller's work and timing are ordered on
    muladd_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        ac.data_ptr<float>(), bc.data_ptr<float>(), cc.data_ptr<float>(), out.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

muladd_cpp_source = "torch::Tensor muladd_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor c);"

muladd = load_inline(
    name="muladd",
    cpp_sources=muladd_cpp_source,
    cuda_sources=muladd_cuda_source,
    functions=["muladd_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return muladd.muladd_cuda(a, b, c)
