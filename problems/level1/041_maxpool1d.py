# KernelBench level 1, problem 41: Max Pooling 1D. The C reference is problems/level1/041_maxpool1d.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Simple model that performs Max Pooling 1D."""

    def __init__(self, kernel_size: int, stride: int = None, padding: int = 0, dilation: int = 1,
                 return_indices: bool = False):
        super(Model, self).__init__()
        self.maxpool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
                                    return_indices=return_indices)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.maxpool(x)


batch_size = 64
features = 192
sequence_length = 65536

kernel_size = 8
stride = 1
padding = 4
dilation = 3

return_indices = False


def get_inputs():
    x = torch.rand(batch_size, features, sequence_length)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding, dilation, return_indices]
