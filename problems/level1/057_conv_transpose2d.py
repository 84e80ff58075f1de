# KernelBench level 1, problem 57: transposed 2D convolution, square input, square kernel.
# The C reference is problems/level1/057_conv_transpose2d.c.
# Parameters, in this order: conv_transpose2d.weight [C_in, C_out, 3, 3] (kaiming-uniform,
# fan_in = weight.size(1) * 3 * 3 = 576), no bias.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, output_padding: int = 0, groups: int = 1, bias: bool = False):
        super().__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=(kernel_size, kernel_size),
                                                   stride=stride, padding=padding, output_padding=output_padding,
                                                   groups=groups, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv_transpose2d(x)


batch_size = 8
in_channels = 64
out_channels = 64
kernel_size = 3
height = 1024
width = 1024


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
