/*
 * level1/047_sum_dim -- KernelBench L1/47: torch.sum(x, dim=1, keepdim=True) on x (128, 4096, 4095)
 * fp32 -> (128, 1, 4095).
 *
 * Eager PyTorch: gpu_reduce_kernel (Reduce.cuh), a column reduction -- block (32, 16): 32
 * consecutive output columns per block, 16 warps splitting the 4096 summed rows, float
 * accumulation, a shared-memory tree over the warps (ops/reduce.cu derives the same config).
 * Napkin math: 8.59 GB read once, 2 MB written; at ~4.15 TB/s that is ~2.07 ms, what eager takes
 * on the H200 (2.07 ms, data/pytorch-eager-h200.csv).
 */
#include "kb/ops.h"

static const kb_tensor_spec inputs[] = {
    {"x", KB_F32, KB_SHAPE(128, 4096, 4095), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
};
static const kb_tensor_spec outputs[] = {
    {"y", KB_F32, KB_SHAPE(128, 1, 4095), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 4096},
};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    const kb_input *x = &a->inputs[0];
    return kb_op_reduce_dim(ctx, KB_REDUCE_SUM, (const float *)x->data, (float *)a->outputs[0].data,
                            x->shape[0], x->shape[1], x->shape[2]);
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/047_sum_dim",
    "Sum reduction over a dimension",
    1, inputs,
    1, outputs,
    128.0 * 4096 * 4095, /* one add per input element */
    4.0 * (128.0 * 4096 * 4095 + 128.0 * 4095), /* read x, write y */
    0,
    reference,
};
