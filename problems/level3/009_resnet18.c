/*
 * level3/009_resnet18 -- KernelBench L3/9: ResNet18 (BasicBlock, [2, 2, 2, 2], 1000 classes) in
 * training mode on x (2, 3, 224, 224) fp32 -> (2, 1000): conv1 7x7/2 (bias=False), bn1, relu,
 * maxpool 3/2 pad 1, layer1-4 (64, 128, 256, 512 channels; the first block of layer2-4 strides 2
 * and has a 1x1/2 conv + BatchNorm downsample), adaptive avgpool (1, 1), flatten, fc.
 * 20 convolutions, 20 BatchNorm2d (batch statistics: the module is never put in eval mode),
 * 62 parameters (11,689,512 values) and 60 buffers.
 *
 * Eager PyTorch, per op: cudnn_convolution (TF32 by cudnn.allow_tf32, on by default), cudnn
 * batch norm in training mode, which updates running_mean / running_var inside the same call
 * (the reference passes them: they are the module's state), ReLU(inplace=True) as relu_ on the
 * BatchNorm's output, max_pool2d_with_indices (indices dropped), `out += identity` as add_,
 * adaptive_avg_pool2d((1, 1)) as mean over H, W (ATen's shortcut for a 1x1 output), flatten (a
 * view) and addmm through cublasLtMatmul with its bias epilogue (kb_linear). Each temporary is
 * freed where eager's refcount frees it: a convolution's output once the BatchNorm after it
 * returns, a block's output once the next block returns (nn.Sequential rebinding its input),
 * a layer's input once the layer returns (forward()'s `x = self.layerN(x)` holds it).
 * Each BatchNorm first runs its num_batches_tracked.add_(1) (one int64 kernel), as eager's
 * _BatchNorm.forward does (kb_batch_norm_module).
 * Napkin math: 7.29e9 FLOP (7.26e9 of convolutions and fc), ~0.02 ms of TF32, ~0.11 ms of FP32;
 * activations are small (the largest, conv1's (2, 64, 112, 112), is 6.4 MB) and the 46.8 MB of
 * weights are read once: ~0.02 ms of traffic. About 70 kernels, so launch latency and cuDNN's
 * small-batch kernels dominate. Eager: 1.67 ms on an H100 (reference/kernelbench-problems.csv);
 * 2.43 ms FP32, 2.44 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 2, H = 224, W = 224, CLASSES = 1000, LAYERS = 4, BLOCKS = 2 };
static const int WIDTH[LAYERS] = {64, 128, 256, 512};

/* ---- the tensors: named_parameters() and named_buffers() of Model(1000) ---------------------- */

static void basic_block_tensors(kb_net *n, int64_t in, int64_t width, int downsample)
{
    kb_net_conv2d(n, "conv1", in, width, 3, 0);
    kb_net_batchnorm(n, "bn1", width);
    kb_net_conv2d(n, "conv2", width, width, 3, 0);
    kb_net_batchnorm(n, "bn2", width);
    if (downsample) {
        kb_net_push(n, "downsample");
        kb_net_conv2d(n, "0", in, width, 1, 0);
        kb_net_batchnorm(n, "1", width);
        kb_net_pop(n);
    }
}

static void describe(kb_net *n)
{
    kb_net_conv2d(n, "conv1", 3, 64, 7, 0);
    kb_net_batchnorm(n, "bn1", 64);
    int64_t in = 64;
    for (int l = 0; l < LAYERS; l++)
        for (int b = 0; b < BLOCKS; b++) {
            kb_net_push(n, "layer%d.%d", l + 1, b);
            /* _make_layer: a downsample where the stride is 2 or the width changes (layer2-4's first) */
            basic_block_tensors(n, in, WIDTH[l], b == 0 && l > 0);
            kb_net_pop(n);
            in = WIDTH[l];
        }
    kb_net_linear(n, "fc", 512, CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* bn(conv(x)) in training mode, the convolution's output freed once the BatchNorm has read it */
static kb_tensor conv_bn(kb_ref *r, kb_tensor x, const char *p, const char *conv, const char *bn, int stride,
                         int padding)
{
    kb_tensor c = kb_conv(r, KB_NEW, x, kb_argf(r, "%s%s.weight", p, conv), KB_NEW,
                          KB_CONV_PARAMS(.stride = {stride, stride}, .padding = {padding, padding}));
    char m[96];
    snprintf(m, sizeof m, "%s%s", p, bn);
    kb_tensor y = kb_batch_norm_module(r, KB_NEW, c, m);
    kb_drop(r, c);
    return y;
}

/* BasicBlock.forward; p is "layerL.B." */
static kb_tensor basic_block(kb_ref *r, kb_tensor x, const char *p, int stride, int downsample)
{
    kb_tensor out = conv_bn(r, x, p, "conv1", "bn1", stride, 1);
    kb_relu(r, out, out);
    kb_tensor o2 = conv_bn(r, out, p, "conv2", "bn2", 1, 1);
    kb_drop(r, out);
    if (downsample) {
        kb_tensor identity = conv_bn(r, x, p, "downsample.0", "downsample.1", stride, 0);
        kb_add(r, o2, o2, identity);
        kb_relu(r, o2, o2);
        kb_drop(r, identity);
    } else {
        kb_add(r, o2, o2, x);
        kb_relu(r, o2, o2);
    }
    return o2;
}

static void reference(kb_ref *r)
{
    kb_tensor t = conv_bn(r, kb_arg(r, "x"), "", "conv1", "bn1", 2, 3);
    kb_relu(r, t, t);
    kb_tensor x = kb_max_pool2d(r, KB_NEW, t, 3, 2, /*padding=*/1, /*dilation=*/1, /*ceil_mode=*/0);
    kb_drop(r, t);
    for (int l = 0; l < LAYERS; l++) {
        const kb_tensor layer_in = x;
        for (int b = 0; b < BLOCKS; b++) {
            char p[32];
            snprintf(p, sizeof p, "layer%d.%d.", l + 1, b);
            const int first = b == 0 && l > 0;
            kb_tensor y = basic_block(r, x, p, first ? 2 : 1, first);
            if (b > 0)
                kb_drop(r, x); /* nn.Sequential's `input = module(input)` lets the block's input go */
            x = y;
        }
        /* forward()'s `x = self.layerN(x)` held the layer's input until the layer returned */
        kb_drop(r, layer_in);
    }
    kb_tensor pooled = kb_adaptive_avg_pool_nd(r, KB_NEW, x, 2, (const int64_t[]){1, 1});
    kb_drop(r, x);
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, 512), kb_arg(r, "fc.weight"), kb_arg(r, "fc.bias"));
    kb_drop(r, pooled);
}

KB_PROBLEM(.title = "ResNet18", .describe = describe,
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, 3, H, W), KB_RAND)),
           /* terms: the fc's 512 products of means over 7 x 7 of the last block, the deepest
            * chain of sums into y (as level3/010_resnet101 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = 512 * 7 * 7)),
           /* layer by layer: 2 per product of the convolutions and fc (7.256e9), 4 per BatchNorm
            * element (1.99e7), relus, adds, 8 comparisons per pooled value, the mean and the bias */
           .flops = 7.286e9,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
