/*
 * level3/011_vgg16 -- KernelBench L3/11: VGG16 on x (10, 3, 224, 224) fp32 -> (10, 1000):
 * features = 13 conv 3x3 pad 1 (+ bias) each followed by ReLU(inplace=True), in five blocks
 * (64 x2, 128 x2, 256 x3, 512 x3, 512 x3) each ending in MaxPool2d(2, 2); flatten (10, 25088);
 * classifier = Linear(25088, 4096) relu dropout, Linear(4096, 4096) relu dropout,
 * Linear(4096, 1000).
 *
 * Eager PyTorch, per op: each nn.Conv2d is cudnn_convolution (TF32 by cudnn.allow_tf32, on by
 * default) then output.add_(bias) as a second kernel (kb_conv); ReLU(inplace=True) is relu_ on
 * that output; nn.MaxPool2d is max_pool2d_with_indices (indices computed and dropped:
 * kb_max_pool2d); torch.flatten a view; each nn.Linear is addmm through cublasLtMatmul with the
 * bias epilogue (every size > 1: kb_linear). nn.Dropout(p=0.0) in training mode launches
 * nothing: ATen's dropout returns its input when p == 0. nn.Sequential's `input =
 * module(input)` frees a conv's input once the conv has returned and a conv's output once the
 * pool after it has; forward()'s `x = self.classifier(x)` holds the flattened features until
 * the classifier returns.
 * Napkin math: 3.10e11 FLOP (3.07e11 of convolutions, 2.5e9 of fcs, 3.2e8 elementwise and
 * pooling): ~0.8 ms of TF32 at ~400 TFLOP/s, ~4.6 ms at FP32's ~67 TFLOP/s (both eager modes run
 * the convolutions in TF32: only the fcs differ). The 553 MB of weights (138,357,544 values) are
 * read once; the conv outputs are 540 MB in all (the first two (10, 64, 224, 224), 128 MB each),
 * each written, read and rewritten by the bias add and the relu, read by the next layer: ~3.8 GB
 * of traffic, ~0.9 ms at ~4.3 TB/s. Eager: 3.39 ms on an H100 (reference/kernelbench-problems.csv);
 * 3.16 ms FP32, 2.91 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, HW = 224, FLAT = 512 * 7 * 7, FC = 4096, CLASSES = 1000, M = 0 };

/* the features' layers in order: a conv's output channels, or M for MaxPool2d(2, 2); in the
 * Sequential a conv at index i has its ReLU at i + 1 */
static const int CFG[] = {64, 64, M, 128, 128, M, 256, 256, 256, M, 512, 512, 512, M, 512, 512, 512, M};
enum { NCFG = sizeof CFG / sizeof CFG[0] };
/* classifier.<i>: the Linear layers (ReLU at i + 1, Dropout at i + 2) */
static const int FC_INDEX[3] = {0, 3, 6};
static const int64_t FC_IN[3] = {FLAT, FC, FC}, FC_OUT[3] = {FC, FC, CLASSES};

/* named_parameters(): features.<i>.weight / .bias for each conv, classifier.<i>.* for each Linear */
static void describe(kb_net *n)
{
    char name[32];
    int64_t in = 3;
    for (int c = 0, i = 0; c < NCFG; c++) {
        if (CFG[c] == M) {
            i += 1;
            continue;
        }
        snprintf(name, sizeof name, "features.%d", i);
        kb_net_conv2d(n, name, in, CFG[c], 3, 1);
        in = CFG[c];
        i += 2;
    }
    for (int f = 0; f < 3; f++) {
        snprintf(name, sizeof name, "classifier.%d", FC_INDEX[f]);
        kb_net_linear(n, name, FC_IN[f], FC_OUT[f], 1);
    }
}

static void reference(kb_ref *r)
{
    /* x = self.features(x) */
    kb_tensor x = kb_arg(r, "x");
    for (int c = 0, i = 0; c < NCFG; c++) {
        kb_tensor t;
        if (CFG[c] == M) {
            t = kb_max_pool2d(r, KB_NEW, x, 2, 2, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
            i += 1;
        } else {
            t = kb_conv(r, KB_NEW, x, kb_argf(r, "features.%d.weight", i), kb_argf(r, "features.%d.bias", i),
                        KB_CONV_PARAMS(.padding = {1, 1}));
            kb_relu(r, t, t);
            i += 2;
        }
        kb_drop(r, x); /* the forward() argument itself is left alone */
        x = t;
    }
    /* x = self.classifier(torch.flatten(x, 1)); the dropouts launch nothing */
    kb_tensor h = KB_VIEW(r, x, BATCH, FLAT);
    for (int f = 0; f < 2; f++) {
        kb_tensor t = kb_linear(r, KB_NEW, h, kb_argf(r, "classifier.%d.weight", FC_INDEX[f]),
                                kb_argf(r, "classifier.%d.bias", FC_INDEX[f]));
        if (f > 0)
            kb_drop(r, h); /* the Sequential's previous output */
        kb_relu(r, t, t);
        h = t;
    }
    kb_linear(r, kb_arg(r, "y"), h, kb_arg(r, "classifier.6.weight"), kb_arg(r, "classifier.6.bias"));
    kb_drop(r, h);
    kb_drop(r, x); /* forward()'s x, the flattened features, held until the classifier returned */
}

KB_PROBLEM(.title = "VGG16", .describe = describe,
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, 3, HW, HW), KB_RAND)),
           /* terms: classifier.0's 25088 products, the largest single reduction of the network
            * (a 512-channel conv sums 4608) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = FLAT)),
           /* layer by layer from CFG and FC_*: 2 per product of the convolutions and Linears
            * (3.094e11), a bias add and a relu per conv and hidden Linear output (2.7e8), 3
            * comparisons per pooled value (4.6e7) */
           .flops = 3.0972e11)
