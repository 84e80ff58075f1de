# KernelBench level 2, problem 76: Gemm Add ReLU. The C reference is problems/level2/076_gemm_add_relu.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer without bias, plus a learned bias, then ReLU.
    """

    def __init__(self, in_features, out_features, bias_shape):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        """
        x: (batch_size, in_features) -> (batch_size, out_features)
        """
        x = self.gemm(x)
        x = x + self.bias
        x = torch.relu(x)
        return x


batch_size = 1024
in_features = 8192
out_features = 8192
bias_shape = (out_features,)


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, bias_shape]
