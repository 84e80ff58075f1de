# KernelBench level 1, problem 3: batched matrix multiplication.
# The C reference is problems/level1/003_batched_matmul.cu.
import torch
import torch.nn as nn


class Model(nn.Module):
    """C[b] = A[b] @ B[b] for every batch index b."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


batch_size = 128
m = 512
k = 1024
n = 2048


def get_inputs():
    A = torch.rand(batch_size, m, k)
    B = torch.rand(batch_size, k, n)
    return [A, B]


def get_init_inputs():
    return []
