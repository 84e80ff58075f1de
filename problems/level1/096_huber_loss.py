# KernelBench level 1, problem 96: HuberLoss. The C reference is problems/level1/096_huber_loss.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Smooth L1 (Huber) loss for regression (beta = 1, reduction='mean')."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions, targets):
        return torch.nn.functional.smooth_l1_loss(predictions, targets)


batch_size = 32768
input_shape = (32768,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return []
