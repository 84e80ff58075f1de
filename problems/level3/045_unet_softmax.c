/*
 * level3/045_unet_softmax -- KernelBench L3/45: UNetSoftmax, a 4-level U-Net (features 64 ->
 * 1024) whose DoubleConv blocks are (Conv2d 3x3 pad 1 with bias, BatchNorm2d, Softmax(dim=-1))
 * twice, in training mode, on x (8, 8, 64, 512) fp32 -> (8, 4, 64, 512). 18 convolutions 3x3,
 * 18 BatchNorm2d (batch statistics, running statistics updated: module state), 18 softmaxes
 * over the width, 4 max pools 2/2, 4 ConvTranspose2d 2/2 with bias, 4 channel concatenations
 * and a 1x1 final convolution; 31,046,596 parameter values.
 *
 * Eager PyTorch, per op: each Conv2d is cudnn_convolution (TF32 by cudnn.allow_tf32) then
 * `output.add_(bias)`, one TensorIterator kernel (kb_conv); each BatchNorm2d is
 * num_batches_tracked.add_(1) then cudnn_batch_norm in training mode, which updates the running
 * statistics (kb_batch_norm_module); nn.Softmax(dim=-1) of an NCHW tensor is the softmax of the
 * last, unit-stride dim (W = 512 ... 32): host_softmax's persistent warp softmax or one block
 * per row, by W (kb_softmax); MaxPool2d(2, 2) is max_pool2d_with_indices (kb_max_pool2d, the
 * indices computed and dropped); each ConvTranspose2d is cudnn_convolution_transpose (cuDNN
 * backward-data) then the bias add_ (kb_conv_transpose); torch.cat((dec, enc), dim=1) of two
 * contiguous NCHW tensors is one CatArrayBatchedCopy (kb_cat2).
 * Lifetimes: inside a DoubleConv, nn.Sequential's `input = module(input)` frees each layer's
 * output once the next has returned (its first input is the caller's); a DoubleConv's input
 * (a pool's or a cat's output) lives until that DoubleConv returns; a ConvTranspose2d's output
 * dies once the cat has copied it. enc1..enc4, bottleneck and the final dec4..dec1 are locals of
 * forward(): alive until it returns, so the reference never drops them.
 * Napkin math: 3.87e11 FLOP in the convolutions (2 x their multiply-adds, from the layer table;
 * the CSV's estimate is 3.89e11), ~1 ms of TF32 at ~400 TFLOP/s; the activations are large
 * (enc1 is 8 x 64 x 64 x 512 fp32 = 67 MB, and each of its BatchNorm/softmax passes reads and
 * writes it), so the 72 small kernels and cuDNN's BatchNorm passes weigh. Eager: 5.04 ms on an
 * H100 (reference/kernelbench-problems.csv); 4.58 ms FP32 and 4.58 ms TF32 (warm medians) on
 * the H200 (reference/pytorch-eager-h200.csv): the convolutions are TF32 in both modes.
 * Flagged nondeterministic: cuDNN's backward-data engines (the transposed convolutions) may
 * accumulate split partial sums in a run-dependent order.
 */
#include "kb/ref.h"

enum { BATCH = 8, IN_CH = 8, OUT_CH = 4, H = 64, W = 512, F = 64 };

/* ---- the tensors: named_parameters() and named_buffers() of Model(8, 4, 64) ---------------- */

static void double_conv_tensors(kb_net *n, const char *name, int64_t in, int64_t out)
{
    kb_net_push(n, "%s.double_conv", name);
    kb_net_conv2d(n, "0", in, out, 3, 1);
    kb_net_batchnorm(n, "1", out);
    kb_net_conv2d(n, "3", out, out, 3, 1);
    kb_net_batchnorm(n, "4", out);
    kb_net_pop(n);
}

/* nn.ConvTranspose2d(in, out, 2, stride=2): weight (in, out, 2, 2), bias (out); PyTorch's
 * kaiming init takes fan_in from weight.size(1) * 2 * 2 */
static void upconv_tensors(kb_net *n, const char *name, int64_t in, int64_t out)
{
    char nm[64];
    const double fan_in = (double)(out * 2 * 2);
    snprintf(nm, sizeof nm, "%s.weight", name);
    kb_net_param(n, nm, KB_F32, KB_NET_DIMS(in, out, 2, 2), {KB_GEN_KAIMING_UNIFORM, fan_in, 0});
    snprintf(nm, sizeof nm, "%s.bias", name);
    kb_net_param(n, nm, KB_F32, KB_NET_DIMS(out), {KB_GEN_KAIMING_UNIFORM, fan_in, 0});
}

