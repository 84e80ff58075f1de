# KernelBench level 2, problem 56: Matmul Sigmoid Sum. The C reference is problems/level2/056_matmul_sigmoid_sum.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, sigmoid, then the row sum (keepdim).
    """

    def __init__(self, input_size, hidden_size):
        super(Model, self).__init__()
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x):
        """
        x: (batch_size, input_size) -> (batch_size, 1)
        """
        x = self.linear(x)
        x = torch.sigmoid(x)
        x = torch.sum(x, dim=1, keepdim=True)
        return x


batch_size = 128
input_size = 32768
hidden_size = 32768


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
