/*
 * level3/026_shufflenet -- KernelBench L3/26: ShuffleNet (3 groups, stages of 3, 7 and 3 units,
 * 24 / 240 / 480 / 960 channels, 1000 classes) in training mode on x (10, 3, 224, 224) fp32 ->
 * (10, 1000): conv1 3x3/2 (3 -> 24), bn1, relu, maxpool 3/2 pad 1; stage2-4 = Sequential of
 * ShuffleNetUnit(in, out, 3), every unit at stride 1 (56 x 56 throughout): conv1 1x1 groups 3
 * (in -> out/4), bn1, relu; conv2 3x3 depthwise, bn2; channel shuffle (view, transpose(1, 2),
 * contiguous, view); conv3 1x1 groups 3 (out/4 -> out), bn3, relu; `out += shortcut(x)`, the
 * shortcut a 1x1 conv + BatchNorm in each stage's first unit (the channels change) and an empty
 * nn.Sequential (x itself) elsewhere; conv5 1x1 (960 -> 1024), bn5, relu; adaptive avg pool
 * (1, 1); view; fc. 44 convolutions (13 depthwise), 44 BatchNorm2d (batch statistics: the module
 * is never put in eval mode), 134 parameters (3,338,524 values) and 132 buffers, PyTorch's default
 * initialisers.
 *
 * Eager PyTorch, per op: conv1, the 26 grouped 1x1 convs (groups 3 < C_in), the 3 shortcut convs
 * and conv5 are cudnn_convolution (TF32 by cudnn.allow_tf32); the 13 depthwise convs (fp32 NCHW,
 * groups == channels) fail use_cudnn_depthwise, so select_conv_backend picks
 * at::_conv_depthwise2d, conv_depthwise2d_forward_kernel<3> (kb_depthwise_conv2d). Each
 * BatchNorm2d runs num_batches_tracked.add_(1) then cudnn batch norm in training mode, updating
 * running_mean / running_var in the same call (kb_batch_norm_module). F.relu is an out-of-place
 * relu; the max pool is max_pool2d_with_indices (indices dropped); the shuffle's `.contiguous()`
 * on the transposed view is clone: empty_like and one strided copy kernel (kb_copy of a
 * kb_transpose view); `out += ...` is add_ (with the unit's input itself where the shortcut is
 * empty); F.adaptive_avg_pool2d(x, (1, 1)) is mean over H, W (kb_adaptive_avg_pool_nd); view is a
 * view; fc is addmm through cublasLtMatmul with its bias epilogue (kb_linear). 189 kernels.
 * Lifetimes: a conv's output is freed once its BatchNorm returns, a BatchNorm's output passed to
 * F.relu once the relu returns, bn2's output once the shuffle has returned, the shuffled tensor
 * once bn3's relu has; a unit's input once the unit returns (but a stage's first input, which
 * forward() names until the stage returns); stage4's output once
 * `F.relu(self.bn5(self.conv5(x)))` has returned.
 * Napkin math: 1.458e11 FLOP (1.436e11 of convolutions, nearly all the grouped 1x1 ones at
 * 56 x 56; 1.66e9 for the BatchNorms, 5.6e8 for the relus, adds and the mean), ~0.4 ms of TF32,
 * ~2.2 ms at 67 TFLOP/s FP32; stage4's 960-channel maps are 120 MB each and every unit writes and
 * reads its out-channel tensors ~8 times: ~10 GB of traffic, ~2.4 ms at ~4.3 TB/s; 189 launches.
 * Eager: 8.23 ms on an H100 (reference/kernelbench-problems.csv); 8.02 ms FP32, 7.99 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 3, HW = 224, GROUPS = 3, STAGES = 3, LAST = 1024, CLASSES = 1000, FINAL_HW = 56 };
static const int REPEATS[STAGES] = {3, 7, 3};
static const int CH[STAGES + 1] = {24, 240, 480, 960}; /* stages_out_channels */

/* ---- the tensors: named_parameters() and named_buffers() of Model(1000) ---------------------- */

