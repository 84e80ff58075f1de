# demo-kernelbench, level2/088_gemm_groupnorm_swish_multiply_swish, sample s0 (KernelBench format: ModelNew + load_inline).
# A GroupNorm chain after a GEMM: nn.Linear and nn.GroupNorm kept as submodules, the extra
# nn.Parameter multiply_weight beside them (bound by name: it has the shape of gemm.bias,
# group_norm.weight and group_norm.bias). The GEMM is PyTorch's (addmm, full FP32 at PyTorch's
# defaults); ONE custom kernel does the rest, one warp per (row, group) of 32 features: the group's
# mean and biased variance (two passes over the warp's values, double accumulation, fixed
# shuffle order), y = (x - mean) * rstd * gamma + beta as PyTorch's GroupNorm1dForward writes it
# (rstd = rsqrtf(var + eps), as PyTorch), then swish, the multiply, swish: x * sigmoid(x) with
# sigmoid = 1 / (1 + exp(-x)) in float, as eager's sigmoid kernel. One read and one write of the
# (1024, 8192) result instead of eager's nine passes.
# Stream: launches on at::cuda::getCurrentCUDAStream().
# Expected: correct (standard pass, paper pass, strict pass).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gn_swish_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

#define WARPS_PER_BLOCK 8

static __device__ __forceinline__ double warp_sum(double v) {
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

static __device__ __forceinline__ float swish(float v) {
    const float s = 1.0f / (1.0f + expf(-v));
    return v * s;
}

// Warp w of the grid: row n = w / G, group g = w % G, features [g * cpg, (g + 1) * cpg).
__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK)
groupnorm_swish_mul_swish_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                 const float* __restrict__ beta, const float* __restrict__ mw,
                                 float* __restrict__ y, int64_t N, int64_t C, int64_t G, float eps) {
    const int64_t w = (int64_t)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (w >= N * G)
        return;  // whole warps only: the shuffles below see all 32 lanes
    const int64_t cpg = C / G, n = w / G, g = w % G;
    const float* xr = x + n * C + g * cpg;
    float* yr = y + n * C + g * cpg;
    double s = 0.0;
    for (int64_t j = lane; j < cpg; j += 32)
        s += (double)xr[j];
    const double mean = warp_sum(s) / (double)cpg;
    double q = 0.0;
    for (int64_t j = lane; j < cpg; j += 32) {
        const double d = (double)xr[j] - mean;
        q += d * d;
    }
    const double var = warp_sum(q) / (double)cpg;
    const float m = (float)mean;
    const float rstd = rsqrtf((float)var + eps);
    for (int64_t j = lane; j < cpg; j += 32) {
        const int64_t c = g * cpg + j;
        float v = (xr[j] - m) * rstd * gamma[c] + beta[c];
        v = swish(v);
        v = v * mw[c];
        yr[j] = swish(v);
    }
}

torch::Tensor groupnorm_swish_mul_swish(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, torch::Tensor mw,
                                        int64_t groups, double eps) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    TORCH_CHECK(x.dim() == 2 && x.is_contiguous(), "x must be a contiguous (N, C) tensor");
    const int64_t N = x.size(0), C = x.size(1);
    TORCH_CHECK(groups > 0 && C % groups == 0, "C must be a multiple of the number of groups");
    for (const torch::Tensor* t : {&gamma, &beta, &mw})
        TORCH_CHECK(t->is_cuda() && t->scalar_type() == torch::kFloat32 && t->numel() == C && t->is_contiguous(),
                    "per-feature tensors must be contiguous CUDA float32 tensors of C elements");
    auto y = torch::empty_like(x);
    const int64_t warps = N * groups;
    if (warps == 0 || C == 0)
        return y;
    const unsigned blocks = (unsigned)((warps + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    groupnorm_swish_mul_swish_kernel<<<blocks, 32 * WARPS_PER_BLOCK, 0, stream>>>(
        x.data_ptr<float>(), gamma.data_ptr<float>(), beta.data_ptr<float>(), mw.data_ptr<float>(),
        y.data_ptr<float>(), N, C, groups, (float)eps);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "groupnorm_swish_mul_swish_kernel launch failed");
    return y;
}
"""

gn_swish_cpp_source = (
    "torch::Tensor groupnorm_swish_mul_swish(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, "
    "torch::Tensor mw, int64_t groups, double eps);"
)

gn_swish_ext = load_inline(
    name="kb_demo_gemm_groupnorm_swish_multiply_swish_s0",
    cpp_sources=gn_swish_cpp_source,
    cuda_sources=gn_swish_source,
    functions=["groupnorm_swish_mul_swish"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, num_groups, multiply_weight_shape):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        self.multiply_weight = nn.Parameter(torch.randn(multiply_weight_shape))

    def forward(self, x):
        x = self.gemm(x)
        return gn_swish_ext.groupnorm_swish_mul_swish(x.contiguous(), self.group_norm.weight, self.group_norm.bias,
                                                      self.multiply_weight, self.group_norm.num_groups,
                                                      self.group_norm.eps)
