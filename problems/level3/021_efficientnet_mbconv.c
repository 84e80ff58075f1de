/*
 * level3/021_efficientnet_mbconv -- KernelBench L3/21: EfficientNet's MBConv block (in 112, out
 * 192, depthwise kernel 5, stride 2, expand ratio 6) in training mode on x (10, 112, 224, 224)
 * fp32 -> (10, 192, 112, 112): expand_conv = 1x1 conv (112 -> 672) BatchNorm ReLU6;
 * depthwise_conv = 5x5/2 pad 2 conv with groups = 672, BatchNorm, ReLU6; project_conv = 1x1 conv
 * (672 -> 192) BatchNorm. No residual (stride 2 and the channels differ). 3 convolutions, 3
 * BatchNorm2d (batch statistics), 9 parameters (224,160 values) and 9 buffers, PyTorch's default
 * initialisers.
 *
 * Eager PyTorch, per op: the two 1x1 convs are cudnn_convolution (TF32 by cudnn.allow_tf32); the
 * depthwise conv (groups == channels, fp32 NCHW) fails use_cudnn_depthwise, so select_conv_backend
 * picks at::_conv_depthwise2d, conv_depthwise2d_forward_kernel<5> (kb_depthwise_conv2d). Each
 * BatchNorm2d runs num_batches_tracked.add_(1) then cudnn batch norm in training mode, updating
 * running_mean / running_var in the same call (kb_batch_norm_module). ReLU6(inplace=True) is
 * hardtanh_(x, 0, 6) -> hardtanh_out -> clamp_out, one clamp kernel in place (kb_hardtanh into its
 * input). 11 kernels. Lifetimes: inside each nn.Sequential the conv's output is freed once the
 * BatchNorm returns; each Sequential's input stays alive until that Sequential returns
 * (forward() names it as x until `x = self.depthwise_conv(x)` rebinds it), so the expanded
 * activation lives through the depthwise conv's BatchNorm and ReLU6.
 * Napkin math: 1.143e11 FLOP (1.121e11 of the 1x1 convs, 1.8e9 for the BatchNorms, 4.2e8 for
 * the clamps), ~0.3 ms of TF32, ~1.7 ms at 67 TFLOP/s FP32; the expanded activation
 * (10, 672, 224, 224) is 1.35 GB, written by the conv, read twice and written by the BatchNorm,
 * read and written by the clamp, read by the depthwise conv: ~11 GB of traffic in all, ~2.6 ms at
 * ~4.3 TB/s, so the block is memory-bound. Eager: 5.43 ms on an H100
 * (reference/kernelbench-problems.csv); 4.91 ms FP32, 4.91 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 112, COUT = 192, HW = 224, K = 5, STRIDE = 2, EXPAND = 6, HIDDEN = CIN * EXPAND,
       OHW = HW / STRIDE };

/* ---- the tensors: named_parameters() and named_buffers() of Model(112, 192, 5, 2, 6) ---------- */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, CIN, HW, HW), KB_RAND);
    kb_net_push(n, "expand_conv");
    kb_net_conv2d(n, "0", CIN, HIDDEN, 1, 0);
    kb_net_batchnorm(n, "1", HIDDEN);
    kb_net_pop(n);
    kb_net_push(n, "depthwise_conv");
    kb_net_conv2d_g(n, "0", HIDDEN, HIDDEN, K, HIDDEN, 0);
    kb_net_batchnorm(n, "1", HIDDEN);
    kb_net_pop(n);
    kb_net_push(n, "project_conv");
    kb_net_conv2d(n, "0", HIDDEN, COUT, 1, 0);
    kb_net_batchnorm(n, "1", COUT);
    kb_net_pop(n);
}

/* ---- the forward ------------------------------------------------------------------------------ */

static void reference(kb_ref *r)
{
    /* x = self.expand_conv(x) */
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "expand_conv.0.weight"), KB_NEW, NULL);
    kb_tensor e = kb_batch_norm_module(r, KB_NEW, c, "expand_conv.1");
    kb_drop(r, c);
    kb_hardtanh(r, e, e, 0.0, 6.0);
    /* x = self.depthwise_conv(x): e is forward()'s x until this Sequential returns */
    kb_tensor d = kb_depthwise_conv2d(r, KB_NEW, e, kb_arg(r, "depthwise_conv.0.weight"), KB_NEW, STRIDE, STRIDE,
                                      /*pad=*/(K - 1) / 2, (K - 1) / 2, /*dilation=*/1, 1);
    kb_tensor dn = kb_batch_norm_module(r, KB_NEW, d, "depthwise_conv.1");
    kb_drop(r, d);
    kb_hardtanh(r, dn, dn, 0.0, 6.0);
    kb_drop(r, e);
    /* x = self.project_conv(x) */
    kb_tensor p = kb_conv(r, KB_NEW, dn, kb_arg(r, "project_conv.0.weight"), KB_NEW, NULL);
    kb_batch_norm_module(r, kb_arg(r, "y"), p, "project_conv.1");
    kb_drop(r, p);
    kb_drop(r, dn);
}

KB_PROBLEM(.title = "EfficientNetMBConv", .describe = describe,
           /* terms: the last BatchNorm's batch statistics sum N*H*W values per channel (as
            * level3/008_resnet_basic_block counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OHW, OHW), .terms = (int64_t)BATCH * OHW * OHW)),
           /* 2 per product of the convolutions (1.1211e11), 4 per BatchNorm element (1.782e9),
            * the clamps (4.21e8) */
           .flops = 1.1432e11,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
