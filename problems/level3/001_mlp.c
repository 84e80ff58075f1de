/*
 * level3/001_mlp -- KernelBench L3/1: MLP, nn.Sequential(Linear(16384, 16384), ReLU,
 * Linear(16384, 16384), ReLU, Linear(16384, 8192)) on x (128, 16384) fp32 -> (128, 8192).
 *
 * Eager PyTorch, per op: each nn.Linear of the 2-D activation is addmm(bias, x, weight.t()), one
 * cublasLtMatmul with the bias epilogue (every size > 1: kb_linear), TF32 by
 * torch.backends.cuda.matmul.allow_tf32; each nn.ReLU (not in place) is one TensorIterator relu
 * writing a new tensor. nn.Sequential's `input = module(input)` frees each layer's input once the
 * layer has returned, so the reference drops each temporary right after its consumer.
 * Napkin math: 2 * 128 * (2 * 16384^2 + 16384 * 8192) = 1.72e11 FLOP; the 2.68 GB of weights
 * (671,129,600 fp32 values) must be read once: ~0.63 ms at ~4.3 TB/s, ~2.6 ms of FP32 at
 * ~67 TFLOP/s, ~0.4 ms of TF32 tensor-core time. With 128 rows the GEMMs are weight-streaming
 * bound in TF32, compute-bound in FP32. Eager: 3.79 ms on an H100
 * (reference/kernelbench-problems.csv); 3.96 ms FP32, 0.81 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, IN = 16384, HIDDEN = 16384, OUT = 8192, LAYERS = 3 };

static void reference(kb_ref *r) /* return self.network(x) */
{
    kb_tensor x = kb_arg(r, "x");
    for (int l = 0; l < LAYERS; l++) {
        const int last = l == LAYERS - 1;
        /* network.<2l> is the Linear, network.<2l+1> the ReLU after it */
        kb_tensor h = kb_linear(r, last ? kb_arg(r, "y") : KB_NEW, x, kb_argf(r, "network.%d.weight", 2 * l),
                                kb_argf(r, "network.%d.bias", 2 * l));
        if (l > 0)
            kb_drop(r, x);
        if (last)
            break;
        x = kb_relu(r, KB_NEW, h);
        kb_drop(r, h);
    }
}

KB_PROBLEM(.title = "MLP",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("network.0.weight", KB_F32, KB_DIMS(HIDDEN, IN), KB_KAIMING(IN)),
                     KB_PARAM("network.0.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(IN)),
                     KB_PARAM("network.2.weight", KB_F32, KB_DIMS(HIDDEN, HIDDEN), KB_KAIMING(HIDDEN)),
                     KB_PARAM("network.2.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(HIDDEN)),
                     KB_PARAM("network.4.weight", KB_F32, KB_DIMS(OUT, HIDDEN), KB_KAIMING(HIDDEN)),
                     KB_PARAM("network.4.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(HIDDEN))),
           /* terms: the last Linear's 16384 products (every layer sums 16384) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = HIDDEN)),
           /* the three GEMMs, their bias adds, the two ReLUs */
           .flops = 2.0 * BATCH * ((double)IN * HIDDEN + (double)HIDDEN * HIDDEN + (double)HIDDEN * OUT) +
                    (double)BATCH * (2 * HIDDEN + OUT) + 2.0 * BATCH * HIDDEN)
