/*
 * level3/025_shufflenet_unit -- KernelBench L3/25: a ShuffleNet unit (in 240, out 480, 3 groups)
 * in training mode on x (10, 240, 224, 224) fp32 -> (10, 480, 224, 224): conv1 1x1 groups 3
 * (240 -> 120), bn1, relu; conv2 3x3 depthwise (groups 120), bn2; channel shuffle (view
 * (10, 3, 40, 224, 224), transpose(1, 2), contiguous, view back); conv3 1x1 groups 3
 * (120 -> 480), bn3, relu; `out += shortcut(x)` with shortcut = Sequential(1x1 conv 240 -> 480,
 * BatchNorm) (the channels differ). 4 convolutions, 4 BatchNorm2d (batch statistics), 12
 * parameters (147,480 values) and 12 buffers, PyTorch's default initialisers.
 *
 * Eager PyTorch, per op: conv1, conv3 (grouped, groups 3 < C_in) and the shortcut conv are
 * cudnn_convolution (TF32 by cudnn.allow_tf32); conv2 (fp32 NCHW, groups == channels) fails
 * use_cudnn_depthwise, so select_conv_backend picks at::_conv_depthwise2d,
 * conv_depthwise2d_forward_kernel<3> (kb_depthwise_conv2d). Each BatchNorm2d runs
 * num_batches_tracked.add_(1) then cudnn batch norm in training mode, updating running_mean /
 * running_var in the same call (kb_batch_norm_module). F.relu is an out-of-place relu; the
 * shuffle's views are views and `.contiguous()` on the transposed view is clone: empty_like and
 * one strided copy kernel (kb_copy of a kb_transpose view); `out += ...` is add_. 16 kernels.
 * Lifetimes: a conv's output is freed once its BatchNorm returns, a BatchNorm's output passed to
 * F.relu once the relu returns; bn2's output lives until the shuffle returns (forward()'s `out`
 * names it while the copy runs), the shuffled tensor until bn3's relu has returned, the
 * shortcut's BatchNorm output once add_ has read it. The unit's relu writes the output.
 * Napkin math: 1.485e11 FLOP (1.156e11 of the shortcut conv, 1.93e10 of conv3, 9.6e9 of conv1,
 * 1.1e9 of conv2, 2.4e9 for the BatchNorms, 5.4e8 for the relus and the add), ~0.4 ms of TF32,
 * ~2.2 ms at 67 TFLOP/s FP32; 0.48 GB in, 0.96 GB out, the 480-channel tensors (conv3's and the
 * shortcut's outputs and their BatchNorms) 0.96 GB each: ~10 GB of traffic, ~2.4 ms at ~4.3 TB/s.
 * Eager: 8.17 ms on an H100 (reference/kernelbench-problems.csv); 7.09 ms FP32, 7.09 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 240, COUT = 480, GROUPS = 3, MID = COUT / 4, HW = 224 };

/* ---- the tensors: named_parameters() and named_buffers() of Model(240, 480, 3) ---------------- */

static void describe(kb_net *n)
{
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(BATCH, CIN, HW, HW), KB_RAND);
    kb_net_conv2d_g(n, "conv1", CIN, MID, 1, GROUPS, 0);
    kb_net_batchnorm(n, "bn1", MID);
    kb_net_conv2d_g(n, "conv2", MID, MID, 3, MID, 0);
    kb_net_batchnorm(n, "bn2", MID);
    kb_net_conv2d_g(n, "conv3", MID, COUT, 1, GROUPS, 0);
    kb_net_batchnorm(n, "bn3", COUT);
    kb_net_push(n, "shortcut");
    kb_net_conv2d(n, "0", CIN, COUT, 1, 0);
    kb_net_batchnorm(n, "1", COUT);
    kb_net_pop(n);
}

/* ---- the forward ------------------------------------------------------------------------------ */

static void reference(kb_ref *r)
{
    const kb_tensor x = kb_arg(r, "x");
    /* out = F.relu(self.bn1(self.conv1(x))) */
    kb_tensor c = kb_conv(r, KB_NEW, x, kb_arg(r, "conv1.weight"), KB_NEW, KB_CONV_PARAMS(.groups = GROUPS));
    kb_tensor b = kb_batch_norm_module(r, KB_NEW, c, "bn1");
    kb_drop(r, c);
    kb_tensor out = kb_relu(r, KB_NEW, b);
    kb_drop(r, b);
    /* out = self.bn2(self.conv2(out)) */
    c = kb_depthwise_conv2d(r, KB_NEW, out, kb_arg(r, "conv2.weight"), KB_NEW, 1, 1, /*pad=*/1, 1, /*dilation=*/1, 1);
    b = kb_batch_norm_module(r, KB_NEW, c, "bn2");
    kb_drop(r, c);
    kb_drop(r, out);
    /* out = self.shuffle(out): view (N, g, C/g, H, W), transpose(1, 2).contiguous(), view (N, C, H, W) */
    kb_tensor v = kb_transpose(r, KB_VIEW(r, b, BATCH, GROUPS, MID / GROUPS, HW, HW), 1, 2);
    kb_tensor s = kb_copy(r, KB_NEW, v);
    kb_drop(r, b);
    s = KB_VIEW(r, s, BATCH, MID, HW, HW);
    /* out = F.relu(self.bn3(self.conv3(out))) */
    c = kb_conv(r, KB_NEW, s, kb_arg(r, "conv3.weight"), KB_NEW, KB_CONV_PARAMS(.groups = GROUPS));
    b = kb_batch_norm_module(r, KB_NEW, c, "bn3");
    kb_drop(r, c);
    const kb_tensor y = kb_relu(r, kb_arg(r, "y"), b);
    kb_drop(r, b);
    kb_drop(r, s);
    /* out += self.shortcut(x) */
    c = kb_conv(r, KB_NEW, x, kb_arg(r, "shortcut.0.weight"), KB_NEW, NULL);
    b = kb_batch_norm_module(r, KB_NEW, c, "shortcut.1");
    kb_drop(r, c);
    kb_add(r, y, y, b);
    kb_drop(r, b);
}

KB_PROBLEM(.title = "ShuffleNetUnit", .describe = describe,
           /* terms: each BatchNorm's batch statistics sum N*H*W values per channel (as
            * level3/008_resnet_basic_block counts it) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, HW, HW), .terms = (int64_t)BATCH * HW * HW)),
           /* 2 per product of the convolutions (1.4559e11), 4 per BatchNorm element (2.408e9), the
            * two relus (3.01e8) and the add (2.41e8) */
           .flops = 1.4854e11,
           /* each BatchNorm subtracts the batch mean of a convolution */
           .flags = KB_PROB_CENTERED)
