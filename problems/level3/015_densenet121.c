/*
 * level3/015_densenet121 -- KernelBench L3/15: DenseNet121 (growth 32, dense blocks [6, 12, 24,
 * 16], transitions halving the channels, 10 classes) in training mode on x (10, 3, 224, 224)
 * fp32 -> (10, 10): conv 7x7/2 (bias=False), BatchNorm, relu_, max pool 3/2 pad 1; the dense
 * blocks at 56, 28, 14 and 7 pixels with a transition (BatchNorm, relu_, 1x1 conv, 2x2 average
 * pool) after each but the last; final BatchNorm, relu_, adaptive average pool (1, 1), the
 * classifier. 62 convolutions, 63 BatchNorm2d (batch statistics: the module is never put in eval
 * mode), 190 parameters (9,854,346 values) and 189 buffers.
 *
 * Eager PyTorch, per op: cudnn_convolution (TF32 by cudnn.allow_tf32), cudnn_batch_norm in
 * training mode (running mean and variance, module state, updated in the same call; momentum 0.1,
 * eps 1e-5), relu_ on the BatchNorm's output, max_pool2d_with_indices (the int64 indices computed
 * and dropped), avg_pool2d; each dense layer's Dropout(0.0) is no kernel (ATen returns its
 * input); each dense layer ends in torch.cat(features, 1) of the block's input and every new
 * feature so far: one CatArrayBatchedCopy_vectorized launch (at most 25 contiguous inputs, every
 * slice a 16-byte multiple; kb_cat); F.adaptive_avg_pool2d((1, 1)) as mean over H, W (ATen's
 * shortcut), view, and addmm through cuBLASLt with its bias epilogue (kb_linear). 252 launches
 * besides cuDNN's own.
 * Memory as eager's refcounts: an nn.Sequential frees a layer's input once the layer has
 * returned (the conv outputs once their BatchNorm returns, the BatchNorm outputs once their conv
 * or pool returns); in a dense block each cat's result goes once the next one is assigned to x,
 * the new features with the list when the block returns, the block's input when the caller's
 * `x = block(x)` rebinds it; the final BatchNorm's output once the pooled view is assigned.
 * Deliberate difference: each BatchNorm's num_batches_tracked += 1 (a one-element int64 add_,
 * 63 launches per forward) is not reproduced; y is unaffected.
 * Napkin math: 6.20e10 FLOP (the convolutions 6.09e10; BatchNorm, relu, pools and the classifier
 * the rest; reference/kernelbench-problems.csv gives 6.196e10), ~0.2 ms of TF32 tensor-core
 * time; the largest activation is 32 MB and every kernel is small, so the ~250 launches and
 * cuDNN's small-shape kernels set the time. Eager on the H200: 10.70 ms median
 * (reference/pytorch-eager-h200.csv; peak 120.7 MB over its resident bytes, the same as
 * DenseNet201's: reached in the stem or the first block); 6.68 ms on an H100
 * (reference/kernelbench-problems.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, H = 224, W = 224, GROWTH = 32, CLASSES = 10, BLOCKS = 4 };
enum { MAX_LAYERS = 24, FEATURES = 1024 }; /* the longest block; the final BatchNorm's channels */
static const int LAYERS[BLOCKS] = {6, 12, 24, 16};

