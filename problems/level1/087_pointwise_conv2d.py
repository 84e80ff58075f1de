# KernelBench level 1, problem 87: conv pointwise 2D.
# The C reference is problems/level1/087_pointwise_conv2d.c.
# Parameters, in this order: conv1d.weight [128, 64, 1, 1] (kaiming-uniform, fan_in = 64), no bias.
# The attribute is named conv1d although it is a Conv2d (KernelBench's naming): the parameter is
# conv1d.weight. y has 16*128*1024*1024 = 2^31 elements (8 GiB), one more than INT_MAX. PyTorch 2.11
# still makes ONE cuDNN call: its batch split (split_batch_dim_to_32bit_out) is in the v7 path only,
# and the v8 path leaves 64-bit indexing to cuDNN (ConvShared.h; ops/dnn.cu).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, bias: bool = False):
        super(Model, self).__init__()
        self.conv1d = nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, padding=0, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv1d(x)


batch_size = 16
in_channels = 64
out_channels = 128
width = 1024
height = 1024


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels]
