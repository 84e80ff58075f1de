/*
 * level3/033_vanilla_rnn -- KernelBench L3/33: VanillaRNN, one step of a hand-written RNN cell on
 * x (256, 16384) and initial_hidden (256, 16384) fp32 -> (256, 8192): self.hidden.copy_(h0),
 * combined = cat((x, hidden), 1), hidden = tanh(i2h(combined)), output = h2o(hidden).
 * i2h = Linear(32768, 16384), h2o = Linear(16384, 8192); 671,113,216 parameter values.
 * self.hidden is a plain tensor attribute (torch.randn((batch_size, hidden_size)) at __init__,
 * from the module-level batch_size): module state, not a parameter or buffer (KB_STATE).
 *
 * Eager PyTorch, per op, in the steady state the timer sees: `self.hidden.copy_(initial_hidden)`
 * is copy_ between two contiguous fp32 CUDA tensors, one cudaMemcpyAsync device to device
 * (Copy.cu copy_device_to_device; kb_copy takes the same path). On the very first call
 * self.hidden is still the CPU tensor __init__ made (.cuda() moves parameters and buffers, not
 * plain attributes): that call copies to the host and back; from the second call on self.hidden
 * is the CUDA tensor the previous call's tanh made, so every warm call runs the device copy.
 * `.to(x.device).to(x.dtype)` returns self (no kernel). torch.cat of two contiguous 2-D tensors
 * along dim 1 is one CatArrayBatchedCopy launch (kb_cat2); each nn.Linear of a 2-D input is
 * addmm through cuBLASLt with the bias epilogue (kb_linear); nn.Tanh one TensorIterator tanh.
 * Lifetimes: `combined` is a local of forward(), alive until it returns; i2h's output is freed
 * once tanh has returned; the tanh result becomes self.hidden (the old one is freed then).
 * Deliberate difference: the reference leaves the state tensor holding initial_hidden and keeps
 * the tanh result in a temporary, freed when reference() returns, where eager rebinds
 * self.hidden to it. No output changes: every call first copies initial_hidden over the state,
 * and the peak memory is eager's (the old state and the new hidden are both live at the tanh,
 * as in eager).
 * Napkin math: 2 * 256 * (32768 * 16384 + 16384 * 8192) = 3.44e11 FLOP; the 2.68 GB of weights
 * are read once (~0.63 ms at ~4.3 TB/s), ~5.1 ms of FP32 at ~67 TFLOP/s, ~0.9 ms of TF32
 * tensor-core time: compute-bound in FP32. Eager: 6.84 ms on an H100
 * (reference/kernelbench-problems.csv); 6.98 ms FP32, 1.03 ms TF32 (warm medians) on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 256, IN = 16384, HIDDEN = 16384, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor hidden = kb_arg(r, "hidden");
    kb_copy(r, hidden, kb_arg(r, "initial_hidden")); /* self.hidden.copy_(initial_hidden) */
    kb_tensor combined = kb_cat2(r, KB_NEW, kb_arg(r, "x"), hidden, 1);
    kb_tensor pre = kb_linear(r, KB_NEW, combined, kb_arg(r, "i2h.weight"), kb_arg(r, "i2h.bias"));
    kb_tensor h = kb_tanh(r, KB_NEW, pre); /* the new self.hidden */
    kb_drop(r, pre);
    kb_linear(r, kb_arg(r, "y"), h, kb_arg(r, "h2o.weight"), kb_arg(r, "h2o.bias"));
}

KB_PROBLEM(.title = "VanillaRNN",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_INPUT("initial_hidden", KB_F32, KB_DIMS(BATCH, HIDDEN), KB_RAND),
                     KB_PARAM("i2h.weight", KB_F32, KB_DIMS(HIDDEN, IN + HIDDEN), KB_KAIMING(IN + HIDDEN)),
                     KB_PARAM("i2h.bias", KB_F32, KB_DIMS(HIDDEN), KB_KAIMING(IN + HIDDEN)),
                     KB_PARAM("h2o.weight", KB_F32, KB_DIMS(OUT, HIDDEN), KB_KAIMING(HIDDEN)),
                     KB_PARAM("h2o.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(HIDDEN)),
                     KB_STATE("hidden", KB_F32, KB_DIMS(BATCH, HIDDEN), KB_RANDN)),
           /* terms: i2h's 32768 products, the largest single reduction feeding the output (h2o
            * sums 16384 of its tanh'd results) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN + HIDDEN)),
           /* the two GEMMs, their bias adds, the tanh */
           .flops = 2.0 * BATCH * ((double)(IN + HIDDEN) * HIDDEN + (double)HIDDEN * OUT) +
                    (double)BATCH * (HIDDEN + OUT) + (double)BATCH * HIDDEN)
