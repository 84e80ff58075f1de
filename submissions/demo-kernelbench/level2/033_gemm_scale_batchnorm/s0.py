# demo-kernelbench, level2/033_gemm_scale_batchnorm, sample s0 (KernelBench format: ModelNew + load_inline).
# A BatchNorm chain in training mode, as KernelBench runs it: nn.Linear and nn.BatchNorm1d kept as
# submodules (their parameters and the BatchNorm's running-stat buffers are the module's), the extra
# nn.Parameter scale beside them; four of the five parameters have one shape (8192,), so only
# their names tell scale, gemm.bias, bn.weight and bn.bias apart (they are bound by name). The GEMM
# is PyTorch's (addmm, full FP32 at PyTorch's defaults); ONE custom kernel does the rest: per
# feature, t = x * scale (rounded to float, as eager's mul), the batch mean and biased variance of
# t over the 1024 rows (two passes, double accumulation, fixed reduction order: deterministic),
# then y = weight * (t - mean) * invstd + bias as PyTorch's transform writes it, and the running
# statistics updated as BatchNorm does in training mode (momentum, the unbiased variance,
# num_batches_tracked += 1). Block = 32 features x 8 row slices; each block reads its 32 columns
# three times (the second and third from L2), 256 blocks.
# Stream: launches on at::cuda::getCurrentCUDAStream().
# Expected: correct (standard pass, paper pass, strict pass).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scale_bn_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

#define COLS 32
#define SLICES 8

// Sum over the SLICES row slices of one column, in a fixed order; every thread gets the sum.
static __device__ __forceinline__ double column_sum(double v, double (*sm)[COLS]) {
    __syncthreads();  // sm may still be read from the previous sum
    sm[threadIdx.y][threadIdx.x] = v;
    __syncthreads();
    double s = 0.0;
    for (int k = 0; k < SLICES; k++)
        s += sm[k][threadIdx.x];
    return s;
}

__global__ void __launch_bounds__(COLS * SLICES)
scale_batchnorm_kernel(const float* __restrict__ x, const float* __restrict__ scale, const float* __restrict__ weight,
                       const float* __restrict__ bias, float* __restrict__ running_mean,
                       float* __restrict__ running_var, int64_t* __restrict__ num_batches_tracked,
                       float* __restrict__ y, int64_t N, int64_t C, double eps, double momentum) {
    __shared__ double sm[SLICES][COLS];
    const int64_t c = (int64_t)blockIdx.x * COLS + threadIdx.x;
    const bool in = c < C;
    const float s = in ? scale[c] : 0.0f;
    double sum = 0.0;
    if (in)
        for (int64_t r = threadIdx.y; r < N; r += SLICES)
            sum += (double)__fmul_rn(x[r * C + c], s);
    const double mean = column_sum(sum, sm) / (double)N;
    double sq = 0.0;
    if (in)
        for (int64_t r = threadIdx.y; r < N; r += SLICES) {
            const double d = (double)__fmul_rn(x[r * C + c], s) - mean;
            sq += d * d;
        }
    const double var = column_sum(sq, sm) / (double)N;  // biased: what training-mode BatchNorm normalises by
    if (!in)
        return;
    const float m = (float)mean;
    const float invstd = (float)(1.0 / sqrt(var + eps));
    const float w = weight[c], b = bias[c];
    for (int64_t r = threadIdx.y; r < N; r += SLICES) {
        const float t = __fmul_rn(x[r * C + c], s);  // rounded, never fused into the subtraction
        y[r * C + c] = w * (t - m) * invstd + b;
    }
    if (threadIdx.y == 0) {
        const double unbiased = N > 1 ? var * (double)N / (double)(N - 1) : var;
        running_mean[c] = (float)(momentum * mean + (1.0 - momentum) * (double)running_mean[c]);
        running_var[c] = (float)(momentum * unbiased + (1.0 - momentum) * (double)running_var[c]);
        if (c == 0)
            num_batches_tracked[0] += 1;
    }
}

torch::Tensor scale_batchnorm(torch::Tensor x, torch::Tensor scale, torch::Tensor weight, torch::Tensor bias,
                              torch::Tensor running_mean, torch::Tensor running_var,
                              torch::Tensor num_batches_tracked, double eps, double momentum) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    TORCH_CHECK(x.dim() == 2 && x.is_contiguous(), "x must be a contiguous (N, C) tensor");
    const int64_t N = x.size(0), C = x.size(1);
    for (const torch::Tensor* t : {&scale, &weight, &bias, &running_mean, &running_var})
        TORCH_CHECK(t->is_cuda() && t->scalar_type() == torch::kFloat32 && t->numel() == C && t->is_contiguous(),
                    "per-feature tensors must be contiguous CUDA float32 tensors of C elements");
    TORCH_CHECK(num_batches_tracked.is_cuda() && num_batches_tracked.scalar_type() == torch::kInt64,
                "num_batches_tracked must be a CUDA int64 tensor");
    auto y = torch::empty_like(x);
    if (N == 0 || C == 0)
        return y;
    const dim3 block(COLS, SLICES);
    const unsigned blocks = (unsigned)((C + COLS - 1) / COLS);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    scale_batchnorm_kernel<<<blocks, block, 0, stream>>>(
        x.data_ptr<float>(), scale.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(),
        running_mean.data_ptr<float>(), running_var.data_ptr<float>(), num_batches_tracked.data_ptr<int64_t>(),
        y.data_ptr<float>(), N, C, eps, momentum);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "scale_batchnorm_kernel launch failed");
    return y;
}
"""

scale_bn_cpp_source = (
    "torch::Tensor scale_batchnorm(torch::Tensor x, torch::Tensor scale, torch::Tensor weight, torch::Tensor bias, "
    "torch::Tensor running_mean, torch::Tensor running_var, torch::Tensor num_batches_tracked, double eps, "
    "double momentum);"
)

scale_bn_ext = load_inline(
    name="kb_demo_gemm_scale_batchnorm_s0",
    cpp_sources=scale_bn_cpp_source,
    cuda_sources=scale_bn_source,
    functions=["scale_batchnorm"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale_shape, eps=1e-5, momentum=0.1):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(scale_shape))
        self.bn = nn.BatchNorm1d(out_features, eps=eps, momentum=momentum)

    def forward(self, x):
        x = self.gemm(x)
        # training mode (the module is never put in eval mode): batch statistics, running stats updated
        return scale_bn_ext.scale_batchnorm(x.contiguous(), self.scale, self.bn.weight, self.bn.bias,
                                            self.bn.running_mean, self.bn.running_var,
                                            self.bn.num_batches_tracked, self.bn.eps, self.bn.momentum)
