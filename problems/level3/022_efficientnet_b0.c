/*
 * level3/022_efficientnet_b0 -- KernelBench L3/22: EfficientNetB0 (13 MBConv blocks, no
 * squeeze-excitation, 1000 classes) in training mode on x (10, 3, 224, 224) fp32 -> (10, 1000):
 * conv1 3x3/2 (3 -> 32), bn1, relu; blocks.0-12 = MBConv(in, out, k, stride, expand): [expand_conv
 * = 1x1 conv, BatchNorm, ReLU6 (expand 6 only);] depthwise_conv = k x k conv (k 3 or 5, groups =
 * channels), BatchNorm, ReLU6; project_conv = 1x1 conv, BatchNorm; `x += identity` where stride 1
 * and in == out (6 blocks); conv2 1x1 (320 -> 1280), bn2, relu; adaptive avg pool (1, 1); view;
 * fc. 40 convolutions (13 depthwise), 40 BatchNorm2d (batch statistics: the module is never put
 * in eval mode), 122 parameters (3,922,408 values) and 120 buffers, PyTorch's default
 * initialisers.
 *
 * Eager PyTorch, per op: conv1, the 26 pointwise convs and conv2 are cudnn_convolution (TF32 by
 * cudnn.allow_tf32); the 13 depthwise convs (fp32 NCHW, groups == channels) fail
 * use_cudnn_depthwise, so select_conv_backend picks at::_conv_depthwise2d,
 * conv_depthwise2d_forward_kernel<3> or <5> (kb_depthwise_conv2d). Each BatchNorm2d runs
 * num_batches_tracked.add_(1) then cudnn batch norm in training mode, updating running_mean /
 * running_var in the same call (kb_batch_norm_module). F.relu is an out-of-place relu;
 * ReLU6(inplace=True) is hardtanh_(x, 0, 6) -> hardtanh_out -> clamp_out, one clamp kernel in
 * place (kb_hardtanh into its input); `x += identity` is add_; F.adaptive_avg_pool2d(x, (1, 1))
 * is mean over H, W (kb_adaptive_avg_pool_nd); view is a view; fc is addmm through
 * cublasLtMatmul with its bias epilogue (kb_linear). 155 kernels. Lifetimes: a conv's output is
 * freed once its BatchNorm returns, a BatchNorm's output passed to F.relu once the relu returns;
 * inside an MBConv each Sequential's input lives until that Sequential returns (forward()'s x
 * names it), the block's input until the block returns (identity, and `blocks` passing it); the
 * blocks' output until `F.relu(self.bn2(self.conv2(x)))` has returned and rebinds x.
 * Napkin math: 6.57e9 FLOP (6.24e9 of convolutions, 2.5e8 for the BatchNorms, 5.1e7 for the
 * clamps, 2.6e7 for the fc), ~0.02 ms of TF32; activations of up to 48 MB ((10, 96, 112, 112)
 * after blocks.1's expand), each written by a conv, read twice and written by its BatchNorm, read
 * and written by its clamp: ~2 GB of traffic, ~0.5 ms at ~4.3 TB/s; 155 launches. Eager: 3.03 ms
 * on an H100 (reference/kernelbench-problems.csv); 8.66 ms FP32, 8.07 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 3, HW = 224, STEM = 32, LAST = 1280, CLASSES = 1000, BLOCKS = 13 };

/* blocks.<b> = MBConv(IN[b], OUT[b], kernel_size=K[b], stride=S[b], expand_ratio=E[b]) */
static const int IN[BLOCKS] = {32, 16, 24, 24, 40, 40, 80, 80, 112, 112, 192, 192, 192};
static const int OUT[BLOCKS] = {16, 24, 24, 40, 40, 80, 80, 112, 112, 192, 192, 192, 320};
static const int K[BLOCKS] = {3, 3, 3, 5, 5, 3, 3, 5, 5, 5, 5, 5, 3};
static const int S[BLOCKS] = {1, 2, 1, 2, 1, 2, 1, 1, 1, 2, 1, 1, 1};
static const int E[BLOCKS] = {1, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6};

