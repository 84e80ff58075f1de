# demo-kernelbench, level2/061_convtranspose3d_relu_groupnorm, sample s0 (KernelBench format: ModelNew + load_inline).
# An nn.ConvTranspose3d chain: the transposed convolution kept as a submodule and run by PyTorch
# (cuDNN's backward-data convolution at PyTorch's defaults; its weight is (in, out, k, k, k) =
# (64, 128, 3, 3, 3), conv_transpose.weight; bias=False from get_init_inputs(), so there is no
# conv_transpose.bias), nn.GroupNorm kept for its parameters (group_norm.weight and .bias, both
# (128,): bound by name). ReLU and the GroupNorm are three custom kernels instead of eager's four
# passes: (1) per (sample, group) partial sums of relu(x) and relu(x)^2 in double, 16 blocks per
# group of 16 x 34^3 values, no atomics (fixed order: deterministic); (2) per (sample, channel) the
# fused parameters a = rstd * gamma, b = -a * mean + beta with rstd = rsqrtf(var + eps), as
# PyTorch's ComputeFusedParamsCUDAKernel; (3) y = relu(x) * a + b over float4s, as PyTorch's
# GroupNorm elementwise kernel.
# Stream: launches on at::cuda::getCurrentCUDAStream().
# Expected: standard pass, paper pass (the convolution is eager's own call under the same flags,
# as the paper's reference runs it); strict fail: the kept convolution runs cuDNN with TF32
# allowed (PyTorch's default), and strict's FP32 verdict compares with the exact FP32 reference
# (docs/protocols.md), as any file that keeps PyTorch's convolution.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_gn_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

#define THREADS 256
#define PARTS 16 /* blocks per (sample, group) for the statistics */

static __device__ __forceinline__ float relu(float v) {
    return v > 0.0f || v != v ? v : 0.0f;  // NaN propagates, as torch.relu
}

// Sum over the block in a fixed order; valid in thread 0.
static __device__ __forceinline__ double block_sum(double v, double* sm) {
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    __syncthreads();
    if (threadIdx.x % 32 == 0)
        sm[threadIdx.x / 32] = v;
    __syncthreads();
    double s = 0.0;
    if (threadIdx.x == 0)
        for (int w = 0; w < THREADS / 32; w++)
            s += sm[w];
    return s;
}

// Block (ng, p): float4s [p * len4 / PARTS, (p + 1) * len4 / PARTS) of the (sample, group) ng.
__global__ void __launch_bounds__(THREADS)
relu_group_partials(const float4* __restrict__ x, int64_t len4, double2* __restrict__ partial) {
    __shared__ double sm[THREADS / 32];
    const int64_t ng = blockIdx.x, p = blockIdx.y;
    const float4* xg = x + ng * len4;
    const int64_t begin = p * len4 / PARTS, end = (p + 1) * len4 / PARTS;
    double s = 0.0, q = 0.0;
    for (int64_t i = begin + threadIdx.x; i < end; i += THREADS) {
        const float4 v = xg[i];
        const double a = relu(v.x), b = relu(v.y), c = relu(v.z), d = relu(v.w);
        s += (a + b) + (c + d);
        q += (a * a + b * b) + (c * c + d * d);
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0)
        partial[ng * PARTS + p] = make_double2(s, q);
}

// One thread per (sample, channel): the fused parameters of its channel.
__global__ void group_fused_params(const double2* __restrict__ partial, const float* __restrict__ gamma,
                                   const float* __restrict__ beta, float* __restrict__ a, float* __restrict__ b,
                                   int64_t N, int64_t C, int64_t G, int64_t count, float eps) {
    const int64_t nc = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (nc >= N * C)
        return;
    const int64_t n = nc / C, c = nc % C, ng = n * G + c / (C / G);
    double s = 0.0, q = 0.0;
    for (int p = 0; p < PARTS; p++) {
        s += partial[ng * PARTS + p].x;
        q += partial[ng * PARTS + p].y;
    }
    const double mean = s / (double)count;
    double var = q / (double)count - mean * mean;  // biased, as GroupNorm normalises
    var = var > 0.0 ? var : 0.0;
    const float m = (float)mean;
    const float rstd = rsqrtf((float)var + eps);
    const float scale = rstd * gamma[c];
    a[nc] = scale;
    b[nc] = -scale * m + beta[c];
}

