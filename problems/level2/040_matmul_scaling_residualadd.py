# KernelBench level 2, problem 40: Matmul Scaling ResidualAdd. The C reference is problems/level2/040_matmul_scaling_residualadd.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, then x * scaling_factor + (a copy of x).

    Args:
        in_features (int): Number of input features.
        out_features (int): Number of output features.
        scaling_factor (float): Factor applied to the linear layer's output.
    """

    def __init__(self, in_features, out_features, scaling_factor):
        super(Model, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        """
        x: (batch_size, in_features) -> (batch_size, out_features)
        """
        x = self.matmul(x)
        original_x = x.clone().detach()
        x = x * self.scaling_factor
        x = x + original_x
        return x


batch_size = 16384
in_features = 4096
out_features = 4096
scaling_factor = 0.5


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]
