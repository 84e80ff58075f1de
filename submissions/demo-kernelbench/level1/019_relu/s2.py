# demo-kernelbench, level1/019_relu, sample s2 (KernelBench format: ModelNew + load_inline).
# Demonstrates "default_stream_known_duration": a correct ReLU kernel on the legacy default stream,
# followed by a second kernel, also on the legacy default stream, that busy-waits for a fixed
# 2.0 ms (one block of one thread reading %globaltimer, the GPU's nanosecond clock) and writes
# nothing. The output is correct; the forward's GPU time is the ReLU's time + 2.0 ms.
# Purpose: a calibration probe for the timer. A timer that sees legacy-default-stream work (as
# KernelBench's CUDA events on the default stream do) must report ~ relu time + 2.0 ms (e.g.
# ~3.1 ms + 2.0 ms on an H200); a time near the plain ReLU's means the timer misses
# default-stream work.
# Expected: correct (standard pass, paper pass, strict pass); time ~ relu + 2.0 ms.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_spin_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

// NaN propagates as in torch.relu: (v < 0) is false for NaN, so y = v.
__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        y[i] = v < 0.0f ? 0.0f : v;
    }
}

static __device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Spins until `ns` nanoseconds of wall-clock GPU time have passed since it started.
__global__ void spin_kernel(unsigned long long ns) {
    const unsigned long long t0 = global_ns();
    while (global_ns() - t0 < ns) {
    }
}

torch::Tensor relu_then_spin(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    const int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 16)
        blocks = 65535 * 16;  // grid-stride loop covers the rest
    if (n > 0)
        relu_kernel<<<(unsigned)blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    spin_kernel<<<1, 1>>>(2000000ull);  // 2.0 ms, legacy default stream
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "kernel launch failed");
    return y;
}
"""

relu_spin_cpp_source = "torch::Tensor relu_then_spin(torch::Tensor x);"

relu_spin_ext = load_inline(
    name="kb_demo_relu_s2",
    cpp_sources=relu_spin_cpp_source,
    cuda_sources=relu_spin_source,
    functions=["relu_then_spin"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return relu_spin_ext.relu_then_spin(x)
