/*
 * level3/027_regnet -- KernelBench L3/27: "RegNet" as KernelBench writes it (three plain stages,
 * widths 64 / 128 / 256, 10 classes) in training mode on x (8, 3, 224, 224) fp32 -> (8, 10):
 * feature_extractor.<s> = Sequential(3x3 conv pad 1 (with bias), BatchNorm, ReLU, 3x3 conv pad 1
 * (with bias), BatchNorm, ReLU, MaxPool2d(2, 2)) for s = 0..2 (224 -> 112 -> 56 -> 28 pixels);
 * torch.mean over H, W; fc. 6 convolutions, 6 BatchNorm2d (batch statistics: the module is never
 * put in eval mode), 26 parameters (1,149,770 values) and 18 buffers, PyTorch's default
 * initialisers.
 *
 * Eager PyTorch, per op: each conv is cudnn_convolution (TF32 by cudnn.allow_tf32) then
 * `output.add_(bias)` as its own kernel (kb_conv with the bias); each BatchNorm2d runs
 * num_batches_tracked.add_(1) then cudnn batch norm in training mode, updating running_mean /
 * running_var in the same call (kb_batch_norm_module); nn.ReLU() is an out-of-place relu; the
 * max pool is max_pool2d_with_indices (indices dropped); torch.mean(x, dim=[2, 3]) is one mean
 * reduction (kb_mean_dims); fc is addmm through cublasLtMatmul with its bias epilogue
 * (kb_linear). 35 kernels. Lifetimes: inside each stage's nn.Sequential a module's input is
 * freed once that module returns, but the stage's input stays alive until the stage returns
 * (feature_extractor passes it; forward() names x itself); feature_extractor's output goes once
 * the mean has returned, the mean once the fc has.
 * Napkin math: 1.203e11 FLOP (1.199e11 of convolutions, 3.6e8 for the BatchNorms, 9.0e7 for the
 * relus, 3.4e7 for the pools), ~0.3 ms of TF32, ~1.8 ms at 67 TFLOP/s FP32; stage 0's
 * (8, 64, 224, 224) maps are 103 MB each, written by a conv, read and written by its bias add,
 * read twice and written by its BatchNorm, read and written by its relu: ~3.5 GB of traffic in
 * all, ~0.8 ms at ~4.3 TB/s. Eager: 2.37 ms on an H100 (reference/kernelbench-problems.csv);
 * 2.19 ms FP32, 2.18 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 8, CIN = 3, HW = 224, STAGES = 3, CLASSES = 10, FINAL_HW = HW >> STAGES };
static const int WIDTH[STAGES] = {64, 128, 256}; /* block_widths */

/* ---- the tensors: named_parameters() and named_buffers() of Model(3, 3, [64, 128, 256], 10) ---- */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, CIN, HW, HW), KB_RAND);
    int in = CIN;
    for (int s = 0; s < STAGES; s++) {
        kb_net_push(n, "feature_extractor.%d", s);
        kb_net_conv2d(n, "0", in, WIDTH[s], 3, 1);
        kb_net_batchnorm(n, "1", WIDTH[s]);
        kb_net_conv2d(n, "3", WIDTH[s], WIDTH[s], 3, 1);
        kb_net_batchnorm(n, "4", WIDTH[s]);
        kb_net_pop(n);
        in = WIDTH[s];
    }
    kb_net_linear(n, "fc", WIDTH[STAGES - 1], CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* relu(bn(conv(x) + bias)) of feature_extractor.<s>.<i>, .<i + 1>: each module's output freed
 * once the next module has returned; x itself left to the caller */
static kb_tensor conv_bn_relu(kb_ref *r, kb_tensor x, int s, int i)
{
    char m[48];
    kb_tensor c = kb_conv(r, KB_NEW, x, kb_argf(r, "feature_extractor.%d.%d.weight", s, i),
                          kb_argf(r, "feature_extractor.%d.%d.bias", s, i), KB_CONV_PARAMS(.padding = {1, 1}));
    snprintf(m, sizeof m, "feature_extractor.%d.%d", s, i + 1);
    kb_tensor b = kb_batch_norm_module(r, KB_NEW, c, m);
    kb_drop(r, c);
    kb_tensor y = kb_relu(r, KB_NEW, b);
    kb_drop(r, b);
    return y;
}

static void reference(kb_ref *r)
{
    /* x = self.feature_extractor(x) */
    kb_tensor x = kb_arg(r, "x");
    for (int s = 0; s < STAGES; s++) {
        kb_tensor a = conv_bn_relu(r, x, s, 0);
        kb_tensor b = conv_bn_relu(r, a, s, 3);
        kb_drop(r, a);
        kb_tensor p = kb_max_pool2d(r, KB_NEW, b, 2, 2, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
        kb_drop(r, b);
        kb_drop(r, x); /* the stage's input, once the stage has returned (the argument x is no temporary) */
        x = p;
    }
    /* x = torch.mean(x, dim=[2, 3]); x = self.fc(x) */
    kb_tensor m = kb_mean_dims(r, KB_NEW, x, (const int[]){2, 3}, 2, /*keepdim=*/0);
    kb_drop(r, x);
    kb_linear(r, kb_arg(r, "y"), m, kb_arg(r, "fc.weight"), kb_arg(r, "fc.bias"));
    kb_drop(r, m);
}

KB_PROBLEM(.title = "RegNet", .describe = describe,
           /* terms: the fc's 256 products of means over 28 x 28 of the last stage, the deepest
            * chain of sums into y (as level3/010_resnet101 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = 256 * FINAL_HW * FINAL_HW)),
           /* layer by layer: 2 per product of the convolutions and fc plus the conv biases
            * (1.1986e11), 4 per BatchNorm element (3.60e8), the relus (9.0e7), 3 comparisons per
            * pooled value (3.4e7), the mean (1.6e6) */
           .flops = 1.2034e11,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