static void describe(kb_net *n)
{
    char nm[32];
    int64_t in = IN_CH;
    for (int l = 0; l < 4; l++) { /* encoder1..4 (pool1..4 hold nothing) */
        snprintf(nm, sizeof nm, "encoder%d", l + 1);
        double_conv_tensors(n, nm, in, (int64_t)F << l);
        in = (int64_t)F << l;
    }
    double_conv_tensors(n, "bottleneck", F * 8, F * 16);
    for (int l = 3; l >= 0; l--) { /* upconv4, decoder4, ..., upconv1, decoder1 */
        snprintf(nm, sizeof nm, "upconv%d", l + 1);
        upconv_tensors(n, nm, (int64_t)F << (l + 1), (int64_t)F << l);
        snprintf(nm, sizeof nm, "decoder%d", l + 1);
        double_conv_tensors(n, nm, (int64_t)F << (l + 1), (int64_t)F << l);
    }
    kb_net_conv2d(n, "final_conv", F, OUT_CH, 1, 1);
}

/* ---- the forward ------------------------------------------------------------------------------ */

/* DoubleConv.forward: (conv, BatchNorm, softmax(-1)) twice; x stays the caller's */
static kb_tensor double_conv(kb_ref *r, kb_tensor x, const char *name)
{
    kb_tensor t = x;
    for (int i = 0; i < 2; i++) {
        char bn[64];
        kb_tensor c = kb_conv(r, KB_NEW, t, kb_argf(r, "%s.double_conv.%d.weight", name, 3 * i),
                              kb_argf(r, "%s.double_conv.%d.bias", name, 3 * i), KB_CONV_PARAMS(.padding = {1, 1}));
        if (i > 0)
            kb_drop(r, t);
        snprintf(bn, sizeof bn, "%s.double_conv.%d", name, 3 * i + 1);
        kb_tensor b = kb_batch_norm_module(r, KB_NEW, c, bn);
        kb_drop(r, c);
        t = kb_softmax(r, KB_NEW, b, -1);
        kb_drop(r, b);
    }
    return t;
}

static kb_tensor pool_encode(kb_ref *r, kb_tensor x, const char *name)
{
    /* self.encoderN(self.poolN-1(x)): the pooled input lives until the encoder returns */
    kb_tensor p = kb_max_pool2d(r, KB_NEW, x, 2, 2, 0, 1, 0);
    kb_tensor y = double_conv(r, p, name);
    kb_drop(r, p);
    return y;
}

static kb_tensor up_decode(kb_ref *r, kb_tensor below, kb_tensor skip, int level)
{
    char nm[32];
    snprintf(nm, sizeof nm, "upconv%d", level);
    kb_tensor u = kb_conv_transpose(r, KB_NEW, below, kb_argf(r, "%s.weight", nm), kb_argf(r, "%s.bias", nm),
                                    KB_CONV_PARAMS(.stride = {2, 2}));
    kb_tensor c = kb_cat2(r, KB_NEW, u, skip, 1);
    kb_drop(r, u);
    snprintf(nm, sizeof nm, "decoder%d", level);
    kb_tensor d = double_conv(r, c, nm);
    kb_drop(r, c);
    return d;
}

static void reference(kb_ref *r)
{
    kb_tensor enc1 = double_conv(r, kb_arg(r, "x"), "encoder1");
    kb_tensor enc2 = pool_encode(r, enc1, "encoder2");
    kb_tensor enc3 = pool_encode(r, enc2, "encoder3");
    kb_tensor enc4 = pool_encode(r, enc3, "encoder4");
    kb_tensor bottleneck = pool_encode(r, enc4, "bottleneck");
    kb_tensor dec4 = up_decode(r, bottleneck, enc4, 4);
    kb_tensor dec3 = up_decode(r, dec4, enc3, 3);
    kb_tensor dec2 = up_decode(r, dec3, enc2, 2);
    kb_tensor dec1 = up_decode(r, dec2, enc1, 1);
    kb_conv(r, kb_arg(r, "y"), dec1, kb_arg(r, "final_conv.weight"), kb_arg(r, "final_conv.bias"), NULL);
}

KB_PROBLEM(.title = "UNetSoftmax", .describe = describe,
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN_CH, H, W), KB_RAND)),
           /* terms: the widest convolution's 1024 x 3 x 3 products (bottleneck conv2 and
            * decoder4 conv1), the largest sum of products in the network; the final 1x1
            * convolution sums 64 softmax outputs */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT_CH, H, W), .terms = (int64_t)F * 16 * 3 * 3)),
           /* 2 x the multiply-adds of the 18 convolutions, 4 transposed convolutions and the
            * final 1x1 convolution (from the layer table above) */
           .flops = 3.8695e11,
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED)
