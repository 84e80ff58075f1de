/*
 * level2/064_gemm_logsumexp_leakyrelu_leakyrelu_gelu_gelu -- KernelBench L2/64:
 * x = torch.logsumexp(linear(x), 1, keepdim=True); then leaky_relu(0.01) twice and gelu twice,
 * linear = nn.Linear(8192, 8192), on x (1024, 8192) fp32 -> (1024, 1).
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); logsumexp's
 * composite over the 8192 features (amax, the infinite-max mask, sub, exp, sum, log, add:
 * kb_logsumexp); then four TensorIterator kernels on 1024 values (F.leaky_relu twice, F.gelu
 * twice, approximate='none'). Each temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 8192 (the log-sum-exp sums 8192 exponentials of 8192-term GEMM outputs).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the log-sum-exp makes ~4 passes over the 33.5 MB result (~0.06 ms), the activations are
 * launch latency. Eager: 2.78 ms on an H100 (reference/kernelbench-problems.csv); 2.88 ms FP32,
 * 0.47 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    static const int dim1[] = {1};
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear.weight"), kb_arg(r, "linear.bias"));
    kb_tensor e = kb_logsumexp(r, KB_NEW, l, dim1, 1, 1);
    kb_drop(r, l);
    kb_tensor a = kb_leaky_relu(r, KB_NEW, e, 0.01);
    kb_drop(r, e);
    kb_tensor b = kb_leaky_relu(r, KB_NEW, a, 0.01);
    kb_drop(r, a);
    kb_tensor c = kb_gelu(r, KB_NEW, b);
    kb_drop(r, b);
    kb_gelu(r, kb_arg(r, "y"), c);
}

KB_PROBLEM(.title = "Gemm LogSumExp LeakyReLU LeakyReLU GELU GELU",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("linear.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1), .terms = (int64_t)IN * OUT)),
           .flops = 2.0 * BATCH * OUT * IN + 6.0 * BATCH * OUT, /* GEMM; bias, logsumexp (~5) (the activations ~4e3) */
           .flags = KB_PROB_CENTERED)
