/*
 * level1/019_relu -- KernelBench L1/19: ReLU on a (4096, 393216) fp32 tensor (6 GiB).
 *
 * Eager PyTorch: torch.relu(x) is one vectorised elementwise kernel (TensorIterator).
 * Napkin math: 6 GiB read + 6 GiB written = 12.9 GB; at ~4.3 TB/s of copy bandwidth that is
 * ~3.0 ms, which is what eager PyTorch takes on the H200 (3.06 ms, data/pytorch-eager-h200.csv).
 * The inputs are U[0,1), so ReLU is the identity on the test data: the paper's showcase hack.
 */
#include "kb/ops.h"

static const kb_tensor_spec inputs[] = {
    {"x", KB_F32, KB_SHAPE(4096, 393216), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
};
static const kb_tensor_spec outputs[] = {
    {"y", KB_F32, KB_SHAPE(4096, 393216), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 0},
};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    return kb_op_unary(ctx, KB_UNARY_RELU, (const float *)a->inputs[0].data, (float *)a->outputs[0].data,
                       kb_input_numel(&a->inputs[0]));
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/019_relu",
    "ReLU",
    1, inputs,
    1, outputs,
    1.61e9,                 /* one comparison per element */
    2.0 * 4096 * 393216 * 4, /* read x, write y */
    0,
    reference,
};
