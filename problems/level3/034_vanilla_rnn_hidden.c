/*
 * level3/034_vanilla_rnn_hidden -- KernelBench L3/34: VanillaRNNHidden, a hand-written RNN cell
 * run over x (256, 8, 1024) from h0 (8, 256) fp32 -> (256, 8, 128): per step t,
 * combined = cat((x[t], hidden), 1), hidden = tanh(i2h(combined)), outputs[t] = h2o(hidden);
 * then torch.stack(outputs). i2h = Linear(1280, 256), h2o = Linear(256, 128); 360,832
 * parameter values.
 *
 * Eager PyTorch, per op: h0.to(x.device) returns h0 (no kernel); x[t] is a contiguous view;
 * torch.cat of two contiguous 2-D tensors along dim 1 is one CatArrayBatchedCopy launch
 * (kb_cat2); each nn.Linear of an (8, k) input is addmm through cuBLASLt with the bias epilogue
 * (every size > 1: kb_linear); nn.Tanh one TensorIterator tanh. 256 steps x (cat, two Linears,
 * tanh) = 1024 launches. torch.stack(outputs, 0) is at::cat of the 256 (8, 128) outputs along
 * dim 0, viewed as (256, 8, 128): cat_out_cuda in two batches of 128 contiguous inputs (kb_cat
 * into the output's (2048, 128) view).
 * Lifetimes: each step's `combined` is freed when the next step's cat has run, i2h's output
 * once tanh has returned, the previous hidden once the new one exists (h0 stays: it is the
 * caller's); every output lives in the list until the stack has copied it. The last combined,
 * hidden and output are locals of forward(), alive until it returns.
 * Napkin math: 256 x 2 x 8 x (1280 x 256 + 256 x 128) = 1.48e9 FLOP, 1.4 MB of weights read
 * each step (L2-resident): the steps are serial and tiny, so launch latency rules: ~1025
 * launches at a few us each. Eager: 16.1 ms on an H100 (reference/kernelbench-problems.csv);
 * 18.4 ms FP32 and 19.9 ms TF32 (warm medians) on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { SEQ = 256, BATCH = 8, IN = 1024, HIDDEN = 256, OUT = 128 };

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor hidden = kb_arg(r, "h0"); /* h0.to(x.device) */
    kb_tensor combined = KB_NEW;
    kb_tensor outputs[SEQ];
    for (int t = 0; t < SEQ; t++) {
        kb_tensor xt = kb_squeeze(r, kb_narrow(r, x, 0, t, 1), 0); /* x[t] */
        kb_tensor c = kb_cat2(r, KB_NEW, xt, hidden, 1);
        kb_drop(r, combined); /* the previous step's (KB_NEW at t = 0: nothing to free) */
        combined = c;
        kb_tensor pre = kb_linear(r, KB_NEW, combined, kb_arg(r, "i2h.weight"), kb_arg(r, "i2h.bias"));
        kb_tensor h = kb_tanh(r, KB_NEW, pre);
        kb_drop(r, pre);
        if (t > 0)
            kb_drop(r, hidden);
        hidden = h;
        outputs[t] = kb_linear(r, KB_NEW, hidden, kb_arg(r, "h2o.weight"), kb_arg(r, "h2o.bias"));
    }
    /* torch.stack(outputs, dim=0): cat along dim 0, then a view */
    kb_cat(r, KB_VIEW(r, kb_arg(r, "y"), SEQ * BATCH, OUT), outputs, SEQ, 0);
}

KB_PROBLEM(.title = "VanillaRNNHidden",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(SEQ, BATCH, IN), KB_RAND),
                     KB_INPUT("h0", KB_F32, KB_DIMS(BATCH, HIDDEN), KB_RAND),
                     KB_PARAM("i2h.weight", KB_F32, KB_DIMS(HIDDEN, IN + HIDDEN), KB_KAIMING(IN + HIDDEN)),
                     KB_PARAM("i2h.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(IN + HIDDEN)),
                     KB_PARAM("h2o.weight", KB_F32, KB_DIMS(OUT, HIDDEN), KB_KAIMING(HIDDEN)),
                     KB_PARAM("h2o.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(HIDDEN))),
           /* terms: i2h's 1280 products, the largest single reduction feeding an output (h2o sums
            * 256 of the tanh'd hidden state) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(SEQ, BATCH, OUT), .terms = IN + HIDDEN)),
           /* per step: the two GEMMs, their bias adds, the tanh */
           .flops = (double)SEQ * (2.0 * BATCH * ((double)(IN + HIDDEN) * HIDDEN + (double)HIDDEN * OUT) +
                                   (double)BATCH * (2 * HIDDEN + OUT)))
