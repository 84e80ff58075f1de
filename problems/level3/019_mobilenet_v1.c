/*
 * level3/019_mobilenet_v1 -- KernelBench L3/19: MobileNetV1 (alpha 1.0, 1000 classes) in training
 * mode on x (10, 3, 224, 224) fp32 -> (10, 1000): model.0 = conv 3x3/2 (3 -> 32) BatchNorm
 * relu; model.1-13 = depthwise conv 3x3 (groups = channels, stride 1 or 2) BatchNorm relu, then
 * pointwise conv 1x1 BatchNorm relu (32 -> 64 -> 128 -> 128 -> 256 -> 256 -> 512 x6 -> 1024 ->
 * 1024; 112 -> 7 pixels); model.14 = AvgPool2d(7); view (10, 1024); fc. 27 convolutions, 27
 * BatchNorm2d (batch statistics: the module is never put in eval mode), 83 parameters
 * (4,231,976 values) and 81 buffers.
 *
 * Eager PyTorch, per op: the stem conv and the 13 pointwise convs are cudnn_convolution (TF32 by
 * cudnn.allow_tf32, on by default). The 13 depthwise convs are not cuDNN: fp32 NCHW with groups
 * == in_channels fails use_cudnn_depthwise (fp16 or channels-last only), so select_conv_backend
 * picks at::_conv_depthwise2d, conv_depthwise2d_forward_kernel<3> (kb_depthwise_conv2d;
 * kb_conv refuses this case). Each BatchNorm2d is cudnn batch norm in training mode, which
 * updates running_mean / running_var in the same call (the reference passes them: they are the
 * module's state); ReLU(inplace=True) is relu_ on its output; AvgPool2d(7) is avg_pool2d's
 * CUDA kernel (count_include_pad, a 7x7 window per output: kb_avg_pool2d); view is a view; the
 * fc is addmm through cublasLtMatmul with its bias epilogue (kb_linear). 83 kernels. Lifetimes:
 * inside each nn.Sequential a conv's output is freed once its BatchNorm returns and the
 * BatchNorm's once the next conv does, but a block's input stays referenced by the outer
 * Sequential until the block returns.
 * Each BatchNorm first runs its num_batches_tracked.add_(1) (one int64 kernel), as eager's
 * _BatchNorm.forward does (kb_batch_norm_module).
 * Napkin math: 1.16e10 FLOP (1.14e10 of convolutions and fc, nearly all pointwise; 2.0e8 for the
 * BatchNorms), ~0.03 ms of TF32; activations of 2-32 MB (the largest (10, 64, 112, 112)), each
 * made and read a few times by the BatchNorm, relu and next conv: ~1 GB of traffic, ~0.25 ms at
 * ~4.3 TB/s; 83 launches. Eager: 1.73 ms on an H100 (reference/kernelbench-problems.csv);
 * 5.12 ms FP32, 4.94 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 3, HW = 224, CLASSES = 1000, BLOCKS = 13, POOL = 7 };

/* model.<b + 1> = conv_dw(IN[b], OUT[b], STRIDE[b]) */
static const int IN[BLOCKS] = {32, 64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024};
static const int OUT[BLOCKS] = {64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024, 1024};
static const int STRIDE[BLOCKS] = {1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1};

/* ---- the tensors: named_parameters() and named_buffers() of Model(1000, 3, 1.0) --------------- */

static void describe(kb_net *n)
{
    /* model.0 = Sequential(Conv2d, BatchNorm2d, ReLU) */
    kb_net_push(n, "model.0");
    kb_net_conv2d(n, "0", CIN, 32, 3, 0);
    kb_net_batchnorm(n, "1", 32);
    kb_net_pop(n);
    /* model.<b> = Sequential(depthwise Conv2d, BatchNorm2d, ReLU, 1x1 Conv2d, BatchNorm2d, ReLU) */
    for (int b = 0; b < BLOCKS; b++) {
        kb_net_push(n, "model.%d", b + 1);
        kb_net_conv2d_g(n, "0", IN[b], IN[b], 3, IN[b], 0);
        kb_net_batchnorm(n, "1", IN[b]);
        kb_net_conv2d(n, "3", IN[b], OUT[b], 1, 0);
        kb_net_batchnorm(n, "4", OUT[b]);
        kb_net_pop(n);
    }
    kb_net_linear(n, "fc", 1024, CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* relu_(bn(c)) in training mode; c, the convolution's output, freed once the BatchNorm returns */
static kb_tensor bn_relu(kb_ref *r, kb_tensor c, const char *bn)
{
    kb_tensor y = kb_batch_norm_module(r, KB_NEW, c, bn);
    kb_drop(r, c);
    kb_relu(r, y, y);
    return y;
}

static void reference(kb_ref *r)
{
    char p[32];
    /* model.0: conv_bn(3, 32, 2) */
    kb_tensor t = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "model.0.0.weight"), KB_NEW,
                          KB_CONV_PARAMS(.stride = {2, 2}, .padding = {1, 1}));
    t = bn_relu(r, t, "model.0.1");
    /* model.1-13: conv_dw(IN, OUT, STRIDE) */
    for (int b = 0; b < BLOCKS; b++) {
        const int s = STRIDE[b];
        kb_tensor d = kb_depthwise_conv2d(r, KB_NEW, t, kb_argf(r, "model.%d.0.weight", b + 1), KB_NEW, s, s,
                                          /*pad=*/1, 1, /*dilation=*/1, 1);
        snprintf(p, sizeof p, "model.%d.1", b + 1);
        d = bn_relu(r, d, p);
        kb_tensor c = kb_conv(r, KB_NEW, d, kb_argf(r, "model.%d.3.weight", b + 1), KB_NEW, NULL);
        kb_drop(r, d);
        snprintf(p, sizeof p, "model.%d.4", b + 1);
        c = bn_relu(r, c, p);
        kb_drop(r, t); /* the outer Sequential lets the block's input go once the block returns */
        t = c;
    }
    /* model.14: AvgPool2d(7) on (10, 1024, 7, 7) */
    kb_tensor pooled = kb_avg_pool2d(r, KB_NEW, t, POOL, /*stride=None*/ 0, /*padding=*/0, /*ceil_mode=*/0,
                                     /*count_include_pad=*/1, /*divisor_override=None*/ 0);
    kb_drop(r, t);
    /* x = self.fc(x.view(x.size(0), -1)) */
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, -1), kb_arg(r, "fc.weight"), kb_arg(r, "fc.bias"));
    kb_drop(r, pooled);
}

KB_PROBLEM(.title = "MobileNetV1", .describe = describe,
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, HW, HW), KB_RAND)),
           /* terms: the fc's 1024 products of means over 7 x 7 of the last block, the deepest
            * chain of sums into y (as level3/010_resnet101 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = 1024 * POOL * POOL)),
           /* layer by layer: 2 per product of the convolutions and fc (1.1375e10), 4 per BatchNorm
            * element (2.02e8), the relus (5.0e7), the pool's sums and the fc bias */
           .flops = 1.1627e10,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
