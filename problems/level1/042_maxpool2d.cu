/*
 * level1/042_maxpool2d -- KernelBench L1/42: nn.MaxPool2d(kernel_size=4, stride=1, padding=1,
 * dilation=1) on x (32, 64, 512, 512) fp32 -> (32, 64, 511, 511).
 *
 * Eager PyTorch: max_pool2d_with_indices, max_pool_forward_nchw with one thread per output
 * (535 M threads of 256 per block), each scanning its 4 x 4 window and writing the value AND its
 * int64 index; nn.MaxPool2d drops the 4.28 GB of indices, but eager computes and stores them, so
 * the reference does too (counted scratch, freed after the call).
 * Napkin math: 2.15 GB read + 2.14 GB written (+ 4.28 GB of indices) = 8.6 GB, ~2 ms of traffic,
 * but 16 loads and three runtime integer divisions per output make the kernel issue-bound: eager
 * takes 10.98 ms on the H200 (data/pytorch-eager-h200.csv), and its peak memory includes the
 * indices.
 */
#include "kb/ops.h"

static const kb_tensor_spec inputs[] = {
    {"x", KB_F32, KB_SHAPE(32, 64, 512, 512), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
};
static const kb_tensor_spec outputs[] = {
    {"y", KB_F32, KB_SHAPE(32, 64, 511, 511), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 0},
};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    const kb_input *x = &a->inputs[0];
    const kb_pool2d_desc d = {
        x->shape[0], x->shape[1], x->shape[2], x->shape[3], /* batch, channels, in_h, in_w */
        4, 4,                                               /* kernel_h, kernel_w */
        1, 1,                                               /* stride_h, stride_w */
        1, 1,                                               /* pad_h, pad_w */
        1, 1,                                               /* dilation_h, dilation_w */
        0,                                                  /* ceil_mode */
    };
    return kb_op_max_pool2d(ctx, &d, (const float *)x->data, (float *)a->outputs[0].data);
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/042_maxpool2d",
    "Max Pooling 2D",
    1, inputs,
    1, outputs,
    16.0 * 32 * 64 * 511 * 511, /* one comparison per window element */
    4.0 * (32.0 * 64 * 512 * 512 + 32.0 * 64 * 511 * 511), /* read x, write y */
    0,
    reference,
};
