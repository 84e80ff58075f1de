# KernelBench level 1, problem 34: InstanceNorm. The C reference is problems/level1/034_instancenorm.c.
# nn.InstanceNorm2d defaults: affine=False, track_running_stats=False: no parameters, no buffers.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inorm(x)


batch_size = 112
features = 64
dim1 = 512
dim2 = 512


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
