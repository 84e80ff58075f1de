/*
 * level3/007_googlenet_inception_v1 -- KernelBench L3/7: GoogLeNet (Inception v1 without its
 * auxiliary heads or any activation inside the inception modules) on x (10, 3, 224, 224) fp32
 * -> (10, 1000): conv1 7x7/2, relu, max pool 3/2/1, conv2 1x1, relu, conv3 3x3, relu, max pool;
 * inception 3a, 3b, max pool, 4a-4e, max pool, 5a, 5b; adaptive average pool (1, 1), flatten,
 * Dropout(0.0), fc. 57 convolutions with bias, 116 parameters (6,998,552 values), no buffers.
 *
 * Eager PyTorch, per op: cudnn_convolution (TF32 by cudnn.allow_tf32) then its bias add_ as a
 * second kernel; F.relu out of place (a new tensor; the conv's output freed once relu returns);
 * max_pool2d_with_indices (the int64 indices computed and dropped); in each inception module
 * branch1x1 (conv + bias), branch3x3 and branch5x5 (1x1 then 3x3 / 5x5, the 1x1's output freed by
 * the Sequential), branch_pool (max pool 3/1/1, then a 1x1 conv; the pooled tensor freed once the
 * conv returns) and torch.cat of the four along dim 1: one CatArrayBatchedCopy_vectorized launch
 * (contiguous inputs, every slice a 16-byte multiple; kb_cat), the branches freed with forward's
 * locals; each `x = module(x)` frees the previous x. AdaptiveAvgPool2d((1, 1)) is mean over H, W
 * (ATen's shortcut), flatten a view, Dropout(0.0) no kernel (ATen returns its input), fc addmm
 * through cuBLASLt with its bias epilogue (kb_linear). 141 launches besides cuDNN's own.
 * Peak: conv1's output and its relu (32.1 MB each) = 64.2 MB over x;
 * reference/pytorch-eager-h200.csv gives 70.3 MB over its resident bytes: 6 MB more, presumably a
 * cuDNN workspace (conv1's or conv3's), to check in the memory profile.
 * Napkin math: 3.16e10 FLOP of convolution (~0.1 ms of TF32) + 1.3e8 of pooling, 4.8e7 of bias
 * adds and relus, 2.0e7 of fc = 3.18e10 (reference/kernelbench-problems.csv); the largest
 * activation is 32 MB, so the ~140 launches and cuDNN's small-shape kernels set the time. Eager on
 * the H200: 2.99 ms median (reference/pytorch-eager-h200.csv); 2.65 ms on an H100
 * (reference/kernelbench-problems.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, H = 224, W = 224, CLASSES = 1000, MODULES = 9, FEATURES = 1024 };

/* InceptionModule(in, out_1x1, reduce_3x3, out_3x3, reduce_5x5, out_5x5, pool_proj); `pool`: a
 * max pool 3/2/1 follows (maxpool3, maxpool4) */
static const struct {
    const char *name;
    int in, o1, r3, o3, r5, o5, pp, pool;
} INC[MODULES] = {
    {"inception3a", 192, 64, 96, 128, 16, 32, 32, 0},     {"inception3b", 256, 128, 128, 192, 32, 96, 64, 1},
    {"inception4a", 480, 192, 96, 208, 16, 48, 64, 0},    {"inception4b", 512, 160, 112, 224, 24, 64, 64, 0},
    {"inception4c", 512, 128, 128, 256, 24, 64, 64, 0},   {"inception4d", 512, 112, 144, 288, 32, 64, 64, 0},
    {"inception4e", 528, 256, 160, 320, 32, 128, 128, 1}, {"inception5a", 832, 256, 160, 320, 32, 128, 128, 0},
    {"inception5b", 832, 384, 192, 384, 48, 128, 128, 0},
};

