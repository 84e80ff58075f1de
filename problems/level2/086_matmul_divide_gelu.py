# KernelBench level 2, problem 86: Matmul Divide GELU. The C reference is problems/level2/086_matmul_divide_gelu.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, divided by a constant, then GELU.
    """

    def __init__(self, input_size, output_size, divisor):
        super(Model, self).__init__()
        self.linear = nn.Linear(input_size, output_size)
        self.divisor = divisor

    def forward(self, x):
        """
        x: (batch_size, input_size) -> (batch_size, output_size)
        """
        x = self.linear(x)
        x = x / self.divisor
        x = torch.nn.functional.gelu(x)
        return x


batch_size = 1024
input_size = 8192
output_size = 8192
divisor = 10.0


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, output_size, divisor]
