/*
 * level3/004_lenet5 -- KernelBench L3/4: LeNet-5 on x (4096, 1, 32, 32) fp32 -> (4096, 20):
 * conv1 (1 -> 6, 5x5) relu maxpool 2/2, conv2 (6 -> 16, 5x5) relu maxpool 2/2, view (4096, 400),
 * fc1 (400 -> 120) relu, fc2 (120 -> 84) relu, fc3 (84 -> 20).
 *
 * Eager PyTorch, per op: each nn.Conv2d is cudnn_convolution (TF32 by cudnn.allow_tf32) then
 * output.add_(bias) as a second kernel (kb_conv); F.relu is a TensorIterator relu into a new
 * tensor; F.max_pool2d is max_pool2d_with_indices (the int64 indices computed and dropped:
 * kb_max_pool2d); x.view(-1, 400) is a view; each nn.Linear is addmm through cublasLtMatmul with
 * the bias epilogue (every size > 1: kb_linear). 13 ops. Each temporary goes when its name is
 * rebound: the conv (or fc) output once the relu has read it, the relu's once the pool (or next
 * fc) has.
 * Napkin math: convolutions 2 * 4096 * (6 * 28^2 * 25 + 16 * 10^2 * 150) = 2.93e9 FLOP, the fcs
 * 2 * 4096 * (400 * 120 + 120 * 84 + 84 * 20) = 4.9e8, elementwise ~7e7: 3.5e9 in all, ~0.05 ms
 * of FP32. Traffic: x 16.8 MB, the conv1 output (4096, 6, 28, 28) 77 MB written, then read and
 * written by the bias add and the relu and read by the pool: ~0.5 GB, ~0.12 ms at ~4.3 TB/s.
 * Small channel counts keep cuDNN far from peak: eager is 0.82 ms on an H100
 * (reference/kernelbench-problems.csv), 0.82 ms FP32 and 0.80 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum {
    BATCH = 4096, HW = 32, K = 5, C1 = 6, C2 = 16, FC1 = 120, FC2 = 84, CLASSES = 20,
    H1 = HW - K + 1, P1 = H1 / 2, H2 = P1 - K + 1, P2 = H2 / 2, FLAT = C2 * P2 * P2 /* 28, 14, 10, 5, 400 */
};

/* F.relu(conv(x)): the conv's output is freed once the relu has read it */
static kb_tensor conv_relu(kb_ref *r, kb_tensor x, const char *conv)
{
    kb_tensor c = kb_conv(r, KB_NEW, x, kb_argf(r, "%s.weight", conv), kb_argf(r, "%s.bias", conv), NULL);
    kb_tensor a = kb_relu(r, KB_NEW, c);
    kb_drop(r, c);
    return a;
}

/* F.relu(fc(x)) */
static kb_tensor fc_relu(kb_ref *r, kb_tensor x, const char *fc)
{
    kb_tensor h = kb_linear(r, KB_NEW, x, kb_argf(r, "%s.weight", fc), kb_argf(r, "%s.bias", fc));
    kb_tensor a = kb_relu(r, KB_NEW, h);
    kb_drop(r, h);
    return a;
}

/* Each `x = ...` frees the previous x once the right-hand side has been computed. */
static void reference(kb_ref *r)
{
    kb_tensor a1 = conv_relu(r, kb_arg(r, "x"), "conv1");
    kb_tensor p1 = kb_max_pool2d(r, KB_NEW, a1, 2, 2, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
    kb_drop(r, a1);
    kb_tensor a2 = conv_relu(r, p1, "conv2");
    kb_drop(r, p1);
    kb_tensor p2 = kb_max_pool2d(r, KB_NEW, a2, 2, 2, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
    kb_drop(r, a2);
    kb_tensor f1 = fc_relu(r, KB_VIEW(r, p2, -1, FLAT), "fc1");
    kb_drop(r, p2); /* the view was its last reference */
    kb_tensor f2 = fc_relu(r, f1, "fc2");
    kb_drop(r, f1);
    kb_linear(r, kb_arg(r, "y"), f2, kb_arg(r, "fc3.weight"), kb_arg(r, "fc3.bias"));
    kb_drop(r, f2);
}

KB_PROBLEM(.title = "LeNet5",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, 1, HW, HW), KB_RAND),
                     KB_PARAM("conv1.weight", KB_F32, KB_DIMS(C1, 1, K, K), KB_KAIMING(1 * K * K)),
                     KB_PARAM("conv1.bias", KB_F32, KB_DIMS(C1), KB_KAIMING(1 * K * K)),
                     KB_PARAM("conv2.weight", KB_F32, KB_DIMS(C2, C1, K, K), KB_KAIMING(C1 * K * K)),
                     KB_PARAM("conv2.bias", KB_F32, KB_DIMS(C2), KB_KAIMING(C1 * K * K)),
                     KB_PARAM("fc1.weight", KB_F32, KB_DIMS(FC1, FLAT), KB_KAIMING(FLAT)),
                     KB_PARAM("fc1.bias", KB_F32, KB_DIMS(FC1), KB_KAIMING(FLAT)),
                     KB_PARAM("fc2.weight", KB_F32, KB_DIMS(FC2, FC1), KB_KAIMING(FC1)),
                     KB_PARAM("fc2.bias", KB_F32, KB_DIMS(FC2), KB_KAIMING(FC1)),
                     KB_PARAM("fc3.weight", KB_F32, KB_DIMS(CLASSES, FC2), KB_KAIMING(FC2)),
                     KB_PARAM("fc3.bias", KB_F32, KB_DIMS(CLASSES), KB_KAIMING(FC2))),
           /* terms: fc1's 400 products, the largest single reduction of the network (conv2 sums
            * 150, fc3 84) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, CLASSES), .terms = FLAT)),
           /* convolutions and fcs (2 per product), bias adds, relus, 3 comparisons per pooled value */
           .flops = 2.0 * BATCH * ((double)C1 * H1 * H1 * K * K + (double)C2 * H2 * H2 * C1 * K * K +
                                   (double)FLAT * FC1 + (double)FC1 * FC2 + (double)FC2 * CLASSES) +
                    2.0 * BATCH * ((double)C1 * H1 * H1 + (double)C2 * H2 * H2 + FC1 + FC2) +
                    (double)BATCH * CLASSES + 3.0 * BATCH * ((double)C1 * P1 * P1 + (double)C2 * P2 * P2))
