# KernelBench level 3, problem 34: VanillaRNNHidden. The C reference is problems/level3/034_vanilla_rnn_hidden.c.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size: int, hidden_size: int, output_size: int):
        """
        A vanilla RNN cell run over a whole sequence.

        :param input_size: The number of input features
        :param hidden_size: The size of the hidden state
        :param output_size: The number of output features
        """
        super(Model, self).__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.output_size = output_size

        # input to hidden, hidden to output, and the hidden state's activation
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.tanh = nn.Tanh()

    def forward(self, x: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
        """
        :param x: Input tensor, shape (seq_len, batch_size, input_size)
        :param h0: Initial hidden state, shape (batch_size, hidden_size)
        :return: Output tensor, shape (seq_len, batch_size, output_size)
        """
        seq_len, batch_size, _ = x.size()
        hidden = h0.to(x.device)
        outputs = []

        for t in range(seq_len):
            combined = torch.cat((x[t], hidden), dim=1)  # concatenate input and hidden state
            hidden = self.tanh(self.i2h(combined))  # update the hidden state
            output = self.h2o(hidden)  # compute the output
            outputs.append(output)

        return torch.stack(outputs, dim=0)  # (seq_len, batch_size, output_size)


batch_size = 8
input_size = 1024
hidden_size = 256
output_size = 128
sequence_length = 256


def get_inputs():
    return [torch.rand(sequence_length, batch_size, input_size), torch.rand(batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, output_size]
