/*
 * level1/040_layernorm -- KernelBench L1/40: nn.LayerNorm((64, 256, 256)) on x (16, 64, 256, 256)
 * fp32, eps 1e-5, elementwise affine (weight = ones, bias = zeros at initialisation).
 *
 * Eager PyTorch: vectorized_layer_norm_kernel with ONE BLOCK of 128 threads PER ROW: M = 16 rows of
 * N = 64 * 256 * 256 = 4194304, so only 16 of the H200's 132 SMs work, each streaming its 16 MB row
 * twice (Welford statistics, then normalisation with gamma and beta) with 4 warps of latency
 * hiding. Napkin math: 0.57 GB of minimal traffic would take ~0.14 ms at full bandwidth; the
 * one-block-per-row geometry makes eager take 8.44 ms on the H200 (reference/pytorch-eager-h200.csv),
 * and the op library's kernel keeps that geometry on purpose (ops/norm.cu), so the baseline is the
 * eager time, not an optimised one.
 */
#include "kb/ref.h"

enum { BATCH = 16, FEATURES = 64, D1 = 256, D2 = 256 };

static void reference(kb_ref *r)
{
    kb_layer_norm(r, kb_arg(r, "y"), kb_arg(r, "x"), 3, kb_arg(r, "ln.weight"), kb_arg(r, "ln.bias"), 1e-5);
}

KB_PROBLEM(.title = "LayerNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, FEATURES, D1, D2), KB_RAND),
                     KB_PARAM("ln.weight", KB_F32, KB_DIMS(FEATURES, D1, D2), KB_ONES),
                     KB_PARAM("ln.bias", KB_F32, KB_DIMS(FEATURES, D1, D2), KB_ZEROS)),
           /* terms: each row's statistics sum 64 * 256 * 256 values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, FEATURES, D1, D2), .terms = (int64_t)FEATURES * D1 * D2)),
           .flops = 8.0 * BATCH * FEATURES * D1 * D2, /* mean, variance, normalise, scale, shift */
           .flags = KB_PROB_CENTERED)
