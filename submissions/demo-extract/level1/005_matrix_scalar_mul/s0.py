import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scale_src = r"""
#include <torch/extension.h>

__global__ void scale_vec4(const float4* __restrict__ a, float4* __restrict__ c, float s, int64_t n4) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = a[i];
        v.x *= s; v.y *= s; v.z *= s; v.w *= s;
        c[i] = v;
    }
}

__global__ void scale_tail(const float* a, float* c, float s, int64_t start, int64_t n) {
    int64_t i = start + threadIdx.x;
    if (i < n) c[i] = a[i] * s;
}

torch::Tensor scale(torch::Tensor A, double s) {
    auto C = torch::empty_like(A);
    const int64_t n = A.numel(), n4 = n / 4;
    if (n4 > 0)
        scale_vec4<<<(n4 + 255) / 256, 256>>>(reinterpret_cast<const float4*>(A.data_ptr<float>()),
                                              reinterpret_cast<float4*>(C.data_ptr<float>()), (float)s, n4);
    if (n % 4)
        scale_tail<<<1, 4>>>(A.data_ptr<float>(), C.data_ptr<float>(), (float)s, n4 * 4, n);
    return C;
}
"""

scale_ext = load_inline(name="scale_vec4_ext", cpp_sources="torch::Tensor scale(torch::Tensor A, double s);",
                        cuda_sources=scale_src, functions=["scale"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        return scale_ext.scale(A.contiguous(), s)
