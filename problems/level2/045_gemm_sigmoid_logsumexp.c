/*
 * level2/045_gemm_sigmoid_logsumexp -- KernelBench L2/45: x = linear2(sigmoid(linear1(x)));
 * return torch.logsumexp(x, dim=1), linear1 = nn.Linear(2048, 4096), linear2 =
 * nn.Linear(4096, 1024), on x (16384, 2048) fp32 -> (16384,).
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); sigmoid; the
 * second addmm; logsumexp's composite over the 1024 outputs (amax, the infinite-max mask, sub,
 * exp, sum, log, add: kb_logsumexp) into the (16384,) result. Each temporary is freed once the
 * next op has read it.
 * Accuracy: terms = (2048 + 4096) * 1024: the two GEMMs' sums in sequence (their rounding errors
 * add, as L1/99's), and the log-sum-exp over 1024 of their outputs.
 * Napkin math: 2 * 16384 * (2048 * 4096 + 4096 * 1024) = 4.12e11 FLOP: ~8.2 ms of FP32
 * (~50 TFLOP/s), ~1.2 ms of TF32; the 268 MB hidden activation is written, read by sigmoid,
 * written again and read by the second GEMM (~1.1 GB, ~0.25 ms). Eager: 8.5 ms on an H100
 * (reference/kernelbench-problems.csv); 8.47 ms FP32, 1.35 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 16384, IN = 2048, HIDDEN = 4096, OUT = 1024 };

static void reference(kb_ref *r)
{
    static const int dim1[] = {1};
    kb_tensor h = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear1.weight"), kb_arg(r, "linear1.bias"));
    kb_tensor s = kb_sigmoid(r, KB_NEW, h);
    kb_drop(r, h);
    kb_tensor o = kb_linear(r, KB_NEW, s, kb_arg(r, "linear2.weight"), kb_arg(r, "linear2.bias"));
    kb_drop(r, s);
    kb_logsumexp(r, kb_arg(r, "y"), o, dim1, 1, 0);
}

KB_PROBLEM(.title = "Gemm Sigmoid LogSumExp",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("linear1.weight", KB_F32, KB_DIMS(HIDDEN, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear1.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(IN)),
                     KB_PARAM("linear2.weight", KB_F32, KB_DIMS(OUT, HIDDEN), KB_KAIMING(HIDDEN)),
                     KB_PARAM("linear2.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(HIDDEN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH), .terms = (int64_t)(IN + HIDDEN) * OUT)),
           /* two GEMMs; bias and sigmoid (4) on the hidden layer, bias and logsumexp (~5) on the outputs */
           .flops = 2.0 * BATCH * HIDDEN * IN + 2.0 * BATCH * OUT * HIDDEN + 5.0 * BATCH * HIDDEN + 6.0 * BATCH * OUT,
           .flags = KB_PROB_CENTERED)
