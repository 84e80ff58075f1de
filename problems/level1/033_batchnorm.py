# KernelBench level 1, problem 33: BatchNorm (training mode: batch statistics).
# The C reference is problems/level1/033_batchnorm.c.
# Parameters, in this order: bn.weight (ones), bn.bias (zeros), as nn.BatchNorm2d initialises them.
# running_mean / running_var / num_batches_tracked are buffers, not inputs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(x)


batch_size = 64
features = 64
dim1 = 512
dim2 = 512


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