static void unit_tensors(kb_net *n, int64_t in, int64_t out)
{
    const int64_t mid = out / 4;
    kb_net_conv2d_g(n, "conv1", in, mid, 1, GROUPS, 0);
    kb_net_batchnorm(n, "bn1", mid);
    kb_net_conv2d_g(n, "conv2", mid, mid, 3, mid, 0);
    kb_net_batchnorm(n, "bn2", mid);
    kb_net_conv2d_g(n, "conv3", mid, out, 1, GROUPS, 0);
    kb_net_batchnorm(n, "bn3", out);
    if (in != out) {
        kb_net_push(n, "shortcut");
        kb_net_conv2d(n, "0", in, out, 1, 0);
        kb_net_batchnorm(n, "1", out);
        kb_net_pop(n);
    }
}

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, CIN, HW, HW), KB_RAND);
    kb_net_conv2d(n, "conv1", CIN, CH[0], 3, 0);
    kb_net_batchnorm(n, "bn1", CH[0]);
    for (int s = 0; s < STAGES; s++)
        for (int u = 0; u < REPEATS[s]; u++) {
            kb_net_push(n, "stage%d.%d", s + 2, u);
            unit_tensors(n, u == 0 ? CH[s] : CH[s + 1], CH[s + 1]);
            kb_net_pop(n);
        }
    kb_net_conv2d(n, "conv5", CH[STAGES], LAST, 1, 0);
    kb_net_batchnorm(n, "bn5", LAST);
    kb_net_linear(n, "fc", LAST, CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* self.bn<i>(self.conv<i>(x)) of the unit under p ("stage2.0."): the conv's output freed once the
 * BatchNorm returns; groups 0 = a depthwise 3x3 conv */
static kb_tensor conv_bn(kb_ref *r, kb_tensor x, const char *p, int i, int groups)
{
    char m[48];
    kb_tensor c;
    if (groups)
        c = kb_conv(r, KB_NEW, x, kb_argf(r, "%sconv%d.weight", p, i), KB_NEW, KB_CONV_PARAMS(.groups = groups));
    else
        c = kb_depthwise_conv2d(r, KB_NEW, x, kb_argf(r, "%sconv%d.weight", p, i), KB_NEW, 1, 1, /*pad=*/1, 1,
                                /*dilation=*/1, 1);
    snprintf(m, sizeof m, "%sbn%d", p, i);
    kb_tensor y = kb_batch_norm_module(r, KB_NEW, c, m);
    kb_drop(r, c);
    return y;
}

/* ShuffleNetUnit.forward; p is "stageS.U.", mid = out / 4 */
static kb_tensor unit(kb_ref *r, kb_tensor x, const char *p, int64_t mid, int shortcut)
{
    /* out = F.relu(self.bn1(self.conv1(x))) */
    kb_tensor b = conv_bn(r, x, p, 1, GROUPS);
    kb_tensor out = kb_relu(r, KB_NEW, b);
    kb_drop(r, b);
    /* out = self.bn2(self.conv2(out)) */
    b = conv_bn(r, out, p, 2, 0);
    kb_drop(r, out);
    /* out = self.shuffle(out): view (N, g, C/g, H, W), transpose(1, 2).contiguous(), view (N, C, H, W) */
    const int64_t h = kb_dim(b, 2), w = kb_dim(b, 3);
    kb_tensor s = kb_copy(r, KB_NEW, kb_transpose(r, KB_VIEW(r, b, BATCH, GROUPS, mid / GROUPS, h, w), 1, 2));
    kb_drop(r, b);
    s = KB_VIEW(r, s, BATCH, mid, h, w);
    /* out = F.relu(self.bn3(self.conv3(out))) */
    b = conv_bn(r, s, p, 3, GROUPS);
    out = kb_relu(r, KB_NEW, b);
    kb_drop(r, b);
    kb_drop(r, s);
    /* out += self.shortcut(x) */
    if (shortcut) {
        char m[48];
        kb_tensor c = kb_conv(r, KB_NEW, x, kb_argf(r, "%sshortcut.0.weight", p), KB_NEW, NULL);
        snprintf(m, sizeof m, "%sshortcut.1", p);
        b = kb_batch_norm_module(r, KB_NEW, c, m);
        kb_drop(r, c);
        kb_add(r, out, out, b);
        kb_drop(r, b);
    } else {
        kb_add(r, out, out, x); /* an empty nn.Sequential returns x itself */
    }
    return out;
}

static void reference(kb_ref *r)
{
    /* x = F.relu(self.bn1(self.conv1(x))); x = self.maxpool(x) */
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv1.weight"), KB_NEW,
                          KB_CONV_PARAMS(.stride = {2, 2}, .padding = {1, 1}));
    kb_tensor b = kb_batch_norm_module(r, KB_NEW, c, "bn1");
    kb_drop(r, c);
    kb_tensor t = kb_relu(r, KB_NEW, b);
    kb_drop(r, b);
    kb_tensor x = kb_max_pool2d(r, KB_NEW, t, 3, 2, /*padding=*/1, /*dilation=*/1, /*ceil_mode=*/0);
    kb_drop(r, t);
    for (int s = 0; s < STAGES; s++) {
        /* `x = self.stageN(x)`: forward() names the stage's input until the stage returns; inside,
         * nn.Sequential lets each later unit's input go once that unit has returned */
        const kb_tensor stage_in = x;
        for (int u = 0; u < REPEATS[s]; u++) {
            char p[32];
            snprintf(p, sizeof p, "stage%d.%d.", s + 2, u);
            kb_tensor y = unit(r, x, p, CH[s + 1] / 4, u == 0);
            if (u > 0)
                kb_drop(r, x);
            x = y;
        }
        kb_drop(r, stage_in);
    }
    /* x = F.relu(self.bn5(self.conv5(x))) */
    c = kb_conv(r, KB_NEW, x, kb_arg(r, "conv5.weight"), KB_NEW, NULL);
    b = kb_batch_norm_module(r, KB_NEW, c, "bn5");
    kb_drop(r, c);
    t = kb_relu(r, KB_NEW, b);
    kb_drop(r, b);
    kb_drop(r, x);
    /* F.adaptive_avg_pool2d(x, (1, 1)); view; fc */
    kb_tensor pooled = kb_adaptive_avg_pool_nd(r, KB_NEW, t, 2, (const int64_t[]){1, 1});
    kb_drop(r, t);
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, -1), kb_arg(r, "fc.weight"), kb_arg(r, "fc.bias"));
    kb_drop(r, pooled);
}

KB_PROBLEM(.title = "ShuffleNet", .describe = describe,
           /* terms: the fc's 1024 products of means over 56 x 56 of conv5, the deepest chain of
            * sums into y (as level3/010_resnet101 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = (int64_t)LAST * FINAL_HW * FINAL_HW)),
           /* layer by layer: 2 per product of the convolutions and fc (1.4359e11), 4 per BatchNorm
            * element (1.661e9), 8 comparisons per pooled value (6.0e6), the relus (3.08e8), the adds
            * (2.18e8), the mean (3.2e7) and the fc bias */
           .flops = 1.4582e11,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
