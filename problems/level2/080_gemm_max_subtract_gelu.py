# KernelBench level 2, problem 80: Gemm Max Subtract GELU. The C reference is problems/level2/080_gemm_max_subtract_gelu.c.
# After the max over dim 1 (keepdim) the mean is over a dimension of size 1, so x - mean is
# exactly 0 and the output is GELU(0) = 0 everywhere: the problem is excluded from the tables.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, row max (keepdim), minus its mean over dim 1, then GELU.
    """

    def __init__(self, in_features, out_features, max_dim):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.max_dim = max_dim

    def forward(self, x):
        """
        x: (batch_size, in_features) -> (batch_size, 1)
        """
        x = self.gemm(x)
        x = torch.max(x, dim=self.max_dim, keepdim=True).values
        x = x - x.mean(dim=1, keepdim=True)
        x = torch.nn.functional.gelu(x)
        return x


batch_size = 1024
in_features = 8192
out_features = 8192
max_dim = 1


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, max_dim]
