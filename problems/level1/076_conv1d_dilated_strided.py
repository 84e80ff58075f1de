# KernelBench level 1, problem 76: conv standard 1D dilated strided.
# The C reference is problems/level1/076_conv1d_dilated_strided.c.
# Parameters, in this order: conv1d.weight [128, 64, 3] (kaiming-uniform, fan_in = 192), no bias.
# x has 64*64*524280 = 2,147,450,880 elements (8 GiB): 32767 under INT_MAX, so no PyTorch path
# splits it; 64-bit offsets are still needed for byte addresses.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, dilation: int = 1, bias: bool = False):
        super(Model, self).__init__()
        self.conv1d = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, dilation=dilation, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv1d(x)


batch_size = 64
in_channels = 64
out_channels = 128
kernel_size = 3
length = 524280
stride = 3
dilation = 4


def get_inputs():
    x = torch.rand(batch_size, in_channels, length)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, dilation]
