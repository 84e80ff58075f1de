/*
 * level3/003_deep_narrow_mlp -- KernelBench L3/3: DeepNarrowMLP, nn.Sequential of 17 Linear
 * layers (8192 -> 1024, fifteen 1024 -> 1024, 1024 -> 8192) with a ReLU after each of the first
 * 16, on x (1024, 8192) fp32 -> (1024, 8192).
 *
 * Eager PyTorch, per op: each nn.Linear of the 2-D activation is addmm(bias, x, weight.t()), one
 * cublasLtMatmul with the bias epilogue (every size > 1: kb_linear), TF32 by
 * torch.backends.cuda.matmul.allow_tf32; each nn.ReLU (not in place) is one TensorIterator relu
 * writing a new tensor: 33 kernels. nn.Sequential's `input = module(input)` frees each layer's
 * input once the layer has returned, so the reference drops each temporary right after its
 * consumer.
 * Napkin math: 2 * 1024 * (2 * 8192 * 1024 + 15 * 1024^2) = 6.66e10 FLOP, ~1.0 ms of FP32 at
 * ~67 TFLOP/s, ~0.2 ms of TF32; weights 130 MB (32,530,432 values) and activations of 4 MB
 * (33.5 MB at the ends) are small: compute-bound in FP32, launch- and small-GEMM-bound in TF32.
 * Eager: 1.81 ms on an H100 (reference/kernelbench-problems.csv); 1.85 ms FP32, 0.73 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, HIDDEN = 1024, DEPTH = 16, OUT = 8192, LAYERS = DEPTH + 1 };

/* named_parameters(): network.<2l>.weight, network.<2l>.bias for Linear l (the ReLUs hold none) */
static void describe(kb_net *n)
{
    for (int l = 0; l < LAYERS; l++) {
        char name[32];
        snprintf(name, sizeof name, "network.%d", 2 * l);
        kb_net_linear(n, name, l == 0 ? IN : HIDDEN, l == LAYERS - 1 ? OUT : HIDDEN, 1);
    }
}

static void reference(kb_ref *r) /* return self.network(x) */
{
    kb_tensor x = kb_arg(r, "x");
    for (int l = 0; l < LAYERS; l++) {
        const int last = l == LAYERS - 1;
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

KB_PROBLEM(.title = "DeepNarrowMLP", .describe = describe,
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND)),
           /* terms: the first Linear's 8192 products, the largest single reduction of the chain
            * (the last one sums 1024) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           /* the 17 GEMMs, their bias adds, the 16 ReLUs */
           .flops = 2.0 * BATCH * (2.0 * IN * HIDDEN + (DEPTH - 1.0) * HIDDEN * HIDDEN) +
                    (double)BATCH * (DEPTH * HIDDEN + OUT) + (double)BATCH * DEPTH * HIDDEN)
