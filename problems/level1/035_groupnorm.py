# KernelBench level 1, problem 35: GroupNorm. The C reference is problems/level1/035_groupnorm.c.
# Parameters, in this order: gn.weight (ones), gn.bias (zeros), as nn.GroupNorm initialises them.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int, num_groups: int):
        super().__init__()
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gn(x)


batch_size = 112
features = 64
num_groups = 8
dim1 = 512
dim2 = 512


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features, num_groups]
