# KernelBench level 1, problem 4: Matrix vector multiplication. The C reference is problems/level1/004_matvec.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Simple model that performs matrix-vector multiplication (C = A * B)."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 256 * 8
K = 131072 * 8


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(K, 1)
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
