# KernelBench level 1, problem 14: Matmul for upper triangular matrices. The C reference is problems/level1/014_triu_matmul.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Simple model that performs matrix multiplication (C = A * B) for upper triangular matrices."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.triu(torch.matmul(A, B))


N = 4096


def get_inputs():
    A = torch.triu(torch.rand(N, N))
    B = torch.triu(torch.rand(N, N))
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
