# KernelBench level 2, problem 51: Gemm Subtract GlobalAvgPool LogSumExp GELU ResidualAdd. The C reference is problems/level2/051_gemm_subtract_globalavgpool_logsumexp_gelu_residualadd.c.
# The log-sum-exp reduces a dimension of size 1; the residual add broadcasts (batch_size, 1)
# against the input's copy.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, minus a learned vector, row mean, log-sum-exp, GELU, plus a copy of the input.
    """

    def __init__(self, in_features, out_features, bias=True):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=bias)
        self.subtract = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        original_x = x.clone().detach()
        # Gemm
        x = self.gemm(x)

        # Subtract
        x = x - self.subtract

        # GlobalAvgPool
        x = torch.mean(x, dim=1, keepdim=True)

        # LogSumExp
        x = torch.logsumexp(x, dim=1, keepdim=True)

        # GELU
        x = torch.nn.functional.gelu(x)

        # ResidualAdd
        x = x + original_x

        return x


batch_size = 2048
in_features = 8192
out_features = 8192


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
