# KernelBench level 1, problem 5: Matrix scalar multiplication. The C reference is problems/level1/005_matrix_scalar_mul.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A * s"""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        return A * s


M = 16384 * 4
N = 4096 * 4


def get_inputs():
    A = torch.rand(M, N)
    s = 3.14
    return [A, s]


def get_init_inputs():
    return []