/* ---- the tensors: named_parameters() of Model(1000) ------------------------------------------ */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, 3, H, W), KB_RAND);
    kb_net_conv2d(n, "conv1", 3, 64, 7, 1);
    kb_net_conv2d(n, "conv2", 64, 64, 1, 1);
    kb_net_conv2d(n, "conv3", 64, 192, 3, 1);
    for (int m = 0; m < MODULES; m++) {
        kb_net_push(n, "%s", INC[m].name);
        kb_net_conv2d(n, "branch1x1", INC[m].in, INC[m].o1, 1, 1);
        kb_net_conv2d(n, "branch3x3.0", INC[m].in, INC[m].r3, 1, 1);
        kb_net_conv2d(n, "branch3x3.1", INC[m].r3, INC[m].o3, 3, 1);
        kb_net_conv2d(n, "branch5x5.0", INC[m].in, INC[m].r5, 1, 1);
        kb_net_conv2d(n, "branch5x5.1", INC[m].r5, INC[m].o5, 5, 1);
        kb_net_conv2d(n, "branch_pool.1", INC[m].in, INC[m].pp, 1, 1);
        kb_net_pop(n);
    }
    kb_net_linear(n, "fc", FEATURES, CLASSES, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* conv(x) + bias: cudnn_convolution, then the bias add_; `name` is the module's, the weight and
 * bias "<name>.weight" and "<name>.bias" under `scope` */
static kb_tensor conv(kb_ref *r, kb_tensor x, const char *scope, const char *name, int stride, int padding)
{
    return kb_conv(r, KB_NEW, x, kb_argf(r, "%s%s.weight", scope, name), kb_argf(r, "%s%s.bias", scope, name),
                   KB_CONV_PARAMS(.stride = {stride, stride}, .padding = {padding, padding}));
}

/* F.relu(conv(x)): the relu out of place, the conv's output freed once it returns */
static kb_tensor conv_relu(kb_ref *r, kb_tensor x, const char *name, int stride, int padding)
{
    kb_tensor c = conv(r, x, "", name, stride, padding);
    kb_tensor y = kb_relu(r, KB_NEW, c);
    kb_drop(r, c);
    return y;
}

/* nn.MaxPool2d(3, stride, padding=1) */
static kb_tensor max_pool(kb_ref *r, kb_tensor x, int stride) { return kb_max_pool2d(r, KB_NEW, x, 3, stride, 1, 1, 0); }

/* InceptionModule.forward of INC[m]; x stays the caller's */
static kb_tensor inception(kb_ref *r, kb_tensor x, int m)
{
    char s[32];
    snprintf(s, sizeof s, "%s.", INC[m].name);
    kb_tensor branches[4], t;
    branches[0] = conv(r, x, s, "branch1x1", 1, 0);
    t = conv(r, x, s, "branch3x3.0", 1, 0); /* each Sequential frees its first layer's output */
    branches[1] = conv(r, t, s, "branch3x3.1", 1, 1);
    kb_drop(r, t);
    t = conv(r, x, s, "branch5x5.0", 1, 0);
    branches[2] = conv(r, t, s, "branch5x5.1", 1, 2);
    kb_drop(r, t);
    t = max_pool(r, x, 1);
    branches[3] = conv(r, t, s, "branch_pool.1", 1, 0);
    kb_drop(r, t);
    kb_tensor y = kb_cat(r, KB_NEW, branches, 4, 1);
    for (int i = 0; i < 4; i++)
        kb_drop(r, branches[i]); /* forward's locals and the list */
    return y;
}

static void reference(kb_ref *r)
{
    kb_tensor t = conv_relu(r, kb_arg(r, "x"), "conv1", 2, 3);
    kb_tensor x = max_pool(r, t, 2);
    kb_drop(r, t);
    t = conv_relu(r, x, "conv2", 1, 0);
    kb_drop(r, x);
    x = t;
    t = conv_relu(r, x, "conv3", 1, 1);
    kb_tensor y = max_pool(r, t, 2);
    kb_drop(r, t);
    kb_drop(r, x);
    x = y;
    for (int m = 0; m < MODULES; m++) {
        y = inception(r, x, m);
        kb_drop(r, x);
        x = y;
        if (INC[m].pool) {
            y = max_pool(r, x, 2);
            kb_drop(r, x);
            x = y;
        }
    }
    kb_tensor pooled = kb_adaptive_avg_pool_nd(r, KB_NEW, x, 2, (const int64_t[]){1, 1});
    kb_drop(r, x);
    /* flatten is a view, Dropout(0.0) returns it */
    kb_linear(r, kb_arg(r, "y"), KB_VIEW(r, pooled, BATCH, FEATURES), kb_arg(r, "fc.weight"), kb_arg(r, "fc.bias"));
}

KB_PROBLEM(.title = "GoogLeNet Inception v1", .describe = describe,
           /* terms: the fc's 1024 products of means over 7 x 7 of inception5b's output (the last
            * chain of sums, as level3/010 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = FEATURES * 7 * 7)),
           /* convolutions 3.163e10, pools 1.28e8, bias adds and relus 4.8e7, fc 2.0e7, mean 5e5 */
           .flops = 3.183e10)
