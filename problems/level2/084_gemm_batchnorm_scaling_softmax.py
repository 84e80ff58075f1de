# KernelBench level 2, problem 84: Gemm BatchNorm Scaling Softmax. The C reference is problems/level2/084_gemm_batchnorm_scaling_softmax.c.
# The model stays in training mode: BatchNorm1d normalises with the batch statistics.
# running_mean / running_var / num_batches_tracked are buffers, not inputs. scale is a
# one-element (1,) parameter (torch.ones), not a 0-d one.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, BatchNorm1d, times a learned scale, then softmax over the features.
    """

    def __init__(self, in_features, out_features, bn_eps=1e-5, bn_momentum=0.1, scale_shape=(1,)):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features, eps=bn_eps, momentum=bn_momentum)
        self.scale = nn.Parameter(torch.ones(scale_shape))
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        """
        x: (batch_size, in_features) -> (batch_size, out_features)
        """
        x = self.gemm(x)
        x = self.bn(x)
        x = self.scale * x
        x = self.softmax(x)
        return x


batch_size = 1024
in_features = 8192
out_features = 8192
bn_eps = 1e-5
bn_momentum = 0.1
scale_shape = (1,)


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, bn_eps, bn_momentum, scale_shape]
