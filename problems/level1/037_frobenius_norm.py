# KernelBench level 1, problem 37: Frobenius norm normalisation.
# The C reference is problems/level1/037_frobenius_norm.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        norm = torch.norm(x, p='fro')
        return x / norm


batch_size = 112
features = 64
dim1 = 512
dim2 = 512


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return []
