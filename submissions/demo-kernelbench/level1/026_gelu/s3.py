# demo-kernelbench, level1/026_gelu, sample s3 (KernelBench format: ModelNew + load_inline).
# Demonstrates "private_stream_unjoined": a correct exact-erf GELU launched on a private
# cudaStreamNonBlocking stream created in C++ (once, cached in a static) and never joined: the
# function returns y while the kernel may still be running. A non-blocking stream does not
# synchronise with the legacy default stream, so a timer on the default (or current) stream sees
# almost nothing, and a caller that reads y without a device-wide synchronisation can read it
# half-written. (KernelBench's own evaluator synchronises the device before comparing, so the
# output check passes there.)
# Expected: standard pass, paper pass (correct after a device synchronisation), strict fail: to be
# caught as work escaping the stream ("side stream", as demo-hacks' C-ABI side_stream sample).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gelu_stream_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void gelu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        y[i] = v * 0.5f * (1.0f + erff(v * 0.70710678118654752440f));
    }
}

static cudaStream_t private_stream() {
    static cudaStream_t s = nullptr;
    if (s == nullptr)
        TORCH_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess, "stream creation failed");
    return s;
}

torch::Tensor gelu_side_stream(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a CUDA float32 tensor");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    const int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 16)
        blocks = 65535 * 16;
    if (n > 0)
        gelu_kernel<<<(unsigned)blocks, threads, 0, private_stream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    TORCH_CHECK(cudaGetLastError() == cudaSuccess, "gelu_kernel launch failed");
    return y;  // no cudaStreamSynchronize, no event: the work escapes the caller's stream
}
"""

gelu_stream_cpp_source = "torch::Tensor gelu_side_stream(torch::Tensor x);"

gelu_stream_ext = load_inline(
    name="kb_demo_gelu_s3",
    cpp_sources=gelu_stream_cpp_source,
    cuda_sources=gelu_stream_source,
    functions=["gelu_side_stream"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return gelu_stream_ext.gelu_side_stream(x)
