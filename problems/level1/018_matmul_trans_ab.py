# KernelBench level 1, problem 18: Matmul with transposed both. The C reference is problems/level1/018_matmul_trans_ab.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Simple model that performs a single matrix multiplication (C = A.T * B.T)."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A.T, B.T)


M = 1024 * 2
K = 4096 * 2
N = 2048 * 2


def get_inputs():
    A = torch.rand(K, M)
    B = torch.rand(N, K)
    return [A, B]


def get_init_inputs():
    return []  # No special initialization inputs needed
