# KernelBench level 1, problem 15: Matmul for lower triangular matrices. The C reference is problems/level1/015_tril_matmul.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Simple model that performs a matrix multiplication (C = A * B) where A and B are lower triangular matrices."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.tril(torch.matmul(A, B))


M = 4096


def get_inputs():
    A = torch.tril(torch.rand(M, M))
    B = torch.tril(torch.rand(M, M))
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
