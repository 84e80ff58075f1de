# KernelBench level 2, problem 28: BMM InstanceNorm Sum ResidualAdd Multiply. The C reference is problems/level2/028_bmm_instancenorm_sum_residualadd_multiply.c.
# InstanceNorm2d (affine=False, no running stats: no parameters, no buffers) sees a
# (batch_size, 1, 1, out_features) view: it normalises each row over its out_features values
# (its num_features does not match the view's single channel; PyTorch only warns, as affine=False).
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, instance norm of each row, then (x + y) * y.
    """

    def __init__(self, in_features, out_features, eps=1e-5, momentum=0.1):
        super(Model, self).__init__()
        self.bmm = nn.Linear(in_features, out_features)
        self.instance_norm = nn.InstanceNorm2d(out_features, eps=eps, momentum=momentum)

    def forward(self, x, y):
        """
        x: (batch_size, in_features), y: (batch_size, out_features) -> (batch_size, out_features)
        """
        x = self.bmm(x)
        x = self.instance_norm(x.unsqueeze(1).unsqueeze(1)).squeeze(1).squeeze(1)
        x = x + y
        x = x * y
        return x


batch_size = 1024
in_features = 8192
out_features = 8192


def get_inputs():
    return [torch.rand(batch_size, in_features), torch.rand(batch_size, out_features)]


def get_init_inputs():
    return [in_features, out_features]
