# KernelBench level 1, problem 94: MSELoss. The C reference is problems/level1/094_mse_loss.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Mean squared error loss for regression."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions, targets):
        return torch.mean((predictions - targets) ** 2)


batch_size = 32768
input_shape = (32768,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return []
