# KernelBench level 3, problem 33: VanillaRNN. The C reference is problems/level3/033_vanilla_rnn.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size: int, hidden_size: int, output_size: int):
        """
        One step of a vanilla RNN cell.

        :param input_size: The number of input features
        :param hidden_size: The size of the hidden state
        :param output_size: The number of output features
        """
        super(Model, self).__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.output_size = output_size
        self.hidden = torch.randn((batch_size, hidden_size))

        # input to hidden, hidden to output, and the hidden state's activation
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.tanh = nn.Tanh()

    def forward(self, x: torch.Tensor, initial_hidden=None) -> torch.Tensor:
        """
        :param x: Input tensor, shape (batch_size, input_size)
        :param initial_hidden: Hidden state, shape (batch_size, hidden_size), copied into self.hidden
        :return: Output tensor, shape (batch_size, output_size)
        """
        if initial_hidden is not None:
            self.hidden.copy_(initial_hidden)
        self.hidden = self.hidden.to(x.device).to(x.dtype)
        combined = torch.cat((x, self.hidden), dim=1)  # concatenate input and hidden state
        self.hidden = self.tanh(self.i2h(combined))  # update the hidden state
        output = self.h2o(self.hidden)  # compute the output
        return output


batch_size = 256
input_size = 16384
hidden_size = 16384
output_size = 8192
sequence_length = 256


def get_inputs():
    return [torch.rand(batch_size, input_size), torch.rand(batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, output_size]