/* ---- the tensors: named_parameters() and named_buffers() of Model(32, 10) -------------------- */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, 3, H, W), KB_RAND);
    kb_net_conv2d(n, "features.0", 3, 64, 7, 0);
    kb_net_batchnorm(n, "features.1", 64);
    /* the ModuleLists in registration order: every dense block, then every transition */
    int64_t c = 64;
    for (int b = 0; b < BLOCKS; b++) {
        for (int i = 0; i < LAYERS[b]; i++) {
            kb_net_push(n, "dense_blocks.%d.layers.%d", b, i);
            kb_net_batchnorm(n, "0", c + i * GROWTH);
            kb_net_conv2d(n, "2", c + i * GROWTH, GROWTH, 3, 0);
            kb_net_pop(n);
        }
        c = (c + LAYERS[b] * GROWTH) / (b < BLOCKS - 1 ? 2 : 1);
    }
    c = 64;
    for (int b = 0; b < BLOCKS - 1; b++) {
        c += LAYERS[b] * GROWTH;
        kb_net_push(n, "transition_layers.%d.transition", b);
        kb_net_batchnorm(n, "0", c);
        kb_net_conv2d(n, "2", c, c / 2, 1, 0);
        kb_net_pop(n);
        c /= 2;
    }
    c += LAYERS[BLOCKS - 1] * GROWTH;
    kb_net_batchnorm(n, "final_bn", c); /* c == FEATURES */
    kb_net_linear(n, "classifier", c, CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* BatchNorm2d at `bn` (training mode, running statistics updated) into a new tensor, then relu_ */
static kb_tensor bn_relu(kb_ref *r, kb_tensor x, const char *bn)
{
    kb_tensor y = kb_batch_norm_train(r, KB_NEW, x, kb_argf(r, "%s.weight", bn), kb_argf(r, "%s.bias", bn),
                                      kb_argf(r, "%s.running_mean", bn), kb_argf(r, "%s.running_var", bn), 0.1, 1e-5);
    return kb_relu(r, y, y);
}

/* DenseBlock.forward of dense_blocks.<b>; x (the block's input) stays the caller's */
static kb_tensor dense_block(kb_ref *r, kb_tensor x, int b)
{
    kb_tensor features[1 + MAX_LAYERS];
    const int layers = LAYERS[b];
    features[0] = x;
    for (int i = 0; i < layers; i++) {
        char p[64];
        snprintf(p, sizeof p, "dense_blocks.%d.layers.%d.0", b, i);
        kb_tensor t = bn_relu(r, x, p);
        snprintf(p, sizeof p, "dense_blocks.%d.layers.%d.2.weight", b, i);
        features[i + 1] = kb_conv(r, KB_NEW, t, kb_arg(r, p), KB_NEW, KB_CONV_PARAMS(.padding = {1, 1}));
        kb_drop(r, t); /* the layer's Sequential; Dropout(0.0) returns the conv's output */
        kb_tensor next = kb_cat(r, KB_NEW, features, i + 2, 1);
        if (i > 0)
            kb_drop(r, x); /* the previous cat, once x is rebound */
        x = next;
    }
    for (int i = 1; i <= layers; i++)
        kb_drop(r, features[i]); /* the list dies when forward returns */
    return x;
}

/* TransitionLayer.forward of transition_layers.<b> */
static kb_tensor transition(kb_ref *r, kb_tensor x, int b)
{
    char p[64];
    snprintf(p, sizeof p, "transition_layers.%d.transition.0", b);
    kb_tensor t = bn_relu(r, x, p);
    snprintf(p, sizeof p, "transition_layers.%d.transition.2.weight", b);
    kb_tensor c = kb_conv(r, KB_NEW, t, kb_arg(r, p), KB_NEW, NULL);
    kb_drop(r, t);
    kb_tensor y = kb_avg_pool2d(r, KB_NEW, c, 2, 2, 0, 0, 1, 0);
    kb_drop(r, c);
    return y;
}

static void reference(kb_ref *r)
{
    /* features: conv0, BatchNorm, relu_, max pool */
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "features.0.weight"), KB_NEW,
                          KB_CONV_PARAMS(.stride = {2, 2}, .padding = {3, 3}));
    kb_tensor t = bn_relu(r, c, "features.1");
    kb_drop(r, c);
    kb_tensor x = kb_max_pool2d(r, KB_NEW, t, 3, 2, 1, 1, 0);
    kb_drop(r, t);
    for (int b = 0; b < BLOCKS; b++) {
        kb_tensor y = dense_block(r, x, b);
        kb_drop(r, x); /* x = block(x) */
        x = y;
        if (b < BLOCKS - 1) {
            y = transition(r, x, b);
            kb_drop(r, x);
            x = y;
        }
    }
    kb_tensor f = bn_relu(r, x, "final_bn");
    kb_drop(r, x);
    kb_tensor pooled = kb_adaptive_avg_pool_nd(r, KB_NEW, f, 2, (const int64_t[]){1, 1});
    kb_drop(r, f);
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, FEATURES), kb_arg(r, "classifier.weight"),
              kb_arg(r, "classifier.bias"));
}

KB_PROBLEM(.title = "DenseNet121", .describe = describe,
           /* terms: the classifier's 1024 products of means over 7 x 7 of the final BatchNorm's
            * output (the last chain of sums, as level3/010 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = FEATURES * 7 * 7)),
           /* convolutions, BatchNorms (8 per element) and relus, pools, the classifier */
           .flops = 6.197e10)
