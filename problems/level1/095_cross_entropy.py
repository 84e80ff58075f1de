# KernelBench level 1, problem 95: CrossEntropyLoss. The C reference is problems/level1/095_cross_entropy.c.
# The targets are int64 class indices (upstream casts them to float:
# https://github.com/ScalingIntelligence/KernelBench/issues/151).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(predictions, targets)


batch_size = 32768
num_classes = 4096
input_shape = (num_classes,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
