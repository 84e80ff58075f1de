/*
 * level1/055_conv2d -- KernelBench L1/55: nn.Conv2d(64, 128, 3, bias=False) on
 * x (8, 64, 512, 1024) fp32 -> y (8, 128, 510, 1022).
 *
 * Eager PyTorch: Conv2d -> at::convolution -> cudnn_convolution, the cuDNN v8 graph API with a
 * heuristics-chosen engine (benchmark off); TF32 is allowed because torch.backends.cudnn.allow_tf32
 * defaults to True, in both of the paper's baseline modes (ops/dnn.cu).
 * Napkin math: 2 * 8*128*510*1022 * 64*9 = 6.15e11 FLOP, ~1.5 ms of TF32 math at ~400 TFLOP/s;
 * x is 1 GiB and y 2 GiB, ~0.8 ms of traffic, plus the NCHW staging that cuDNN does in a ~1 GiB
 * workspace. PyTorch measures 3.81 ms on the H200.
 */
#include "kb/ops.h"

#define B 8
#define CIN 64
#define COUT 128
#define H 512
#define W 1024
#define KS 3
#define HO (H - KS + 1)
#define WO (W - KS + 1)

static const kb_tensor_spec inputs[] = {
    {"x", KB_F32, KB_SHAPE(B, CIN, H, W), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
    {"conv2d.weight", KB_F32, KB_SHAPE(COUT, CIN, KS, KS), KB_ROLE_PARAM,
     {KB_GEN_KAIMING_UNIFORM, CIN * KS * KS, 0}, 0},
};
static const kb_tensor_spec outputs[] = {
    {"y", KB_F32, KB_SHAPE(B, COUT, HO, WO), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, CIN * KS * KS},
};

/* The layer's geometry: nd, batch, C_in, C_out, in_size, kernel, stride, pad, dilation, out_pad, groups. */
static const kb_conv_desc conv = {2, B, CIN, COUT, {H, W, 0}, {KS, KS, 0}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, 1};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    return kb_op_conv(ctx, &conv, (const float *)a->inputs[0].data, (const float *)a->inputs[1].data, NULL,
                      (float *)a->outputs[0].data);
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/055_conv2d",
    "conv standard 2D asymmetric input square kernel",
    2, inputs,
    1, outputs,
    2.0 * B * COUT * HO * WO * CIN * KS * KS, /* one multiply-add per output element and tap */
    4.0 * ((double)B * CIN * H * W + (double)COUT * CIN * KS * KS + (double)B * COUT * HO * WO), /* x, w in; y out */
    0,
    reference,
};
