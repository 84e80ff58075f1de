# demo-kernelbench, level1/019_relu, sample s1 (KernelBench format, but without any custom code).
# Demonstrates "pure_pytorch": no load_inline and no CUDA source at all; ModelNew.forward is the
# reference itself (torch.relu), as a pure PyTorch rewrite in a real corpus is.
# Expected: correct output (standard pass, paper pass, strict pass), speedup ~1.0x, and the
# compile stage flags it as a pure PyTorch rewrite (nothing to build: no custom kernel).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)
