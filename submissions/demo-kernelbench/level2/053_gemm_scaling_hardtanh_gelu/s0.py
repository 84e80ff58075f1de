# demo-kernelbench, level2/053_gemm_scaling_hardtanh_gelu, sample s0 (KernelBench format: ModelNew + load_inline).
# An nn.Linear chain with scalar constructor arguments, written as most real files write one: the
# problem's nn.Linear kept as a submodule (so its parameters are gemm.weight and gemm.bias, bound by
# name) and run by PyTorch (addmm: cuBLAS, full FP32 at PyTorch's defaults), then ONE custom kernel
# for the epilogue y = gelu(hardtanh(x * scaling_factor, min, max)): the three elementwise ops of
# eager fused into one pass over the (2048, 8192) result (one read, one write of 67 MB instead of
# three of each). scaling_factor, hardtanh_min and hardtanh_max come from get_init_inputs() (0.5,
# -2, 2) and reach the kernel as doubles, rounded to float as PyTorch rounds a Python scalar.
# Each op is evaluated as PyTorch evaluates it: x * s in float; hardtanh as two comparisons (NaN
# passes through, as in torch); GELU in its exact erf form x * 0.5 * (1 + erf(x / sqrt(2))).
# Stream: launches on at::cuda::getCurrentCUDAStream().
# Expected: correct (standard pass, paper pass, strict pass): the GEMM is eager's own call and the
# epilogue rounds as eager does.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

epilogue_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

static __device__ __forceinline__ float epilogue(float v, float s, float lo, float hi) {
    v = v * s;
    v = v <= lo ? lo : (v >= hi ? hi : v);  // torch's hardtanh: NaN fails both tests and stays
    const float kAlpha = 0.70710678118654752440f;  // 1/sqrt(2)
    return v * 0.5f * (1.0f + erff(v * kAlpha));
}

// Grid-stride over float4s; the tail (n % 4) by the first threads.
__global__ void scale_hardtanh_gelu_kernel(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4,
                                           const float* __restrict__ xt, float* __restrict__ yt, int tail,
                                           float s, float lo, float hi) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t i = first; i < n4; i += stride) {
        float4 v = x[i];
        v.x = epilogue(v.x, s, lo, hi);
        v.y = epilogue(v.y, s, lo, hi);
        v.z = epilogue(v.z, s, lo, hi);
        v.w = epilogue(v.w, s, lo, hi);
        y[i] = v;
    }
    if (first < tail)
        yt[first] = epilogue(xt[first], s, lo, hi);
}

torch::Tensor scale_hardtanh_gelu(torch::Tensor x, double scaling_factor, double lo, double hi) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel(), n4 = n / 4;
    const int tail = (int)(n - n4 * 4);
    if (n == 0)
        return y;
    const int threads = 256;
    const int64_t want = (n4 + threads - 1) / threads;
    const int blocks = (int)(want < 8192 ? (want > 0 ? want : 1) : 8192);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    scale_hardtanh_gelu_kernel<<<blocks, threads, 0, stream>>>(
        reinterpret_cast<const float4*>(x.data_ptr<float>()), reinterpret_cast<float4*>(y.data_ptr<float>()), n4,
        x.data_ptr<float>() + n4 * 4, y.data_ptr<float>() + n4 * 4, tail,
        (float)scaling_factor, (float)lo, (float)hi);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "scale_hardtanh_gelu_kernel launch failed");
    return y;
}
"""

epilogue_cpp_source = "torch::Tensor scale_hardtanh_gelu(torch::Tensor x, double scaling_factor, double lo, double hi);"

epilogue_ext = load_inline(
    name="kb_demo_gemm_scaling_hardtanh_gelu_s0",
    cpp_sources=epilogue_cpp_source,
    cuda_sources=epilogue_source,
    functions=["scale_hardtanh_gelu"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor, hardtanh_min, hardtanh_max):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scaling_factor = float(scaling_factor)
        self.hardtanh_min = float(hardtanh_min)
        self.hardtanh_max = float(hardtanh_max)

    def forward(self, x):
        x = self.gemm(x)
        return epilogue_ext.scale_hardtanh_gelu(x.contiguous(), self.scaling_factor, self.hardtanh_min,
                                                self.hardtanh_max)
