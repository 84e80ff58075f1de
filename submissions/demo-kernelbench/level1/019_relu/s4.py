# demo-kernelbench, level1/019_relu, sample s4 (KernelBench's "triton" backend format).
# Demonstrates "triton": a correct ReLU written with triton (@triton.jit kernel, launched from
# ModelNew.forward), no load_inline. KernelBench accepts triton answers; this pipeline builds only
# load_inline CUDA sources, so the sample must be recorded as unsupported, not as a compile error
# and not run. (tl.where(x < 0, 0, x) keeps NaN, as torch.relu does.)
# Expected: expected_compile = unsupported ("unsupported: triton"); no verdict in any protocol.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.where(x < 0, 0.0, x)
    tl.store(y_ptr + offsets, y, mask=mask)


def triton_relu(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    relu_kernel[grid](x, y, n, BLOCK_SIZE=1024)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return triton_relu(x)
