# KernelBench level 2, problem 14: Gemm Divide Sum Scaling. The C reference is problems/level2/014_gemm_divide_sum_scaling.c.
# The weight is a plain nn.Parameter drawn by torch.randn (not nn.Linear's initialisation).
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    x @ weight.T, halved, summed over the features (keepdim), times a constant.
    """

    def __init__(self, input_size, hidden_size, scaling_factor):
        super(Model, self).__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        """
        x: (batch_size, input_size) -> (batch_size, 1)
        """
        x = torch.matmul(x, self.weight.T)  # Gemm
        x = x / 2  # Divide
        x = torch.sum(x, dim=1, keepdim=True)  # Sum
        x = x * self.scaling_factor  # Scaling
        return x


batch_size = 1024
input_size = 8192
hidden_size = 8192
scaling_factor = 1.5


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, scaling_factor]
