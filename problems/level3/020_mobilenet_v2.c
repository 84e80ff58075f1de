/*
 * level3/020_mobilenet_v2 -- KernelBench L3/20: MobileNetV2 (width 1.0, 1000 classes) in training
 * mode on x (10, 3, 224, 224) fp32 -> (10, 1000): features.0-2 = conv 3x3/2 (3 -> 32) BatchNorm
 * ReLU6; features.3-19 = 17 inverted residual blocks, each an nn.Sequential of [1x1 expand conv
 * (t = 6), BatchNorm, ReLU6,] depthwise conv 3x3 (stride 1 or 2), BatchNorm, ReLU6, 1x1 project
 * conv, BatchNorm (the residual flag _inverted_residual_block returns is dropped by `[0]`: no
 * block adds its input); features.20-22 = conv 1x1 (320 -> 1280) BatchNorm ReLU6; features.23 =
 * AdaptiveAvgPool2d((1, 1)); view (10, 1280); classifier = Dropout(0.0), Linear(1280, 1000).
 * 52 convolutions (17 depthwise), 52 BatchNorm2d (batch statistics: the module is never put in
 * eval mode), 158 parameters (3,504,872 values) and 156 buffers. Custom init: kaiming_normal_
 * (mode='fan_out', gain sqrt(2)) convolution weights, N(0, 2 / (C_out k k)); ones / zeros
 * BatchNorm; Linear weight N(0, 0.01), bias zero.
 *
 * Eager PyTorch, per op: the stem, the 34 pointwise convs and the last conv are
 * cudnn_convolution (TF32 by cudnn.allow_tf32, on by default); the 17 depthwise convs (groups ==
 * channels, fp32 NCHW) fail use_cudnn_depthwise, so select_conv_backend picks
 * at::_conv_depthwise2d, conv_depthwise2d_forward_kernel<3> (kb_depthwise_conv2d). Each
 * BatchNorm2d runs num_batches_tracked.add_(1) then cudnn batch norm in training mode, which
 * updates running_mean / running_var in the same call (kb_batch_norm_module). ReLU6(inplace=True)
 * is Hardtanh(0, 6): F.hardtanh(x, 0, 6, inplace=True) -> hardtanh_ -> hardtanh_out(x, x) ->
 * clamp_out, one clamp kernel in place (kb_hardtanh into its own input). AdaptiveAvgPool2d((1, 1))
 * is mean over H, W (kb_adaptive_avg_pool_nd); view is a view; Dropout(0.0) in training mode
 * launches nothing (ATen returns the input for p == 0); the Linear is addmm through
 * cublasLtMatmul with its bias epilogue (kb_linear). 193 kernels. Lifetimes: inside each
 * nn.Sequential a conv's output is freed once its BatchNorm returns and the BatchNorm's (clamped
 * in place) once the next conv does, but a block's input stays referenced by `features` until
 * the block returns.
 * Napkin math: 6.34e9 FLOP (5.99e9 of convolutions, nearly all pointwise; 2.7e8 for the
 * BatchNorms, 6.1e7 for the ReLU6s, 2.6e7 for the fc), ~0.02 ms of TF32; activations of up to
 * 48 MB ((10, 96, 112, 112) after block 2's expand), each written by a conv, read twice and
 * written by the BatchNorm, read and written by the clamp: ~2.5 GB of traffic, ~0.6 ms at
 * ~4.3 TB/s; 193 launches. Eager: 3.56 ms on an H100 (reference/kernelbench-problems.csv);
 * 10.39 ms FP32, 9.97 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 3, HW = 224, STEM = 32, LAST = 1280, CLASSES = 1000, STAGES = 7, BLOCKS = 17 };

/* inverted_residual_setting: t (expand ratio), c (output channels), n (blocks), s (first stride) */
static const int T[STAGES] = {1, 6, 6, 6, 6, 6, 6};
static const int C[STAGES] = {16, 24, 32, 64, 96, 160, 320};
static const int NB[STAGES] = {1, 2, 3, 4, 3, 3, 1};
static const int S[STAGES] = {1, 2, 2, 2, 1, 2, 1};

/* ---- the tensors: named_parameters() and named_buffers() of Model(1000) ---------------------- */

/* nn.Conv2d(cin, cout, k, groups=g, bias=False) after kaiming_normal_(mode='fan_out'):
 * fan_out = C_out * k * k (the weight's size(0) times its receptive field), std = sqrt(2 / fan_out) */
