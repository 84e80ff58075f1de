# KernelBench level 1, problem 17: Matmul with transposed B. The C reference is problems/level1/017_matmul_trans_b.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Simple model that performs a single matrix multiplication (C = A * B.T)."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B.T)


M = 1024 * 2
K = 4096 * 2
N = 2048 * 2


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(N, K)
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
