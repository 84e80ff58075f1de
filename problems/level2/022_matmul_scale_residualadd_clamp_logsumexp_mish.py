# KernelBench level 2, problem 22: Matmul Scale ResidualAdd Clamp LogSumExp Mish. The C reference is problems/level2/022_matmul_scale_residualadd_clamp_logsumexp_mish.c.
# logsumexp reduces to (batch_size, 1) first: the Mish and the product act on batch_size values.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, scaled, added to itself, clamped, log-sum-exp over the features, then x * mish(x).
    """

    def __init__(self, input_size, hidden_size, scale_factor, clamp_min, clamp_max):
        super(Model, self).__init__()
        self.matmul = nn.Linear(input_size, hidden_size)
        self.scale_factor = scale_factor
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x):
        """
        x: (batch_size, input_size) -> (batch_size, 1)
        """
        x = self.matmul(x)
        x = x * self.scale_factor
        x = x + x
        x = torch.clamp(x, self.clamp_min, self.clamp_max)
        x = torch.logsumexp(x, dim=1, keepdim=True)
        x = x * torch.nn.functional.mish(x)  # Mish activation
        return x


batch_size = 1024
input_size = 8192
hidden_size = 8192
scale_factor = 2.0
clamp_min = -10.0
clamp_max = 10.0


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, scale_factor, clamp_min, clamp_max]
