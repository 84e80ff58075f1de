# demo-kernelbench, level2/021_conv2d_add_scale_sigmoid_groupnorm, sample s0 (KernelBench format: ModelNew + load_inline).
# Several parameters of one shape: bias and scale are both (32, 1, 1), and conv.bias,
# group_norm.weight and group_norm.bias all (32,), so order and shape alone cannot tell them apart;
# this file keeps the problem's names (conv, bias, scale, group_norm) and is bound by name. The
# convolution is nn.Conv2d's (cuDNN at PyTorch's defaults, its bias added by PyTorch); the rest is
# three custom kernels instead of eager's seven passes over the 1.06 GB conv output: (1) per
# (sample, group) partial sums of s = sigmoid((x + bias) * scale) and s^2 in double, 16 blocks per
# group, no atomics (fixed order: deterministic); (2) per (sample, channel) the fused GroupNorm
# parameters a = rstd * gamma, b = -a * mean + beta, rstd = rsqrtf(var + eps), as PyTorch's
# ComputeFusedParamsCUDAKernel; (3) y = s * a + b, s recomputed (same operations, same bits).
# Each op rounds as eager's: the add, then the multiply, then sigmoid = 1 / (1 + exp(-t)) in float.
# Stream: launches on at::cuda::getCurrentCUDAStream().
# Expected: standard pass, paper pass (the convolution is eager's own call under the same flags);
# strict fail: the kept convolution runs cuDNN with TF32 allowed (PyTorch's default), and strict's
# FP32 verdict compares with the exact FP32 reference (docs/protocols.md).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

bias_scale_sigmoid_gn_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

#define THREADS 256
#define PARTS 16 /* blocks per (sample, group) for the statistics */

static __device__ __forceinline__ float pre(float v, float bias, float scale) {
    const float t = (v + bias) * scale;
    return 1.0f / (1.0f + expf(-t));
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

// Block (ng, p): float4s [p * len4 / PARTS, (p + 1) * len4 / PARTS) of the (sample, group) ng; a
// float4 lies in one channel (H*W % 4 == 0), channel = first channel of the group + i / hw4.
__global__ void __launch_bounds__(THREADS)
group_partials(const float4* __restrict__ x, const float* __restrict__ bias, const float* __restrict__ scale,
               int64_t len4, int64_t hw4, int64_t G, int64_t cpg, double2* __restrict__ partial) {
    __shared__ double sm[THREADS / 32];
    const int64_t ng = blockIdx.x, p = blockIdx.y;
    const int64_t c0 = (ng % G) * cpg;
    const float4* xg = x + ng * len4;
    const int64_t begin = p * len4 / PARTS, end = (p + 1) * len4 / PARTS;
    double s = 0.0, q = 0.0;
    for (int64_t i = begin + threadIdx.x; i < end; i += THREADS) {
        const int64_t c = c0 + i / hw4;
        const float bc = bias[c], sc = scale[c];
        const float4 v = xg[i];
        const double a = pre(v.x, bc, sc), b = pre(v.y, bc, sc), cc = pre(v.z, bc, sc), d = pre(v.w, bc, sc);
        s += (a + b) + (cc + d);
        q += (a * a + b * b) + (cc * cc + d * d);
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
    const float sa = rstd * gamma[c];
    a[nc] = sa;
    b[nc] = -sa * m + beta[c];
}

__global__ void group_apply(const float4* __restrict__ x, const float* __restrict__ bias,
                            const float* __restrict__ scale, const float* __restrict__ a,
                            const float* __restrict__ b, float4* __restrict__ y, int64_t n4, int64_t hw4, int64_t C) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        const int64_t nc = i / hw4, c = nc % C;
        const float bc = bias[c], sc = scale[c], sa = a[nc], sb = b[nc];
        float4 v = x[i];
        v.x = pre(v.x, bc, sc) * sa + sb;
        v.y = pre(v.y, bc, sc) * sa + sb;
        v.z = pre(v.z, bc, sc) * sa + sb;
        v.w = pre(v.w, bc, sc) * sa + sb;
        y[i] = v;
    }
}

