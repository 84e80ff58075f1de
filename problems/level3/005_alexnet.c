/*
 * level3/005_alexnet -- KernelBench L3/5: AlexNet on x (1024, 3, 224, 224) fp32 -> (1024, 1000):
 * conv1 (3 -> 96, 11x11 /4 pad 2) relu maxpool 3/2, conv2 (96 -> 256, 5x5 pad 2) relu maxpool,
 * conv3-5 (3x3 pad 1: 256 -> 384 -> 384 -> 256) relu, maxpool, flatten (1024, 9216),
 * fc1 (9216 -> 4096) relu dropout, fc2 (4096 -> 4096) relu dropout, fc3 (4096 -> 1000).
 *
 * Eager PyTorch, per op: each nn.Conv2d is cudnn_convolution (TF32 by cudnn.allow_tf32) then
 * output.add_(bias) as a second kernel (kb_conv); ReLU(inplace=True) is relu_ on that output;
 * nn.MaxPool2d is max_pool2d_with_indices (indices computed and dropped: kb_max_pool2d);
 * torch.flatten a view; each nn.Linear is addmm through cublasLtMatmul with the bias epilogue
 * (every size > 1: kb_linear). nn.Dropout(p=0.0) in training mode launches nothing: ATen's
 * dropout returns its input when p == 0 (the fused native_dropout is taken only for 0 < p < 1).
 * Each `x = layer(x)` frees the previous x once the layer has returned: a conv's input after the
 * conv, a conv's output after the pool that reads it.
 * Napkin math: 2.33e12 FLOP (convolutions 2.20e12, of which conv2 0.92e12; fcs 0.12e12;
 * elementwise and pooling 2.4e9), ~35 ms of FP32 at ~67 TFLOP/s, ~6 ms of TF32 (cuDNN's TF32
 * is on by default, so both eager modes run the convolutions in TF32; only the fcs differ). The
 * conv outputs are 2.7 GB in all (conv1's (1024, 96, 55, 55) 1.19 GB), each written by the conv,
 * read and written by the bias add and by the relu, read by the next layer: ~16 GB of traffic,
 * ~3.7 ms at ~4.3 TB/s. Eager: 23.7 ms on an H100 (reference/kernelbench-problems.csv); 21.4 ms
 * FP32, 19.3 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, HW = 224, FLAT = 256 * 6 * 6, FC = 4096, CLASSES = 1000, CONVS = 5, POOL = 3, POOL_STRIDE = 2 };

/* conv<i+1>: nn.Conv2d(cin, cout, k, stride, padding), followed by a MaxPool2d(3, 2) when pool */
static const struct {
    int cin, cout, k, stride, pad, pool;
} CONV[CONVS] = {
    {3, 96, 11, 4, 2, 1}, {96, 256, 5, 1, 2, 1}, {256, 384, 3, 1, 1, 0}, {384, 384, 3, 1, 1, 0}, {384, 256, 3, 1, 1, 1},
};
static const int64_t FC_IN[3] = {FLAT, FC, FC}, FC_OUT[3] = {FC, FC, CLASSES};

/* named_parameters(): conv1..conv5, then fc1..fc3 (the ReLU, pool and dropout modules hold none) */
static void describe(kb_net *n)
{
    char name[16];
    for (int i = 0; i < CONVS; i++) {
        snprintf(name, sizeof name, "conv%d", i + 1);
        kb_net_conv2d(n, name, CONV[i].cin, CONV[i].cout, CONV[i].k, 1);
    }
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "fc%d", i + 1);
        kb_net_linear(n, name, FC_IN[i], FC_OUT[i], 1);
    }
}

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    for (int i = 0; i < CONVS; i++) {
        const int s = CONV[i].stride, p = CONV[i].pad;
        kb_tensor c = kb_conv(r, KB_NEW, x, kb_argf(r, "conv%d.weight", i + 1), kb_argf(r, "conv%d.bias", i + 1),
                              KB_CONV_PARAMS(.stride = {s, s}, .padding = {p, p}));
        kb_drop(r, x); /* the forward() argument itself is left alone */
        kb_relu(r, c, c);
        if (CONV[i].pool) {
            x = kb_max_pool2d(r, KB_NEW, c, POOL, POOL_STRIDE, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
            kb_drop(r, c);
        } else {
            x = c;
        }
    }
    /* fc1, relu6 (dropout1: nothing), fc2, relu7 (dropout2: nothing) */
    kb_tensor h = KB_VIEW(r, x, BATCH, FLAT);
    for (int i = 0; i < 2; i++) {
        kb_tensor f = kb_linear(r, KB_NEW, h, kb_argf(r, "fc%d.weight", i + 1), kb_argf(r, "fc%d.bias", i + 1));
        kb_drop(r, h); /* h views the previous activation: its memory goes */
        kb_relu(r, f, f);
        h = f;
    }
    kb_linear(r, kb_arg(r, "y"), h, kb_arg(r, "fc3.weight"), kb_arg(r, "fc3.bias"));
    kb_drop(r, h);
}

KB_PROBLEM(.title = "AlexNet", .describe = describe,
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, 3, HW, HW), KB_RAND)),
           /* terms: fc1's 9216 products, the largest single reduction of the network (conv4 sums
            * 384 * 9 = 3456) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = FLAT)),
           /* layer by layer from CONV and FC_*: 2 per product of the convolutions and fcs
            * (2.325e12), a bias add and a relu per conv and hidden fc output (1.35e9), 8
            * comparisons per pooled value (1.0e9) */
           .flops = 2.32736e12)
