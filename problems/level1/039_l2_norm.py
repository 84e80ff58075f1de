# KernelBench level 1, problem 39: L2 normalisation over dim 1.
# The C reference is problems/level1/039_l2_norm.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.norm(x, p=2, dim=1, keepdim=True)


batch_size = 32768
dim = 65535


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
