/*
 * level3/008_resnet_basic_block -- KernelBench L3/8: one ResNet BasicBlock (in 3, out 64,
 * stride 1, with its 1x1 conv + BatchNorm downsample) in training mode on x (10, 3, 224, 224)
 * fp32 -> (10, 64, 224, 224): relu(bn2(conv2(relu(bn1(conv1(x))))) + downsample(x)).
 *
 * Eager PyTorch, per op: cudnn_convolution for conv1 (3x3 pad 1), conv2 (3x3 pad 1) and the
 * downsample's 1x1 (TF32 by cudnn.allow_tf32, on by default; bias=False, so no bias kernel);
 * cudnn_batch_norm in training mode for bn1, bn2 and downsample.1 (batch statistics; running_mean
 * and running_var, the module's state, updated in the same call: kb_batch_norm_train is given
 * them); ReLU(inplace=True) as relu_ on bn1's output and on the sum; `out += identity` as add_.
 * Order and lifetimes as forward() has them: conv1's output is freed when bn1's replaces it,
 * bn1's when conv2's does, conv2's after bn2; the downsample Sequential frees its conv's output
 * after its BatchNorm; identity lives until forward() returns. bn2 writes the output y, which the
 * add and the relu then update in place.
 * Each BatchNorm first runs its num_batches_tracked.add_(1) (one int64 kernel), as eager's
 * _BatchNorm.forward does (kb_batch_norm_module).
 * Napkin math: 2 * 10 * 64 * 224^2 * (27 + 576 + 3) = 3.89e10 FLOP, ~0.1 ms of TF32 at
 * ~400 TFLOP/s; every intermediate is (10, 64, 224, 224), 128 MB: six made, BatchNorm reading
 * its input twice (statistics, then normalisation), the relus and the add reading and rewriting
 * in place: ~20 passes, ~2.6 GB, ~0.6 ms at ~4.3 TB/s: memory-bound. Eager: 1.68 ms on an H100
 * (reference/kernelbench-problems.csv); 1.56 ms FP32, 1.64 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 3, COUT = 64, H = 224, W = 224, STRIDE = 1 };

/* named_parameters() / named_buffers() of Model(3, 64, 1): registration order */
static void describe(kb_net *n)
{
    kb_net_conv2d(n, "conv1", CIN, COUT, 3, 0);
    kb_net_batchnorm(n, "bn1", COUT);
    kb_net_conv2d(n, "conv2", COUT, COUT, 3, 0);
    kb_net_batchnorm(n, "bn2", COUT);
    kb_net_push(n, "downsample");
    kb_net_conv2d(n, "0", CIN, COUT, 1, 0);
    kb_net_batchnorm(n, "1", COUT);
    kb_net_pop(n);
}

/* bn(x) in training mode, momentum 0.1, eps 1e-5, its running statistics updated */
static kb_tensor bn(kb_ref *r, kb_tensor out, kb_tensor x, const char *name)
{
    return kb_batch_norm_module(r, out, x, name);
}

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x"), y = kb_arg(r, "y");
    kb_tensor c1 = kb_conv(r, KB_NEW, x, kb_arg(r, "conv1.weight"), KB_NEW,
                           KB_CONV_PARAMS(.stride = {STRIDE, STRIDE}, .padding = {1, 1}));
    kb_tensor o1 = bn(r, KB_NEW, c1, "bn1");
    kb_drop(r, c1);
    kb_relu(r, o1, o1);
    kb_tensor c2 = kb_conv(r, KB_NEW, o1, kb_arg(r, "conv2.weight"), KB_NEW, KB_CONV_PARAMS(.padding = {1, 1}));
    kb_drop(r, o1);
    bn(r, y, c2, "bn2");
    kb_drop(r, c2);
    /* identity = self.downsample(x) */
    kb_tensor d = kb_conv(r, KB_NEW, x, kb_arg(r, "downsample.0.weight"), KB_NEW,
                          KB_CONV_PARAMS(.stride = {STRIDE, STRIDE}));
    kb_tensor identity = bn(r, KB_NEW, d, "downsample.1");
    kb_drop(r, d);
    kb_add(r, y, y, identity); /* out += identity */
    kb_relu(r, y, y);
    kb_drop(r, identity);
}

KB_PROBLEM(.title = "ResNetBasicBlock", .describe = describe,
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND)),
           /* terms: the output is the sum of two BatchNorm outputs, each normalised by batch
            * statistics over N * H * W = 501,760 values per channel: the largest single reduction
            * feeding it (conv2 sums 64 * 9 = 576 products) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, H, W), .terms = (int64_t)BATCH * H * W)),
           /* the three convolutions (2 per product), 4 per BatchNorm element (sum and sum of
            * squares, then x * a + b), the two relus and the add */
           .flops = 2.0 * BATCH * COUT * H * W * (CIN * 9.0 + COUT * 9.0 + CIN) + 4.0 * 3 * BATCH * COUT * H * W +
                    3.0 * BATCH * COUT * H * W,
           /* BatchNorm subtracts the batch mean of a convolution of x */
           .flags = KB_PROB_CENTERED)
