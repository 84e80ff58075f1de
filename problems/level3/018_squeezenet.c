/*
 * level3/018_squeezenet -- KernelBench L3/18: SqueezeNet (v1.0 layout: conv 7x7/2 96, three
 * ceil-mode max pools, eight Fire modules, a 1x1 conv classifier) on x (64, 3, 512, 512) fp32
 * -> (64, 1000). 26 convolutions, all with bias; 52 parameters (1,248,424 values), no buffers.
 *
 * Eager PyTorch, per op: cudnn_convolution (TF32 by cudnn.allow_tf32) and its bias add_ as a
 * second kernel, relu_ in place (every ReLU is inplace=True), max_pool2d_with_indices (3/2,
 * ceil_mode: 253 -> 126 -> 63 -> 31; the int64 indices computed and dropped), per Fire module
 * squeeze, expand1x1 and expand3x3 (each conv + bias add_ + relu_) and torch.cat of the two
 * expands along dim 1 (one CatArrayBatchedCopy_vectorized launch: contiguous inputs, 16-byte
 * slices; kb_cat); the classifier's Dropout(p=0.0) is no kernel (ATen returns its input),
 * then conv + bias add_ + relu_, AdaptiveAvgPool2d((1, 1)) as mean over H, W (ATen's shortcut)
 * and flatten (a view): 90 launches besides cuDNN's own. Each temporary goes where eager's
 * refcount lets it: nn.Sequential's `input = module(input)` frees a layer's input once the layer
 * has returned; in a Fire module the two expand outputs die with cat's list, the squeezed tensor when
 * forward returns; the features' output (forward's x) outlives the classifier and goes when
 * `x = self.classifier(x)` rebinds it.
 * Peak (the first pool): the conv1 output (1.57 GB) + the pool's output (390 MB) and its int64
 * indices (780 MB) = 2.74 GB over the resident x and weights; reference/pytorch-eager-h200.csv
 * gives 2,743,590,912 B over its resident bytes (135 KB more: not accounted for here).
 * Napkin math: 5.73e11 FLOP of convolution + 3.0e9 of bias adds and relus + 6.2e7 of the mean
 * = 5.76e11 (reference/kernelbench-problems.csv: 5.78e11), ~1.5 ms of TF32 at ~400 TFLOP/s;
 * the activations (conv1's 1.57 GB, each Fire's expands and cat at 126x126: 520 MB in, 520 MB out)
 * are written and read by 4-6 kernels each, ~37 GB of traffic in all, about 9 ms at ~4.2 TB/s
 * besides the convolutions' own time. Eager on the H200: 25.45 ms median
 * (reference/pytorch-eager-h200.csv); 28.0 ms on an H100 (reference/kernelbench-problems.csv).
 */
#include "kb/ref.h"

enum { BATCH = 64, H = 512, W = 512, CLASSES = 1000, FIRES = 8 };

/* FireModule(in, squeeze, expand1x1, expand3x3) at features.<index> */
static const struct {
    int index, in, squeeze, e1, e3;
} FIRE[FIRES] = {{3, 96, 16, 64, 64},      {4, 128, 16, 64, 64},     {5, 128, 32, 128, 128},
                 {7, 256, 32, 128, 128},   {8, 256, 48, 192, 192},   {9, 384, 48, 192, 192},
                 {10, 384, 64, 256, 256},  {12, 512, 64, 256, 256}};

/* ---- the tensors: named_parameters() of Model(1000) ------------------------------------------ */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, 3, H, W), KB_RAND);
    kb_net_conv2d(n, "features.0", 3, 96, 7, 1);
    for (int f = 0; f < FIRES; f++) {
        kb_net_push(n, "features.%d", FIRE[f].index);
        kb_net_conv2d(n, "squeeze", FIRE[f].in, FIRE[f].squeeze, 1, 1);
        kb_net_conv2d(n, "expand1x1", FIRE[f].squeeze, FIRE[f].e1, 1, 1);
        kb_net_conv2d(n, "expand3x3", FIRE[f].squeeze, FIRE[f].e3, 3, 1);
        kb_net_pop(n);
    }
    kb_net_conv2d(n, "classifier.1", 512, CLASSES, 1, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* relu_(conv(x) + bias): the convolution, its bias add_, the in-place ReLU; `conv` is the module's
 * name */
static kb_tensor conv_relu(kb_ref *r, kb_tensor x, const char *conv, int stride, int padding)
{
    kb_tensor y = kb_conv(r, KB_NEW, x, kb_argf(r, "%s.weight", conv), kb_argf(r, "%s.bias", conv),
                          KB_CONV_PARAMS(.stride = {stride, stride}, .padding = {padding, padding}));
    return kb_relu(r, y, y);
}

/* FireModule.forward at features.<index> */
static kb_tensor fire(kb_ref *r, kb_tensor x, int index)
{
    char name[64];
    snprintf(name, sizeof name, "features.%d.squeeze", index);
    kb_tensor s = conv_relu(r, x, name, 1, 0);
    kb_tensor branches[2];
    snprintf(name, sizeof name, "features.%d.expand1x1", index);
    branches[0] = conv_relu(r, s, name, 1, 0);
    snprintf(name, sizeof name, "features.%d.expand3x3", index);
    branches[1] = conv_relu(r, s, name, 1, 1);
    kb_tensor y = kb_cat(r, KB_NEW, branches, 2, 1);
    kb_drop(r, branches[0]); /* the list dies when cat returns */
    kb_drop(r, branches[1]);
    kb_drop(r, s); /* forward's x */
    return y;
}

/* nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True), the input freed by the Sequential */
static kb_tensor pool(kb_ref *r, kb_tensor x)
{
    kb_tensor y = kb_max_pool2d(r, KB_NEW, x, 3, 2, 0, 1, 1);
    kb_drop(r, x);
    return y;
}

static void reference(kb_ref *r)
{
    kb_tensor x = pool(r, conv_relu(r, kb_arg(r, "x"), "features.0", 2, 0));
    for (int f = 0; f < FIRES; f++) {
        kb_tensor y = fire(r, x, FIRE[f].index);
        kb_drop(r, x);
        x = y;
        if (f == 2 || f == 6) /* features.6 and features.11 */
            x = pool(r, x);
    }
    /* classifier: Dropout(p=0.0) returns x itself; x (the features' output) lives on in forward */
    kb_tensor c = conv_relu(r, x, "classifier.1", 1, 0);
    kb_adaptive_avg_pool_nd(r, KB_VIEW(r, kb_arg(r, "y"), BATCH, CLASSES, 1, 1), c, 2, (const int64_t[]){1, 1});
    kb_drop(r, c);
    kb_drop(r, x);
}

KB_PROBLEM(.title = "SqueezeNet", .describe = describe,
           /* terms: the means over 31 x 31 of the classifier's 512-product convolution (the largest
            * single chain of sums feeding y, as level3/010 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = 512 * 31 * 31)),
           /* convolutions 5.732e11, bias adds and relus 3.03e9, the mean 6.2e7 */
           .flops = 5.763e11)
