/*
 * level3/010_resnet101 -- KernelBench L3/10: ResNet101 (Bottleneck blocks [3, 4, 23, 3],
 * expansion 4, 1000 classes) in training mode on x (10, 3, 224, 224) fp32 -> (10, 1000):
 * conv1 7x7/2 (bias=False), bn1, relu, maxpool 3/2 pad 1, layer1-4, adaptive avgpool (1, 1),
 * flatten, fc. 104 convolutions, 104 BatchNorm2d (batch statistics: the module is never put in
 * eval mode), 314 parameters (44,549,160 values) and 312 buffers.
 *
 * Eager PyTorch, per op: cudnn_convolution (TF32 by cudnn.allow_tf32), each BatchNorm's
 * num_batches_tracked.add_(1) then cudnn_batch_norm in training mode, which updates running_mean /
 * running_var inside the same kernel (kb_batch_norm_module: they are the module's state),
 * ReLU(inplace=True) as relu_ on the BatchNorm's
 * output, max_pool2d, `out += identity` as add_, adaptive_avg_pool2d((1, 1)) as mean over H, W
 * (ATen's shortcut for a 1x1 output), flatten (a view) and addmm through cuBLASLt with its bias
 * epilogue (kb_linear). Each temporary is freed where eager's refcount frees it: a convolution's
 * output once the BatchNorm after it returns, a block's input once that block returns (but
 * a layer's first input, which forward() names until the layer returns).
 * Napkin math: 1.58e11 FLOP (reference/kernelbench-problems.csv), ~0.4 ms of TF32 tensor-core
 * time at ~400 TFLOP/s, 2.4 ms at 67 TFLOP/s FP32; at least 448 launches (by the CSV's op
 * histogram: 104 convolutions, 104 BatchNorms and their 104 one-element num_batches_tracked
 * updates, 100 ReLUs, 33 adds, the max pool, the mean, the fc), so launch and small-kernel costs
 * weigh. Eager: 8.79 ms on an H100 (reference/kernelbench-problems.csv), 12.0 ms FP32 and 12.5 ms
 * TF32 (warm medians) on the H200 (reference/pytorch-eager-h200.csv): host-bound at this size.
 */
#include "kb/ref.h"

enum { BATCH = 10, H = 224, W = 224, CLASSES = 1000, EXPANSION = 4 };
static const int BLOCKS[4] = {3, 4, 23, 3};
static const int WIDTH[4] = {64, 128, 256, 512};

/* ---- the tensors: named_parameters() and named_buffers() of Model([3, 4, 23, 3], 1000) ------- */

static void bottleneck_tensors(kb_net *n, int64_t in, int64_t width, int downsample)
{
    kb_net_conv2d(n, "conv1", in, width, 1, 0);
    kb_net_batchnorm(n, "bn1", width);
    kb_net_conv2d(n, "conv2", width, width, 3, 0);
    kb_net_batchnorm(n, "bn2", width);
    kb_net_conv2d(n, "conv3", width, width * EXPANSION, 1, 0);
    kb_net_batchnorm(n, "bn3", width * EXPANSION);
    if (downsample) {
        kb_net_push(n, "downsample");
        kb_net_conv2d(n, "0", in, width * EXPANSION, 1, 0);
        kb_net_batchnorm(n, "1", width * EXPANSION);
        kb_net_pop(n);
    }
}

static void describe(kb_net *n)
{
    kb_net_conv2d(n, "conv1", 3, 64, 7, 0);
    kb_net_batchnorm(n, "bn1", 64);
    int64_t in = 64;
    for (int l = 0; l < 4; l++)
        for (int b = 0; b < BLOCKS[l]; b++) {
            kb_net_push(n, "layer%d.%d", l + 1, b);
            bottleneck_tensors(n, in, WIDTH[l], b == 0);
            kb_net_pop(n);
            in = (int64_t)WIDTH[l] * EXPANSION;
        }
    kb_net_linear(n, "fc", 512 * EXPANSION, CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* bn(conv(x)) in training mode, the convolution's output freed once the BatchNorm has read it */
static kb_tensor conv_bn(kb_ref *r, kb_tensor x, const char *conv, const char *bn, int stride, int padding)
{
    kb_tensor c = kb_conv(r, KB_NEW, x, kb_argf(r, "%s.weight", conv), KB_NEW,
                          KB_CONV_PARAMS(.stride = {stride, stride}, .padding = {padding, padding}));
    kb_tensor y = kb_batch_norm_module(r, KB_NEW, c, bn);
    kb_drop(r, c);
    return y;
}

/* Bottleneck.forward; p is "layerL.B" */
static kb_tensor bottleneck(kb_ref *r, kb_tensor x, const char *p, int stride, int downsample)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "%s.conv1", p);
    snprintf(b, sizeof b, "%s.bn1", p);
    kb_tensor out = conv_bn(r, x, a, b, 1, 0);
    kb_relu(r, out, out);
    snprintf(a, sizeof a, "%s.conv2", p);
    snprintf(b, sizeof b, "%s.bn2", p);
    kb_tensor o2 = conv_bn(r, out, a, b, stride, 1);
    kb_drop(r, out);
    kb_relu(r, o2, o2);
    snprintf(a, sizeof a, "%s.conv3", p);
    snprintf(b, sizeof b, "%s.bn3", p);
    kb_tensor o3 = conv_bn(r, o2, a, b, 1, 0);
    kb_drop(r, o2);
    if (downsample) {
        snprintf(a, sizeof a, "%s.downsample.0", p);
        snprintf(b, sizeof b, "%s.downsample.1", p);
        kb_tensor identity = conv_bn(r, x, a, b, stride, 0);
        kb_add(r, o3, o3, identity);
        kb_drop(r, identity);
    } else {
        kb_add(r, o3, o3, x);
    }
    kb_relu(r, o3, o3);
    return o3;
}

static void reference(kb_ref *r)
{
    kb_tensor t = conv_bn(r, kb_arg(r, "x"), "conv1", "bn1", 2, 3);
    kb_relu(r, t, t);
    kb_tensor x = kb_max_pool2d(r, KB_NEW, t, 3, 2, 1, 1, 0);
    kb_drop(r, t);
    for (int l = 0; l < 4; l++) {
        /* `x = self.layerL(x)`: forward() names the layer's input until the layer returns; inside,
         * nn.Sequential's `input = module(input)` lets each later block's input go once that block
         * has returned */
        kb_tensor layer_in = x;
        for (int b = 0; b < BLOCKS[l]; b++) {
            char p[32];
            snprintf(p, sizeof p, "layer%d.%d", l + 1, b);
            kb_tensor y = bottleneck(r, x, p, b == 0 && l > 0 ? 2 : 1, b == 0);
            if (b > 0)
                kb_drop(r, x);
            x = y;
        }
        kb_drop(r, layer_in);
    }
    kb_tensor pooled = kb_adaptive_avg_pool_nd(r, KB_NEW, x, 2, (const int64_t[]){1, 1});
    kb_drop(r, x);
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, 512 * EXPANSION), kb_arg(r, "fc.weight"),
              kb_arg(r, "fc.bias"));
}

KB_PROBLEM(.title = "ResNet101", .describe = describe,
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, 3, H, W), KB_RAND)),
           /* terms: the fc's 2048 products of means over 7 x 7 of the last block (the deepest
            * single chain of sums is the network's; this sizes the strict tolerance's floor) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = (int64_t)512 * EXPANSION * 7 * 7)),
           .flops = 1.576e11)
