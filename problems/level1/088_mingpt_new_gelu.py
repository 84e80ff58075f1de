# KernelBench level 1, problem 88: MinGPTNewGelu. The C reference is problems/level1/088_mingpt_new_gelu.c.
import math

import torch
import torch.nn as nn

# From https://github.com/karpathy/minGPT/blob/master/mingpt/model.py


class Model(nn.Module):
    """The GELU of Google BERT / OpenAI GPT (Gaussian Error Linear Units, arXiv:1606.08415)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


batch_size = 8192
dim = 8192


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
