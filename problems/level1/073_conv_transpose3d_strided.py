# KernelBench level 1, problem 73: conv transposed 3D asymmetric input square kernel strided padded grouped.
# The C reference is problems/level1/073_conv_transpose3d_strided.c.
# Parameters, in this order: conv_transpose3d.weight [32, 32, 3, 3, 3] (kaiming-uniform, fan_in = 864), no bias.
# Named grouped, but get_init_inputs passes groups=4 in the output_padding slot, which __init__ does
# not forward: the layer really has groups=1 and output_padding=0 (weight [32, 32, 3, 3, 3]).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0, output_padding: int = 0, groups: int = 1, bias: bool = False):
        super(Model, self).__init__()
        self.conv_transpose3d = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=(kernel_size, kernel_size, kernel_size), stride=stride, padding=padding, groups=groups, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv_transpose3d(x)


batch_size = 4
in_channels = 32
out_channels = 32
kernel_size = 3
depth = 32
height = 64
width = 128
stride = 2
padding = 1
groups = 4


def get_inputs():
    x = torch.rand(batch_size, in_channels, depth, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, groups]
