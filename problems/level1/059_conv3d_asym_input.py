# KernelBench level 1, problem 59: conv standard 3D asymmetric input square kernel.
# The C reference is problems/level1/059_conv3d_asym_input.c.
# Parameters, in this order: conv3d.weight [64, 3, 3, 3, 1] (kaiming-uniform, fan_in = 27), no bias.
# The module builds a (k, k, 1) kernel: a 2-D 3x3 stencil applied to each of the 10 depth slices.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0, dilation: int = 1, groups: int = 1, bias: bool = False):
        super(Model, self).__init__()
        self.conv3d = nn.Conv3d(in_channels, out_channels, (kernel_size, kernel_size, 1), stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv3d(x)


batch_size = 16
in_channels = 3
out_channels = 64
kernel_size = 3
width = 256
height = 256
depth = 10


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width, depth)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