static void conv_kaiming_out(kb_net *n, const char *name, int64_t cin, int64_t cout, int64_t k, int64_t groups)
{
    char nm[64];
    snprintf(nm, sizeof nm, "%s.weight", name);
    kb_net_param(n, nm, KB_F32, KB_NET_DIMS(cout, cin / groups, k, k), KB_NORMAL(0, sqrt(2.0 / (double)(cout * k * k))));
}

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, CIN, HW, HW), KB_RAND);
    kb_net_push(n, "features");
    conv_kaiming_out(n, "0", CIN, STEM, 3, 1);
    kb_net_batchnorm(n, "1", STEM);
    int in = STEM, f = 3;
    for (int s = 0; s < STAGES; s++)
        for (int b = 0; b < NB[s]; b++, f++) {
            const int hidden = in * T[s];
            kb_net_push(n, "%d", f);
            int i = 0; /* index within the block's nn.Sequential */
            char m[8];
            if (T[s] != 1) {
                conv_kaiming_out(n, "0", in, hidden, 1, 1);
                kb_net_batchnorm(n, "1", hidden);
                i = 3;
            }
            snprintf(m, sizeof m, "%d", i);
            conv_kaiming_out(n, m, hidden, hidden, 3, hidden);
            snprintf(m, sizeof m, "%d", i + 1);
            kb_net_batchnorm(n, m, hidden);
            snprintf(m, sizeof m, "%d", i + 3);
            conv_kaiming_out(n, m, hidden, C[s], 1, 1);
            snprintf(m, sizeof m, "%d", i + 4);
            kb_net_batchnorm(n, m, C[s]);
            kb_net_pop(n);
            in = C[s];
        }
    conv_kaiming_out(n, "20", in, LAST, 1, 1);
    kb_net_batchnorm(n, "21", LAST);
    kb_net_pop(n);
    /* classifier.1 = Linear(1280, 1000): weight N(0, 0.01), bias zeros */
    kb_net_param(n, "classifier.1.weight", KB_F32, KB_NET_DIMS(CLASSES, LAST), KB_NORMAL(0, 0.01));
    kb_net_param(n, "classifier.1.bias", KB_F32, KB_NET_DIMS(CLASSES), KB_ZEROS);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* bn(c) in training mode, c (the convolution's output) freed once the BatchNorm returns; then
 * ReLU6(inplace=True) on the result when relu6 is set */
static kb_tensor bn(kb_ref *r, kb_tensor c, const char *module, int relu6)
{
    kb_tensor y = kb_batch_norm_module(r, KB_NEW, c, module);
    kb_drop(r, c);
    if (relu6)
        kb_hardtanh(r, y, y, 0.0, 6.0);
    return y;
}

/* a cuDNN convolution (stem: 3x3/2 pad 1; pointwise 1x1) of module features.<f>[.<i>] */
static kb_tensor conv(kb_ref *r, kb_tensor x, const char *module, int stride, int padding)
{
    return kb_conv(r, KB_NEW, x, kb_argf(r, "%s.weight", module), KB_NEW,
                   KB_CONV_PARAMS(.stride = {stride, stride}, .padding = {padding, padding}));
}

static void reference(kb_ref *r)
{
    char m[48];
    /* features.0-2 */
    kb_tensor t = conv(r, kb_arg(r, "x"), "features.0", 2, 1);
    t = bn(r, t, "features.1", 1);
    int f = 3;
    for (int s = 0; s < STAGES; s++)
        for (int b = 0; b < NB[s]; b++, f++) {
            const int stride = b == 0 ? S[s] : 1;
            kb_tensor h = t;
            int i = 0;
            if (T[s] != 1) { /* expand: 1x1 conv, BatchNorm, ReLU6 */
                snprintf(m, sizeof m, "features.%d.0", f);
                kb_tensor c = conv(r, t, m, 1, 0);
                snprintf(m, sizeof m, "features.%d.1", f);
                h = bn(r, c, m, 1);
                i = 3;
            }
            /* depthwise 3x3, BatchNorm, ReLU6 */
            kb_tensor d = kb_depthwise_conv2d(r, KB_NEW, h, kb_argf(r, "features.%d.%d.weight", f, i), KB_NEW, stride,
                                              stride, /*pad=*/1, 1, /*dilation=*/1, 1);
            if (T[s] != 1)
                kb_drop(r, h); /* the expand's output, once the depthwise conv has returned */
            snprintf(m, sizeof m, "features.%d.%d", f, i + 1);
            d = bn(r, d, m, 1);
            /* project: 1x1 conv, BatchNorm (no activation) */
            snprintf(m, sizeof m, "features.%d.%d", f, i + 3);
            kb_tensor c = conv(r, d, m, 1, 0);
            kb_drop(r, d);
            snprintf(m, sizeof m, "features.%d.%d", f, i + 4);
            c = bn(r, c, m, 0);
            kb_drop(r, t); /* `features` lets the block's input go once the block returns */
            t = c;
        }
    /* features.20-23: conv 1x1, BatchNorm, ReLU6, AdaptiveAvgPool2d((1, 1)) */
    kb_tensor c = conv(r, t, "features.20", 1, 0);
    kb_drop(r, t);
    c = bn(r, c, "features.21", 1);
    kb_tensor pooled = kb_adaptive_avg_pool_nd(r, KB_NEW, c, 2, (const int64_t[]){1, 1});
    kb_drop(r, c);
    /* x.view(x.size(0), -1); classifier.0 = Dropout(0.0): the input itself; classifier.1 = Linear */
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, -1), kb_arg(r, "classifier.1.weight"),
              kb_arg(r, "classifier.1.bias"));
    kb_drop(r, pooled);
}

KB_PROBLEM(.title = "MobileNetV2", .describe = describe,
           /* terms: the fc's 1280 products of means over 7 x 7 of the last conv, the deepest
            * chain of sums into y (as level3/010_resnet101 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = LAST * 7 * 7)),
           /* layer by layer: 2 per product of the convolutions and fc (6.0155e9), 4 per BatchNorm
            * element (2.671e8), the ReLU6 clamps (6.11e7), the pool's sums and the fc bias */
           .flops = 6.344e9,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
