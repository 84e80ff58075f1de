# KernelBench level 1, problem 50: conv standard 2D square input square kernel.
# The C reference is problems/level1/050_conv2d_alexnet_conv1.c.
# Parameters, in this order: conv1.weight [96, 3, 11, 11] (kaiming-uniform, fan_in = 363), conv1.bias [96].
# AlexNet's first layer (with bias); the num_classes init argument is unused.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_classes=1000):
        super(Model, self).__init__()
        self.conv1 = nn.Conv2d(in_channels=3, out_channels=96, kernel_size=11, stride=4, padding=2)

    def forward(self, x):
        x = self.conv1(x)
        return x


batch_size = 256
num_classes = 1000


def get_inputs():
    return [torch.rand(batch_size, 3, 224, 224)]


def get_init_inputs():
    return [num_classes]
