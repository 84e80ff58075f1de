/*
 * level2/066_matmul_dropout_softmax -- KernelBench L2/66: x = torch.softmax(dropout(matmul(x)), 1),
 * matmul = nn.Linear(16384, 16384), dropout = nn.Dropout(0.2) LIVE (KernelBench models stay in
 * training mode), on x (128, 16384) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); F.dropout in
 * training mode: native_dropout's fused kernel (Philox keep mask with probability 0.8, kept values
 * times 1.25; the bool mask is allocated and dropped: kb_dropout); softmax over the 16384
 * features (host_softmax, one block per row: kb_softmax). Each temporary is freed once the next
 * op has read it.
 * What the output depends on: the mask, drawn afresh from the generator's Philox state on every
 * call, sets 20% of each row's logits to 0 (not -inf) before the softmax, so the output is not a
 * function of x and the parameters alone: no two calls, and no submission, reproduce it bitwise
 * (flagged nondeterministic). The strict protocol checks it against the reference re-run with the
 * mask read from the output under check (replay() below; docs/protocols.md, "Live dropout"). The
 * values are ~1/16384 = 6e-5 each, below the paper's atol of 1e-4 (the csv's note): a flat check
 * at that tolerance is nearly vacuous here.
 * Accuracy: terms = 16384 * 16384 (the softmax's row sum of exponentials of 16384-term GEMM outputs).
 * Napkin math: 2 * 128 * 16384 * 16384 = 6.87e10 FLOP: ~1.4 ms of FP32 (~50 TFLOP/s), ~0.2 ms of
 * TF32; the 1.07 GB weight is read in ~0.25 ms, so TF32 is weight-bandwidth-bound; the 8.4 MB
 * activations cost nothing. Eager: 1.44 ms on an H100 (reference/kernelbench-problems.csv);
 * 1.58 ms FP32, 0.33 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, IN = 16384, OUT = 16384 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "matmul.weight"), kb_arg(r, "matmul.bias"));
    kb_tensor d = kb_dropout(r, KB_NEW, l, 0.2, 1); /* dropout_p, training */
    kb_drop(r, l);
    kb_softmax(r, kb_arg(r, "y"), d, 1);
}

/* The mask a call drew, read from its output (docs/protocols.md, "Live dropout"): a dropped logit
 * is 0, so within a row every dropped element's softmax is exp(-max) / sum, one value shared by
 * ~3277 elements, while a kept one is its own; the row's most frequent value marks the dropped. */
static void replay(kb_ref *r)
{
    kb_tensor m = kb_row_mode_mask(r, KB_NEW, kb_arg(r, "y"));
    kb_replay_dropout(r, m, 0.2);
    kb_drop(r, m);
}

KB_PROBLEM(.title = "Matmul Dropout Softmax",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("matmul.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("matmul.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * OUT)),
           .flops = 2.0 * BATCH * OUT * IN + 8.0 * BATCH * OUT, /* GEMM; bias, dropout (2), softmax (5) */
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED, .replay = replay)
