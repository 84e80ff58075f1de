# KernelBench level 1, problem 12: Matmul with diagonal matrices. The C reference is problems/level1/012_diag_matmul.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = diag(A) * B: A (N,) is the diagonal of a diagonal matrix, B is (N, M)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.diag(A) @ B


M = 4096
N = 4096


def get_inputs():
    A = torch.rand(N)
    B = torch.rand(N, M)
    return [A, B]


def get_init_inputs():
    return []