torch::Tensor bias_scale_sigmoid_group_norm(torch::Tensor x, torch::Tensor bias, torch::Tensor scale,
                                            torch::Tensor gamma, torch::Tensor beta, int64_t groups, double eps) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    TORCH_CHECK(x.dim() == 4 && x.is_contiguous(), "x must be a contiguous NCHW tensor");
    const int64_t N = x.size(0), C = x.size(1), HW = x.size(2) * x.size(3);
    TORCH_CHECK(groups > 0 && C % groups == 0, "C must be a multiple of the number of groups");
    TORCH_CHECK(HW % 4 == 0, "H*W must be a multiple of 4 (float4 loads)");
    for (const torch::Tensor* t : {&bias, &scale, &gamma, &beta})
        TORCH_CHECK(t->is_cuda() && t->scalar_type() == torch::kFloat32 && t->numel() == C && t->is_contiguous(),
                    "per-channel tensors must be contiguous CUDA float32 tensors of C elements");
    auto y = torch::empty_like(x);
    auto partial = torch::empty({N * groups * PARTS * 2}, x.options().dtype(torch::kFloat64));
    auto a = torch::empty({N * C}, x.options());
    auto b = torch::empty({N * C}, x.options());
    const int64_t cpg = C / groups, count = cpg * HW;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    group_partials<<<dim3((unsigned)(N * groups), PARTS), THREADS, 0, stream>>>(
        reinterpret_cast<const float4*>(x.data_ptr<float>()), bias.data_ptr<float>(), scale.data_ptr<float>(),
        count / 4, HW / 4, groups, cpg, reinterpret_cast<double2*>(partial.data_ptr<double>()));
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "group_partials launch failed");
    group_fused_params<<<(unsigned)((N * C + 255) / 256), 256, 0, stream>>>(
        reinterpret_cast<const double2*>(partial.data_ptr<double>()), gamma.data_ptr<float>(), beta.data_ptr<float>(),
        a.data_ptr<float>(), b.data_ptr<float>(), N, C, groups, count, (float)eps);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "group_fused_params launch failed");
    const int64_t n4 = x.numel() / 4;
    const int64_t want = (n4 + THREADS - 1) / THREADS;
    group_apply<<<(unsigned)(want < 16384 ? want : 16384), THREADS, 0, stream>>>(
        reinterpret_cast<const float4*>(x.data_ptr<float>()), bias.data_ptr<float>(), scale.data_ptr<float>(),
        a.data_ptr<float>(), b.data_ptr<float>(), reinterpret_cast<float4*>(y.data_ptr<float>()), n4, HW / 4, C);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "group_apply launch failed");
    return y;
}
"""

bias_scale_sigmoid_gn_cpp_source = (
    "torch::Tensor bias_scale_sigmoid_group_norm(torch::Tensor x, torch::Tensor bias, torch::Tensor scale, "
    "torch::Tensor gamma, torch::Tensor beta, int64_t groups, double eps);"
)

fused_ext = load_inline(
    name="kb_demo_conv2d_add_scale_sigmoid_groupnorm",
    cpp_sources=bias_scale_sigmoid_gn_cpp_source,
    cuda_sources=bias_scale_sigmoid_gn_source,
    functions=["bias_scale_sigmoid_group_norm"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, num_groups, bias_shape, scale_shape):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.scale = nn.Parameter(torch.randn(scale_shape))
        self.group_norm = nn.GroupNorm(num_groups, out_channels)

    def forward(self, x):
        x = self.conv(x)
        return fused_ext.bias_scale_sigmoid_group_norm(x.contiguous(), self.bias, self.scale, self.group_norm.weight,
                                                       self.group_norm.bias, self.group_norm.num_groups,
                                                       self.group_norm.eps)
