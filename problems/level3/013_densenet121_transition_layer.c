/*
 * level3/013_densenet121_transition_layer -- KernelBench L3/13: DenseNet's transition layer,
 * nn.Sequential(BatchNorm2d(32), ReLU(inplace=True), Conv2d(32, 64, 1, bias=False),
 * AvgPool2d(2, 2)) in training mode on x (128, 32, 256, 256) fp32 -> (128, 64, 128, 128).
 *
 * Eager PyTorch, in order: cudnn_batch_norm in training mode (batch statistics; the running mean
 * and variance, module state, updated with momentum 0.1 inside the same call; eps 1e-5), relu_
 * on its output, cudnn_convolution 1x1 (TF32 by cudnn.allow_tf32), avg_pool2d (2/2,
 * count_include_pad, avg_pool2d_out_cuda_frame). The Sequential frees each layer's input once the
 * next layer has returned: the BatchNorm output (1.07 GB) once the conv returns, the conv output
 * (2.15 GB) once the pool returns.
 * Deliberate difference: BatchNorm's num_batches_tracked += 1 (a one-element int64 add_) is not
 * reproduced; y is unaffected.
 * Peak: the BatchNorm output + the conv output = 3.22 GB over x; reference/pytorch-eager-h200.csv
 * gives 3,221,225,472 B over its resident bytes, exactly these two.
 * Napkin math: 3.44e10 FLOP of convolution (~0.1 ms of TF32) + ~2.9e9 of BatchNorm, relu and
 * pooling = 3.73e10 (reference/kernelbench-problems.csv). Traffic: BatchNorm reads x twice and
 * writes 1.07 GB (3.2 GB), relu_ 2.1 GB, the conv 1.07 + 2.15 GB, the pool 2.15 + 0.54 GB: ~11 GB,
 * ~2.7 ms at ~4.2 TB/s. Eager on the H200: 6.93 ms median (reference/pytorch-eager-h200.csv;
 * 7.33 ms on an H100, reference/kernelbench-problems.csv): cuDNN's BatchNorm and 1x1 convolution
 * at these shapes cost more than their bytes.
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 32, COUT = 64, H = 256, W = 256 };

static void reference(kb_ref *r)
{
    kb_tensor b = kb_batch_norm_train(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "transition.0.weight"),
                                      kb_arg(r, "transition.0.bias"), kb_arg(r, "transition.0.running_mean"),
                                      kb_arg(r, "transition.0.running_var"), 0.1, 1e-5);
    kb_relu(r, b, b);
    kb_tensor c = kb_conv(r, KB_NEW, b, kb_arg(r, "transition.2.weight"), KB_NEW, NULL);
    kb_drop(r, b);
    kb_avg_pool2d(r, kb_arg(r, "y"), c, 2, 2, 0, 0, 1, 0);
    kb_drop(r, c);
}

KB_PROBLEM(.title = "DenseNet121 transition layer",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("transition.0.weight", KB_F32, KB_DIMS(CIN), KB_ONES),
                     KB_PARAM("transition.0.bias", KB_F32, KB_DIMS(CIN), KB_ZEROS),
                     KB_PARAM("transition.2.weight", KB_F32, KB_DIMS(COUT, CIN, 1, 1), KB_KAIMING(CIN)),
                     KB_STATE("transition.0.running_mean", KB_F32, KB_DIMS(CIN), KB_ZEROS),
                     KB_STATE("transition.0.running_var", KB_F32, KB_DIMS(CIN), KB_ONES),
                     KB_STATE("transition.0.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           /* terms: the pool's 4 conv outputs, each of 32 products of values normalised by statistics
            * over 128 x 256 x 256 values (the chain of sums, as level2/073 counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, H / 2, W / 2),
                                .terms = (int64_t)4 * CIN * BATCH * H * W)),
           /* conv; BatchNorm (mean, variance, normalise, scale, shift: 8 per element), relu, pool */
           .flops = 2.0 * BATCH * COUT * H * W * CIN + 9.0 * BATCH * CIN * H * W + 1.0 * BATCH * COUT * H * W,
           .flags = KB_PROB_CENTERED)