__global__ void relu_group_apply(const float4* __restrict__ x, const float* __restrict__ a,
                                 const float* __restrict__ b, float4* __restrict__ y, int64_t n4, int64_t hw4) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        const int64_t nc = i / hw4;
        const float sa = a[nc], sb = b[nc];
        float4 v = x[i];
        v.x = relu(v.x) * sa + sb;
        v.y = relu(v.y) * sa + sb;
        v.z = relu(v.z) * sa + sb;
        v.w = relu(v.w) * sa + sb;
        y[i] = v;
    }
}

torch::Tensor relu_group_norm(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, int64_t groups, double eps) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    TORCH_CHECK(x.dim() >= 3 && x.is_contiguous(), "x must be a contiguous (N, C, ...) tensor");
    const int64_t N = x.size(0), C = x.size(1), HW = x.numel() / (N * C);
    TORCH_CHECK(groups > 0 && C % groups == 0, "C must be a multiple of the number of groups");
    TORCH_CHECK(HW % 4 == 0, "the spatial size must be a multiple of 4 (float4 loads)");
    TORCH_CHECK(gamma.numel() == C && beta.numel() == C && gamma.is_contiguous() && beta.is_contiguous(),
                "gamma and beta must have C elements");
    auto y = torch::empty_like(x);
    auto partial = torch::empty({N * groups * PARTS * 2}, x.options().dtype(torch::kFloat64));
    auto a = torch::empty({N * C}, x.options());
    auto b = torch::empty({N * C}, x.options());
    const int64_t count = (C / groups) * HW;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    relu_group_partials<<<dim3((unsigned)(N * groups), PARTS), THREADS, 0, stream>>>(
        reinterpret_cast<const float4*>(x.data_ptr<float>()), count / 4,
        reinterpret_cast<double2*>(partial.data_ptr<double>()));
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "relu_group_partials launch failed");
    group_fused_params<<<(unsigned)((N * C + 255) / 256), 256, 0, stream>>>(
        reinterpret_cast<const double2*>(partial.data_ptr<double>()), gamma.data_ptr<float>(), beta.data_ptr<float>(),
        a.data_ptr<float>(), b.data_ptr<float>(), N, C, groups, count, (float)eps);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "group_fused_params launch failed");
    const int64_t n4 = x.numel() / 4;
    const int64_t want = (n4 + THREADS - 1) / THREADS;
    relu_group_apply<<<(unsigned)(want < 16384 ? want : 16384), THREADS, 0, stream>>>(
        reinterpret_cast<const float4*>(x.data_ptr<float>()), a.data_ptr<float>(), b.data_ptr<float>(),
        reinterpret_cast<float4*>(y.data_ptr<float>()), n4, HW / 4);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "relu_group_apply launch failed");
    return y;
}
"""

relu_gn_cpp_source = (
    "torch::Tensor relu_group_norm(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, int64_t groups, "
    "double eps);"
)

relu_gn_ext = load_inline(
    name="kb_demo_convtranspose3d_relu_groupnorm_s0",
    cpp_sources=relu_gn_cpp_source,
    cuda_sources=relu_gn_source,
    functions=["relu_group_norm"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups, bias=False):
        super(ModelNew, self).__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, bias=bias)
        self.group_norm = nn.GroupNorm(num_groups=groups, num_channels=out_channels)

    def forward(self, x):
        x = self.conv_transpose(x)
        return relu_gn_ext.relu_group_norm(x.contiguous(), self.group_norm.weight, self.group_norm.bias,
                                           self.group_norm.num_groups, self.group_norm.eps)
