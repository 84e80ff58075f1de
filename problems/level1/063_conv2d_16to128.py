# KernelBench level 1, problem 63: conv standard 2D square input square kernel.
# The C reference is problems/level1/063_conv2d_16to128.c.
# Parameters, in this order: conv2d.weight [128, 16, 3, 3] (kaiming-uniform, fan_in = 144), no bias.
# y has 16*128*1022*1022 = 2,139,103,232 elements (7.97 GiB): just under INT_MAX, so even PyTorch's
# v7 path would not split it.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0, dilation: int = 1, groups: int = 1, bias: bool = False):
        super(Model, self).__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, (kernel_size, kernel_size), stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv2d(x)


batch_size = 16
in_channels = 16
out_channels = 128
kernel_size = 3
width = 1024
height = 1024


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
