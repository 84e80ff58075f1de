/*
 * level3/024_efficientnet_b2 -- KernelBench L3/24: EfficientNetB2 as KernelBench writes it (five
 * MBConv blocks, 1000 classes) in training mode on x (2, 3, 224, 224) fp32 -> (2, 1000): conv1
 * 3x3/2 (3 -> 32), bn1, relu; mbconv1-5 = Sequential(1x1 expand conv, BatchNorm, ReLU, depthwise
 * 3x3 conv (stride 1 or 2), BatchNorm, ReLU, AdaptiveAvgPool2d((1, 1)), 1x1 conv (C -> C/4), ReLU,
 * 1x1 conv (C/4 -> C), Sigmoid, 1x1 conv (C -> out), BatchNorm); conv_final 1x1 (384 -> 1408),
 * bn_final, relu, avgpool (1, 1), flatten, fc. The squeeze-excitation layers sit in the
 * Sequential with no multiply: mbconv1's pool squeezes 112 x 112 to 1 x 1 and every later layer
 * runs on (2, C, 1, 1) (a BatchNorm there normalises the 2 values of each channel; a 3x3/2
 * depthwise conv with padding 1 keeps 1 x 1). 27 convolutions (5 depthwise), 17 BatchNorm2d (batch
 * statistics: the module is never put in eval mode), 63 parameters (6,868,328 values) and 51
 * buffers, PyTorch's default initialisers.
 *
 * Eager PyTorch, per op: the 22 full convs are cudnn_convolution (TF32 by cudnn.allow_tf32); the
 * 5 depthwise convs (fp32 NCHW, groups == channels) fail use_cudnn_depthwise, so
 * select_conv_backend picks at::_conv_depthwise2d, conv_depthwise2d_forward_kernel<3>
 * (kb_depthwise_conv2d). Each BatchNorm2d runs num_batches_tracked.add_(1) then cudnn batch norm
 * in training mode, updating running_mean / running_var in the same call (kb_batch_norm_module).
 * ReLU(inplace=True) is relu_ on its input; AdaptiveAvgPool2d((1, 1)) is mean over H, W (ATen's
 * shortcut for a 1x1 output, taken for the 1 x 1 inputs too: kb_adaptive_avg_pool_nd); Sigmoid is
 * an out-of-place sigmoid; flatten is a view; fc is addmm through cublasLtMatmul with its bias
 * epilogue (kb_linear). 90 kernels. Lifetimes: inside each nn.Sequential a module's input is
 * freed once that module returns (relu_ returns its own input, which then goes after the module
 * behind it), but the block's input stays alive until the block returns (forward()'s
 * `x = self.mbconvN(x)` names it); mbconv5's output goes once
 * `self.relu(self.bn_final(self.conv_final(x)))` has returned.
 * Napkin math: 2.99e8 FLOP (2.63e8 of convolutions, nearly all conv1 and mbconv1 at 112 x 112;
 * 2.3e7 for the BatchNorms, 5.6e6 for the fc), microseconds of math; the 27.5 MB of weights are
 * read once (~6 us at ~4.3 TB/s) and mbconv1's (2, 96, 112, 112) activations are 9.6 MB each:
 * the 90 launches (most of them on (2, C, 1, 1) tensors) dominate. Eager: 1.64 ms on an H100
 * (reference/kernelbench-problems.csv); 2.41 ms FP32, 2.37 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 2, CIN = 3, HW = 224, STEM = 32, LAST = 1408, CLASSES = 1000, BLOCKS = 5 };

/* mbconv<b + 1> = _make_mbconv_block(IN[b], OUT[b], S[b], E[b]) (every expand ratio is 3 or 6) */
static const int IN[BLOCKS] = {32, 96, 144, 192, 288};
static const int OUT[BLOCKS] = {96, 144, 192, 288, 384};
static const int S[BLOCKS] = {1, 2, 2, 2, 1};
static const int E[BLOCKS] = {3, 6, 6, 6, 6};

