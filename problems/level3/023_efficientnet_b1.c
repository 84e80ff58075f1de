/*
 * level3/023_efficientnet_b1 -- KernelBench L3/23: EfficientNetB1 as KernelBench writes it (seven
 * MBConv blocks, one per stage, no squeeze-excitation, no residuals, 1000 classes) in training
 * mode on x (10, 3, 240, 240) fp32 -> (10, 1000): conv1 3x3/2 (3 -> 32), bn1, relu; mbconv1-7 =
 * Sequential(1x1 conv (in -> hidden = round(in * expand)), BatchNorm, ReLU6, depthwise 3x3 conv
 * (stride 1 or 2, groups = hidden), BatchNorm, ReLU6, 1x1 conv (hidden -> out), BatchNorm) --
 * mbconv1 (expand 1) keeps its 32 -> 32 1x1 conv; conv2 1x1 (320 -> 1280), bn2, relu; adaptive
 * avg pool (1, 1); flatten; fc. 120 -> 8 pixels. 23 convolutions (7 depthwise), 23 BatchNorm2d
 * (batch statistics: the module is never put in eval mode), 71 parameters (2,661,928 values) and
 * 69 buffers, PyTorch's default initialisers.
 *
 * Eager PyTorch, per op: conv1, the 14 pointwise convs and conv2 are cudnn_convolution (TF32 by
 * cudnn.allow_tf32); the 7 depthwise convs (fp32 NCHW, groups == channels) fail
 * use_cudnn_depthwise, so select_conv_backend picks at::_conv_depthwise2d,
 * conv_depthwise2d_forward_kernel<3> (kb_depthwise_conv2d). Each BatchNorm2d runs
 * num_batches_tracked.add_(1) then cudnn batch norm in training mode, updating running_mean /
 * running_var in the same call (kb_batch_norm_module). F.relu is an out-of-place relu;
 * ReLU6(inplace=True) is hardtanh_(x, 0, 6) -> hardtanh_out -> clamp_out, one clamp kernel in
 * place (kb_hardtanh into its input); F.adaptive_avg_pool2d(x, (1, 1)) is mean over H, W
 * (kb_adaptive_avg_pool_nd); flatten is a view; fc is addmm through cublasLtMatmul with its bias
 * epilogue (kb_linear). 87 kernels. Lifetimes: inside each nn.Sequential a module's input is
 * freed once that module returns (a conv's output after its BatchNorm, a clamped BatchNorm
 * output after the next conv), but the block's input stays alive until the block returns
 * (forward()'s `x = self.mbconvN(x)` names it); a BatchNorm output passed to F.relu goes once
 * the relu returns, mbconv7's output once `F.relu(self.bn2(self.conv2(x)))` has returned.
 * Napkin math: 4.60e9 FLOP (4.33e9 of convolutions, 2.0e8 for the BatchNorms, 4.1e7 for the
 * clamps, 2.6e7 for the fc), ~0.015 ms of TF32; activations of up to 55 MB ((10, 96, 120, 120)
 * after mbconv2's expand), each written by a conv, read twice and written by its BatchNorm, read
 * and written by its clamp: ~1.5 GB of traffic, ~0.35 ms at ~4.3 TB/s; 87 launches. Eager:
 * 1.62 ms on an H100 (reference/kernelbench-problems.csv); 4.84 ms FP32, 4.63 ms TF32 on the
 * H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 3, HW = 240, STEM = 32, LAST = 1280, CLASSES = 1000, BLOCKS = 7, FINAL_HW = 8 };

/* mbconv<b + 1> = _make_mbconv_block(IN[b], OUT[b], S[b], E[b]) */
static const int IN[BLOCKS] = {32, 16, 24, 40, 80, 112, 192};
static const int OUT[BLOCKS] = {16, 24, 40, 80, 112, 192, 320};
static const int S[BLOCKS] = {1, 2, 2, 2, 1, 2, 1};
static const int E[BLOCKS] = {1, 6, 6, 6, 6, 6, 6};

