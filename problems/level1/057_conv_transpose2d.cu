/*
 * level1/057_conv_transpose2d -- KernelBench L1/57: nn.ConvTranspose2d(64, 64, 3, bias=False) on
 * x (8, 64, 1024, 1024) fp32 -> y (8, 64, 1026, 1026).
 *
 * Eager PyTorch: ConvTranspose2d -> at::convolution -> cudnn_convolution_transpose, i.e. cuDNN's
 * backward-data convolution (v8 graph API, heuristics-chosen engine, TF32 allowed by
 * torch.backends.cudnn.allow_tf32's default) with y as dx and x as dy (ops/dnn.cu).
 * The weight is [C_in, C_out, 3, 3]; PyTorch's kaiming init computes fan_in from
 * weight.size(1) * 3 * 3 = 576.
 * Napkin math: every input element scatters to C_out * 9 outputs: 2 * 8*64*1024*1024 * 64*9 =
 * 6.19e11 FLOP, ~1.5 ms of TF32 math; x and y are 2 GiB each (~1 ms of traffic) plus the ~4 GiB
 * workspace cuDNN stages them in. PyTorch measures 5.27 ms on the H200.
 */
#include "kb/ops.h"

#define B 8
#define CIN 64
#define COUT 64
#define H 1024
#define W 1024
#define KS 3
#define HO (H + KS - 1)
#define WO (W + KS - 1)

static const kb_tensor_spec inputs[] = {
    {"x", KB_F32, KB_SHAPE(B, CIN, H, W), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
    {"conv_transpose2d.weight", KB_F32, KB_SHAPE(CIN, COUT, KS, KS), KB_ROLE_PARAM,
     {KB_GEN_KAIMING_UNIFORM, COUT * KS * KS, 0}, 0},
};
/* terms: each output sums at most C_in * 3 * 3 products (fewer at the borders). */
static const kb_tensor_spec outputs[] = {
    {"y", KB_F32, KB_SHAPE(B, COUT, HO, WO), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, CIN * KS * KS},
};

/* The layer's geometry: nd, batch, C_in, C_out, in_size, kernel, stride, pad, dilation, out_pad, groups. */
static const kb_conv_desc conv = {2, B, CIN, COUT, {H, W, 0}, {KS, KS, 0}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, 1};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    return kb_op_conv_transpose(ctx, &conv, (const float *)a->inputs[0].data, (const float *)a->inputs[1].data, NULL,
                                (float *)a->outputs[0].data);
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/057_conv_transpose2d",
    "conv transposed 2D square input square kernel",
    2, inputs,
    1, outputs,
    2.0 * B * CIN * H * W * COUT * KS * KS, /* one multiply-add per input element, output channel, tap */
    4.0 * ((double)B * CIN * H * W + (double)CIN * COUT * KS * KS + (double)B * COUT * HO * WO), /* x, w in; y out */
    0,
    reference,
};
