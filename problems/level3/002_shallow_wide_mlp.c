/*
 * level3/002_shallow_wide_mlp -- KernelBench L3/2: ShallowWideMLP, nn.Sequential(Linear(16384,
 * 32768), ReLU, Linear(32768, 32768), ReLU, Linear(32768, 16384)) on x (128, 16384) fp32 ->
 * (128, 16384).
 *
 * Eager PyTorch, per op: each nn.Linear of the 2-D activation is addmm(bias, x, weight.t()), one
 * cublasLtMatmul with the bias epilogue (every size > 1: kb_linear), TF32 by
 * torch.backends.cuda.matmul.allow_tf32; each nn.ReLU (not in place) is one TensorIterator relu
 * writing a new tensor. nn.Sequential's `input = module(input)` frees each layer's input once the
 * layer has returned, so the reference drops each temporary right after its consumer. The middle
 * weight is 32768 x 32768 = 2^30 values (4 GiB): its leading dimension and every GEMM size fit
 * cuBLAS's 32-bit arguments.
 * Napkin math: 2 * 128 * (16384 * 32768 + 32768^2 + 32768 * 16384) = 5.50e11 FLOP; the 8.59 GB of
 * weights (2,147,565,568 fp32 values) are read once: ~2.0 ms at ~4.3 TB/s, ~8.2 ms of FP32 at
 * ~67 TFLOP/s, ~1.4 ms of TF32 tensor-core time: weight-streaming bound in TF32, compute-bound in
 * FP32. Eager: 11.0 ms on an H100 (reference/kernelbench-problems.csv); 10.82 ms FP32, 2.22 ms
 * TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, IN = 16384, HIDDEN = 32768, OUT = 16384, LAYERS = 3 };

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

KB_PROBLEM(.title = "ShallowWideMLP",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("network.0.weight", KB_F32, KB_DIMS(HIDDEN, IN), KB_KAIMING(IN)),
                     KB_PARAM("network.0.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(IN)),
                     KB_PARAM("network.2.weight", KB_F32, KB_DIMS(HIDDEN, HIDDEN), KB_KAIMING(HIDDEN)),
                     KB_PARAM("network.2.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(HIDDEN)),
                     KB_PARAM("network.4.weight", KB_F32, KB_DIMS(OUT, HIDDEN), KB_KAIMING(HIDDEN)),
                     KB_PARAM("network.4.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(HIDDEN))),
           /* terms: the last Linear's 32768 products (the largest reduction of the three) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = HIDDEN)),
           /* the three GEMMs, their bias adds, the two ReLUs */
           .flops = 2.0 * BATCH * ((double)IN * HIDDEN + (double)HIDDEN * HIDDEN + (double)HIDDEN * OUT) +
                    (double)BATCH * (2 * HIDDEN + OUT) + 2.0 * BATCH * HIDDEN)
