# KernelBench level 1, problem 98: KLDivLoss. The C reference is problems/level1/098_kldiv_loss.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Kullback-Leibler divergence between two distributions (reduction='batchmean')."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions, targets):
        return torch.nn.functional.kl_div(torch.log(predictions), targets, reduction='batchmean')


batch_size = 16384
input_shape = (16384,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape).softmax(dim=-1), torch.rand(batch_size, *input_shape).softmax(dim=-1)]


def get_init_inputs():
    return []