/* ---- the tensors: named_parameters() and named_buffers() of Model(1000) ---------------------- */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, CIN, HW, HW), KB_RAND);
    kb_net_conv2d(n, "conv1", CIN, STEM, 3, 0);
    kb_net_batchnorm(n, "bn1", STEM);
    for (int b = 0; b < BLOCKS; b++) {
        const int ex = IN[b] * E[b];
        kb_net_push(n, "mbconv%d", b + 1);
        kb_net_conv2d(n, "0", IN[b], ex, 1, 0);
        kb_net_batchnorm(n, "1", ex);
        kb_net_conv2d_g(n, "3", ex, ex, 3, ex, 0);
        kb_net_batchnorm(n, "4", ex);
        kb_net_conv2d(n, "7", ex, ex / 4, 1, 0);
        kb_net_conv2d(n, "9", ex / 4, ex, 1, 0);
        kb_net_conv2d(n, "11", ex, OUT[b], 1, 0);
        kb_net_batchnorm(n, "12", OUT[b]);
        kb_net_pop(n);
    }
    kb_net_conv2d(n, "conv_final", 384, LAST, 1, 0);
    kb_net_batchnorm(n, "bn_final", LAST);
    kb_net_linear(n, "fc", LAST, CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* module mbconv<b + 1>.<i> */
static kb_tensor bn(kb_ref *r, kb_tensor c, int b, int i)
{
    char m[32];
    snprintf(m, sizeof m, "mbconv%d.%d", b + 1, i);
    return kb_batch_norm_module(r, KB_NEW, c, m);
}
static kb_tensor conv1x1(kb_ref *r, kb_tensor x, int b, int i)
{
    return kb_conv(r, KB_NEW, x, kb_argf(r, "mbconv%d.%d.weight", b + 1, i), KB_NEW, NULL);
}

/* self.mbconv<b + 1>(x): nn.Sequential's `input = module(input)`, each module's input freed once
 * it has returned (relu_ hands its own input on), x itself left to the caller */
static kb_tensor mbconv(kb_ref *r, kb_tensor x, int b)
{
    kb_tensor c = conv1x1(r, x, b, 0);
    kb_tensor t = bn(r, c, b, 1);
    kb_drop(r, c);
    kb_relu(r, t, t);
    c = kb_depthwise_conv2d(r, KB_NEW, t, kb_argf(r, "mbconv%d.3.weight", b + 1), KB_NEW, S[b], S[b], /*pad=*/1, 1,
                            /*dilation=*/1, 1);
    kb_drop(r, t);
    t = bn(r, c, b, 4);
    kb_drop(r, c);
    kb_relu(r, t, t);
    /* squeeze-excitation, in sequence: pool, 1x1 conv, relu_, 1x1 conv, sigmoid */
    c = kb_adaptive_avg_pool_nd(r, KB_NEW, t, 2, (const int64_t[]){1, 1});
    kb_drop(r, t);
    t = conv1x1(r, c, b, 7);
    kb_drop(r, c);
    kb_relu(r, t, t);
    c = conv1x1(r, t, b, 9);
    kb_drop(r, t);
    t = kb_sigmoid(r, KB_NEW, c);
    kb_drop(r, c);
    /* output phase: 1x1 conv, BatchNorm */
    c = conv1x1(r, t, b, 11);
    kb_drop(r, t);
    t = bn(r, c, b, 12);
    kb_drop(r, c);
    return t;
}

static void reference(kb_ref *r)
{
    /* x = self.relu(self.bn1(self.conv1(x))) */
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv1.weight"), KB_NEW,
                          KB_CONV_PARAMS(.stride = {2, 2}, .padding = {1, 1}));
    kb_tensor x = kb_batch_norm_module(r, KB_NEW, c, "bn1");
    kb_drop(r, c);
    kb_relu(r, x, x);
    /* x = self.mbconvN(x), N = 1..5: the old x goes once the block has returned */
    for (int b = 0; b < BLOCKS; b++) {
        kb_tensor y = mbconv(r, x, b);
        kb_drop(r, x);
        x = y;
    }
    /* x = self.relu(self.bn_final(self.conv_final(x))) */
    c = kb_conv(r, KB_NEW, x, kb_arg(r, "conv_final.weight"), KB_NEW, NULL);
    kb_tensor t = kb_batch_norm_module(r, KB_NEW, c, "bn_final");
    kb_drop(r, c);
    kb_relu(r, t, t);
    kb_drop(r, x);
    /* x = self.avgpool(x); torch.flatten(x, 1); fc */
    kb_tensor pooled = kb_adaptive_avg_pool_nd(r, KB_NEW, t, 2, (const int64_t[]){1, 1});
    kb_drop(r, t);
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, LAST), kb_arg(r, "fc.weight"), kb_arg(r, "fc.bias"));
    kb_drop(r, pooled);
}

KB_PROBLEM(.title = "EfficientNetB2", .describe = describe,
           /* terms: the fc's 1408 products (of means over the last 1 x 1 map), the deepest chain of
            * sums into y (as level3/010_resnet101 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = LAST)),
           /* layer by layer: 2 per product of the convolutions and fc (2.682e8), 4 per BatchNorm
            * element (2.26e7), the relus and sigmoids (5.7e6), the pools' sums (2.4e6) and the fc
            * bias */
           .flops = 2.988e8,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
