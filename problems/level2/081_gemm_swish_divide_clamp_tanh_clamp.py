# KernelBench level 2, problem 81: Gemm Swish Divide Clamp Tanh Clamp. The C reference is problems/level2/081_gemm_swish_divide_clamp_tanh_clamp.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, Swish, halved, clamped to [-1, 1], tanh, clamped to [-1, 1] again.
    """

    def __init__(self, in_features, out_features, bias=True):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=bias)

    def forward(self, x):
        """
        x: (batch_size, in_features) -> (batch_size, out_features)
        """
        x = self.gemm(x)
        x = x * torch.sigmoid(x)  # Swish activation
        x = x / 2.0
        x = torch.clamp(x, min=-1.0, max=1.0)  # Clamp between -1 and 1
        x = torch.tanh(x)  # Tanh activation
        x = torch.clamp(x, min=-1.0, max=1.0)  # Clamp between -1 and 1
        return x


batch_size = 1024
in_features = 8192
out_features = 8192


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
