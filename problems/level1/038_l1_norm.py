# KernelBench level 1, problem 38: L1 normalisation (by the mean of |x| over dim 1).
# The C reference is problems/level1/038_l1_norm.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.mean(torch.abs(x), dim=1, keepdim=True)


batch_size = 32768
dim = 65535


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
