# KernelBench level 2, problem 41: Gemm BatchNorm GELU ReLU. The C reference is problems/level2/041_gemm_batchnorm_gelu_relu.c.
# The model stays in training mode: BatchNorm1d normalises with the batch statistics.
# running_mean / running_var / num_batches_tracked are buffers, not inputs.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, BatchNorm1d, GELU, then ReLU.
    """

    def __init__(self, in_features, out_features):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.batch_norm = nn.BatchNorm1d(out_features)

    def forward(self, x):
        """
        x: (batch_size, in_features) -> (batch_size, out_features)
        """
        x = self.gemm(x)
        x = self.batch_norm(x)
        x = torch.nn.functional.gelu(x)
        x = torch.relu(x)
        return x


batch_size = 16384
in_features = 4096
out_features = 4096


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
