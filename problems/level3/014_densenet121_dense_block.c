/*
 * level3/014_densenet121_dense_block -- KernelBench L3/14: a DenseNet dense block of 6 layers,
 * each nn.Sequential(BatchNorm2d(32 + 32 i), ReLU(inplace=True), Conv2d(32 + 32 i, 32, 3,
 * padding=1, bias=False), Dropout(0.0)), in training mode on x (10, 32, 224, 224) fp32
 * -> (10, 224, 224, 224). 18 parameters (194,880 values), 18 buffers.
 *
 * Eager PyTorch, per layer i: cudnn_batch_norm in training mode on the block's running x (batch
 * statistics; running mean and variance updated in the same call, momentum 0.1, eps 1e-5),
 * relu_ on its output, cudnn_convolution 3x3 (TF32 by cudnn.allow_tf32); Dropout(0.0) is no
 * kernel (ATen returns its input); then torch.cat(features, 1) of the block input and the i + 1
 * new features: one CatArrayBatchedCopy_vectorized launch (i + 2 contiguous inputs, every slice
 * a 16-byte multiple, far under the 128 inputs of a batch; kb_cat). 24 launches besides cuDNN's
 * own. Memory as eager's refcounts: the BatchNorm output dies once the conv returns (the
 * Sequential), each cat's result once the next one is assigned to x (`x = torch.cat(...)`), the
 * new features with the list when forward returns; the last cat is the output.
 * Deliberate difference: each BatchNorm's num_batches_tracked += 1 (a one-element int64 add_,
 * 6 launches) is not reproduced; y is unaffected.
 * Peak: at the last cat, the six new features (6 x 64.2 MB) + the previous cat (385 MB) + the
 * result (450 MB) = 1.22 GB over x; reference/pytorch-eager-h200.csv gives 1,608,475,136 B over
 * its resident bytes, 388 MB more: presumably cuDNN's workspace for the last 3x3 convolution
 * (192 channels), taken while its input, the previous cat and five features are live (1.16 GB):
 * to check in the memory profile.
 * Napkin math: 1.94e11 FLOP of convolution (~0.5 ms of TF32) + 3.0e9 of BatchNorm and relu =
 * 1.97e11 (reference/kernelbench-problems.csv). Traffic: each layer reads the running x twice
 * for the statistics, writes and rereads its BatchNorm output for relu_ and the conv, and cat
 * rewrites everything so far: ~10 GB in all, ~2.4 ms at ~4.2 TB/s. Eager on the H200: 6.43 ms median
 * (reference/pytorch-eager-h200.csv; 7.47 ms on an H100, reference/kernelbench-problems.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 32, GROWTH = 32, LAYERS = 6, H = 224, W = 224, COUT = CIN + LAYERS * GROWTH };

/* ---- the tensors: named_parameters() and named_buffers() of Model(6, 32, 32) ----------------- */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, CIN, H, W), KB_RAND);
    for (int i = 0; i < LAYERS; i++) {
        kb_net_push(n, "layers.%d", i);
        kb_net_batchnorm(n, "0", CIN + i * GROWTH);
        kb_net_conv2d(n, "2", CIN + i * GROWTH, GROWTH, 3, 0);
        kb_net_pop(n);
    }
}

/* ---- the forward ------------------------------------------------------------------------------ */

static void reference(kb_ref *r)
{
    kb_tensor features[LAYERS + 1];
    kb_tensor x = features[0] = kb_arg(r, "x");
    for (int i = 0; i < LAYERS; i++) {
        /* layers[i](x): BatchNorm (training), relu_, conv 3x3; the BatchNorm output freed by the
         * Sequential once the conv returns; Dropout(0.0) returns the conv's output */
        kb_tensor b = kb_batch_norm_train(r, KB_NEW, x, kb_argf(r, "layers.%d.0.weight", i),
                                          kb_argf(r, "layers.%d.0.bias", i), kb_argf(r, "layers.%d.0.running_mean", i),
                                          kb_argf(r, "layers.%d.0.running_var", i), 0.1, 1e-5);
        kb_relu(r, b, b);
        features[i + 1] = kb_conv(r, KB_NEW, b, kb_argf(r, "layers.%d.2.weight", i), KB_NEW,
                                  KB_CONV_PARAMS(.padding = {1, 1}));
        kb_drop(r, b);
        kb_tensor next = kb_cat(r, i == LAYERS - 1 ? kb_arg(r, "y") : KB_NEW, features, i + 2, 1);
        if (i > 0)
            kb_drop(r, x); /* the previous cat, once x is rebound */
        x = next;
    }
    for (int i = 1; i <= LAYERS; i++)
        kb_drop(r, features[i]); /* the list dies when forward returns */
}

KB_PROBLEM(.title = "DenseNet121 dense block", .describe = describe,
           /* terms: the last layer's 192 x 3 x 3 products of values normalised by statistics over
            * 10 x 224 x 224 values (the chain of sums nearest the output, as level2/073 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, H, W),
                                .terms = (int64_t)(CIN + (LAYERS - 1) * GROWTH) * 9 * BATCH * H * W)),
           /* the convolutions over 32 + 64 + ... + 192 = 672 input channels in all; BatchNorm (8 per
            * element) and relu over the same */
           .flops = 2.0 * BATCH * H * W * GROWTH * 9 * 672 + 9.0 * BATCH * H * W * 672,
           .flags = KB_PROB_CENTERED)
