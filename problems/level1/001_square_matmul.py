# KernelBench level 1, problem 1: square matrix multiplication.
# The C reference is problems/level1/001_square_matmul.cu.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B for square matrices."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


N = 4096


def get_inputs():
    A = torch.rand(N, N)
    B = torch.rand(N, N)
    return [A, B]


def get_init_inputs():
    return []
