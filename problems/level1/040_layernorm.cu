/*
 * level1/040_layernorm -- KernelBench L1/40: nn.LayerNorm((64, 256, 256)) on x (16, 64, 256, 256)
 * fp32, eps 1e-5, elementwise affine (weight = ones, bias = zeros at initialisation).
 *
 * Eager PyTorch: vectorized_layer_norm_kernel with ONE BLOCK of 128 threads PER ROW: M = 16 rows of
 * N = 64 * 256 * 256 = 4194304, so only 16 of the H200's 132 SMs work, each streaming its 16 MB row
 * twice (Welford statistics, then normalisation with gamma and beta) with 4 warps of latency
 * hiding. Napkin math: 0.57 GB of minimal traffic would take ~0.14 ms at full bandwidth; the
 * one-block-per-row geometry makes eager take 8.44 ms on the H200 (data/pytorch-eager-h200.csv),
 * and the op library's kernel keeps that geometry on purpose (ops/norm.cu), so the baseline is the
 * eager time, not an optimised one.
 */
#include "kb/ops.h"

static const kb_tensor_spec inputs[] = {
    {"x", KB_F32, KB_SHAPE(16, 64, 256, 256), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
    {"ln.weight", KB_F32, KB_SHAPE(64, 256, 256), KB_ROLE_PARAM, {KB_GEN_ONES, 0, 0}, 0},
    {"ln.bias", KB_F32, KB_SHAPE(64, 256, 256), KB_ROLE_PARAM, {KB_GEN_ZEROS, 0, 0}, 0},
};
static const kb_tensor_spec outputs[] = {
    {"y", KB_F32, KB_SHAPE(16, 64, 256, 256), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 64 * 256 * 256},
};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    const int64_t N = kb_input_numel(&a->inputs[1]); /* the normalized shape */
    const int64_t M = kb_input_numel(&a->inputs[0]) / N;
    return kb_op_layer_norm(ctx, (const float *)a->inputs[0].data, (const float *)a->inputs[1].data,
                            (const float *)a->inputs[2].data, (float *)a->outputs[0].data, M, N, 1e-5);
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/040_layernorm",
    "LayerNorm",
    3, inputs,
    1, outputs,
    8.0 * 16 * 64 * 256 * 256, /* mean, variance, normalise, scale, shift */
    4.0 * (2.0 * 16 * 64 * 256 * 256 + 2.0 * 64 * 256 * 256), /* read x, write y, read weight and bias */
    0,
    reference,
};
