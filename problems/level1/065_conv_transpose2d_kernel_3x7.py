# KernelBench level 1, problem 65: conv transposed 2D square input asymmetric kernel.
# The C reference is problems/level1/065_conv_transpose2d_kernel_3x7.c.
# Parameters, in this order: conv_transpose2d.weight [64, 64, 3, 7] (kaiming-uniform, fan_in = 1344), no bias.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: int = 1, padding: int = 0, output_padding: int = 0, groups: int = 1, bias: bool = False):
        super(Model, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding, groups=groups, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv_transpose2d(x)


batch_size = 8
in_channels = 64
out_channels = 64
kernel_size = (3, 7)
width = 512
height = 512


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