/* ---- the tensors: named_parameters() and named_buffers() of Model(1000) ---------------------- */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, CIN, HW, HW), KB_RAND);
    kb_net_conv2d(n, "conv1", CIN, STEM, 3, 0);
    kb_net_batchnorm(n, "bn1", STEM);
    for (int b = 0; b < BLOCKS; b++) {
        const int hidden = IN[b] * E[b];
        kb_net_push(n, "mbconv%d", b + 1);
        kb_net_conv2d(n, "0", IN[b], hidden, 1, 0);
        kb_net_batchnorm(n, "1", hidden);
        kb_net_conv2d_g(n, "3", hidden, hidden, 3, hidden, 0);
        kb_net_batchnorm(n, "4", hidden);
        kb_net_conv2d(n, "6", hidden, OUT[b], 1, 0);
        kb_net_batchnorm(n, "7", OUT[b]);
        kb_net_pop(n);
    }
    kb_net_conv2d(n, "conv2", 320, LAST, 1, 0);
    kb_net_batchnorm(n, "bn2", LAST);
    kb_net_linear(n, "fc", LAST, CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* bn(c) in training mode, c freed once the BatchNorm returns; ReLU6(inplace=True) after it when
 * relu6 is set */
static kb_tensor bn(kb_ref *r, kb_tensor c, int b, int i, int relu6)
{
    char m[32];
    snprintf(m, sizeof m, "mbconv%d.%d", b + 1, i);
    kb_tensor y = kb_batch_norm_module(r, KB_NEW, c, m);
    kb_drop(r, c);
    if (relu6)
        kb_hardtanh(r, y, y, 0.0, 6.0);
    return y;
}

/* self.mbconv<b + 1>(x): the nn.Sequential, x itself left to the caller */
static kb_tensor mbconv(kb_ref *r, kb_tensor x, int b)
{
    kb_tensor c = kb_conv(r, KB_NEW, x, kb_argf(r, "mbconv%d.0.weight", b + 1), KB_NEW, NULL);
    kb_tensor h = bn(r, c, b, 1, 1);
    c = kb_depthwise_conv2d(r, KB_NEW, h, kb_argf(r, "mbconv%d.3.weight", b + 1), KB_NEW, S[b], S[b], /*pad=*/1, 1,
                            /*dilation=*/1, 1);
    kb_drop(r, h);
    h = bn(r, c, b, 4, 1);
    c = kb_conv(r, KB_NEW, h, kb_argf(r, "mbconv%d.6.weight", b + 1), KB_NEW, NULL);
    kb_drop(r, h);
    return bn(r, c, b, 7, 0);
}

static void reference(kb_ref *r)
{
    /* x = F.relu(self.bn1(self.conv1(x))) */
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv1.weight"), KB_NEW,
                          KB_CONV_PARAMS(.stride = {2, 2}, .padding = {1, 1}));
    kb_tensor t = kb_batch_norm_module(r, KB_NEW, c, "bn1");
    kb_drop(r, c);
    kb_tensor x = kb_relu(r, KB_NEW, t);
    kb_drop(r, t);
    /* x = self.mbconvN(x), N = 1..7: the old x goes once the block has returned */
    for (int b = 0; b < BLOCKS; b++) {
        kb_tensor y = mbconv(r, x, b);
        kb_drop(r, x);
        x = y;
    }
    /* x = F.relu(self.bn2(self.conv2(x))) */
    c = kb_conv(r, KB_NEW, x, kb_arg(r, "conv2.weight"), KB_NEW, NULL);
    t = kb_batch_norm_module(r, KB_NEW, c, "bn2");
    kb_drop(r, c);
    kb_tensor a = kb_relu(r, KB_NEW, t);
    kb_drop(r, t);
    kb_drop(r, x);
    /* F.adaptive_avg_pool2d(x, (1, 1)); torch.flatten(x, 1); fc */
    kb_tensor pooled = kb_adaptive_avg_pool_nd(r, KB_NEW, a, 2, (const int64_t[]){1, 1});
    kb_drop(r, a);
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, LAST), kb_arg(r, "fc.weight"), kb_arg(r, "fc.bias"));
    kb_drop(r, pooled);
}

KB_PROBLEM(.title = "EfficientNetB1", .describe = describe,
           /* terms: the fc's 1280 products of means over 8 x 8 of conv2, the deepest chain of sums
            * into y (as level3/010_resnet101 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = LAST * FINAL_HW * FINAL_HW)),
           /* layer by layer: 2 per product of the convolutions and fc (4.353e9), 4 per BatchNorm
            * element (2.04e8), the clamps (4.13e7), the two relus, the pool's sums and the fc
            * bias (6.3e6) */
           .flops = 4.605e9,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