/* ---- the tensors: named_parameters() and named_buffers() of Model(1000) ---------------------- */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, CIN, HW, HW), KB_RAND);
    kb_net_conv2d(n, "conv1", CIN, STEM, 3, 0);
    kb_net_batchnorm(n, "bn1", STEM);
    for (int b = 0; b < BLOCKS; b++) {
        const int hidden = IN[b] * E[b];
        kb_net_push(n, "blocks.%d", b);
        if (E[b] != 1) {
            kb_net_push(n, "expand_conv");
            kb_net_conv2d(n, "0", IN[b], hidden, 1, 0);
            kb_net_batchnorm(n, "1", hidden);
            kb_net_pop(n);
        }
        kb_net_push(n, "depthwise_conv");
        kb_net_conv2d_g(n, "0", hidden, hidden, K[b], hidden, 0);
        kb_net_batchnorm(n, "1", hidden);
        kb_net_pop(n);
        kb_net_push(n, "project_conv");
        kb_net_conv2d(n, "0", hidden, OUT[b], 1, 0);
        kb_net_batchnorm(n, "1", OUT[b]);
        kb_net_pop(n);
        kb_net_pop(n);
    }
    kb_net_conv2d(n, "conv2", 320, LAST, 1, 0);
    kb_net_batchnorm(n, "bn2", LAST);
    kb_net_linear(n, "fc", LAST, CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* self.<seq>(x) for seq = Sequential(Conv2d 1x1, BatchNorm2d[, ReLU6(inplace=True)]) under
 * prefix p; the conv's output freed once the BatchNorm returns */
static kb_tensor pointwise_bn(kb_ref *r, kb_tensor x, const char *p, const char *seq, int relu6)
{
    char m[64];
    kb_tensor c = kb_conv(r, KB_NEW, x, kb_argf(r, "%s.%s.0.weight", p, seq), KB_NEW, NULL);
    snprintf(m, sizeof m, "%s.%s.1", p, seq);
    kb_tensor y = kb_batch_norm_module(r, KB_NEW, c, m);
    kb_drop(r, c);
    if (relu6)
        kb_hardtanh(r, y, y, 0.0, 6.0);
    return y;
}

/* MBConv.forward of blocks.<b> */
static kb_tensor mbconv(kb_ref *r, kb_tensor x, int b)
{
    char p[32], m[64];
    snprintf(p, sizeof p, "blocks.%d", b);
    kb_tensor h = E[b] != 1 ? pointwise_bn(r, x, p, "expand_conv", 1) : x;
    /* x = self.depthwise_conv(x) */
    const int pad = (K[b] - 1) / 2;
    kb_tensor d = kb_depthwise_conv2d(r, KB_NEW, h, kb_argf(r, "%s.depthwise_conv.0.weight", p), KB_NEW, S[b], S[b],
                                      pad, pad, /*dilation=*/1, 1);
    snprintf(m, sizeof m, "%s.depthwise_conv.1", p);
    kb_tensor dn = kb_batch_norm_module(r, KB_NEW, d, m);
    kb_drop(r, d);
    kb_hardtanh(r, dn, dn, 0.0, 6.0);
    if (E[b] != 1)
        kb_drop(r, h); /* the expand's output, once depthwise_conv has returned */
    /* x = self.project_conv(x) */
    kb_tensor y = pointwise_bn(r, dn, p, "project_conv", 0);
    kb_drop(r, dn);
    if (S[b] == 1 && IN[b] == OUT[b]) /* x += identity */
        kb_add(r, y, y, x);
    return y;
}

static void reference(kb_ref *r)
{
    /* x = F.relu(self.bn1(self.conv1(x))) */
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv1.weight"), KB_NEW,
                          KB_CONV_PARAMS(.stride = {2, 2}, .padding = {1, 1}));
    kb_tensor bn = kb_batch_norm_module(r, KB_NEW, c, "bn1");
    kb_drop(r, c);
    kb_tensor x = kb_relu(r, KB_NEW, bn);
    kb_drop(r, bn);
    /* x = self.blocks(x): forward() names the first block's input until the Sequential returns;
     * each later block's input goes once that block has returned */
    const kb_tensor blocks_in = x;
    for (int b = 0; b < BLOCKS; b++) {
        kb_tensor y = mbconv(r, x, b);
        if (b > 0)
            kb_drop(r, x);
        x = y;
    }
    kb_drop(r, blocks_in);
    /* x = F.relu(self.bn2(self.conv2(x))) */
    c = kb_conv(r, KB_NEW, x, kb_arg(r, "conv2.weight"), KB_NEW, NULL);
    bn = kb_batch_norm_module(r, KB_NEW, c, "bn2");
    kb_drop(r, c);
    kb_tensor t = kb_relu(r, KB_NEW, bn);
    kb_drop(r, bn);
    kb_drop(r, x);
    /* F.adaptive_avg_pool2d(x, (1, 1)); view; fc */
    kb_tensor pooled = kb_adaptive_avg_pool_nd(r, KB_NEW, t, 2, (const int64_t[]){1, 1});
    kb_drop(r, t);
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, -1), kb_arg(r, "fc.weight"), kb_arg(r, "fc.bias"));
    kb_drop(r, pooled);
}

KB_PROBLEM(.title = "EfficientNetB0", .describe = describe,
           /* terms: the fc's 1280 products of means over 7 x 7 of conv2, the deepest chain of sums
            * into y (as level3/010_resnet101 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = LAST * 7 * 7)),
           /* layer by layer: 2 per product of the convolutions and fc (6.268e9), 4 per BatchNorm
            * element (2.45e8), the clamps (5.13e7), the two relus, the six adds, the pool's sums
            * and the fc bias (6.9e6) */
           .flops = 6.571e9,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
