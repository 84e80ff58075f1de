/*
 * level1/026_gelu -- KernelBench L1/26: F.gelu(x) (exact, erf form) on x (4096, 393216) fp32.
 *
 * Eager PyTorch: one vectorised elementwise kernel (GeluCUDAKernelImpl through TensorIterator),
 * computing x * 0.5 * (1 + erf(x / sqrt(2))) in float.
 * Napkin math: 6.44 GB read + 6.44 GB written = 12.9 GB; at ~4.2 TB/s that is ~3.1 ms, what eager
 * PyTorch takes on the H200 (3.17 ms median). erff costs ~20 instructions per element, well under
 * the bandwidth bound.
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
    return kb_op_unary(ctx, KB_UNARY_GELU, (const float *)a->inputs[0].data, (float *)a->outputs[0].data,
                       kb_input_numel(&a->inputs[0]));
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/026_gelu",
    "GELU",
    1, inputs,
    1, outputs,
    1.61e9,                  /* one GELU per element (the roofline's minimal count) */
    2.0 * 4096 * 393216 * 4, /* read x, write y */
    0,
    reference,
};
