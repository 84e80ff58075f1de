/*
 * level2/011_convtranspose2d_batchnorm_tanh_maxpool_groupnorm -- KernelBench L2/11:
 * x = conv_transpose(x); x = self.batch_norm(x); x = self.tanh(x); x = self.max_pool(x);
 * x = self.group_norm(x), with conv_transpose = nn.ConvTranspose2d(64, 128, 5, stride=1,
 * padding=1), batch_norm = nn.BatchNorm2d(128) in training mode (eps 1e-5, momentum 0.1),
 * max_pool = nn.MaxPool2d(2, 2) and group_norm = nn.GroupNorm(8, 128) (eps 1e-5), on
 * x (512, 64, 32, 32) fp32 -> (512, 128, 17, 17). The `groups` init argument (8) is unused: the
 * transposed convolution is not grouped.
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel, batch_norm with batch statistics
 * (cudnnBatchNormalizationForwardTrainingEx, weight and bias given, as L1/33), tanh,
 * max_pool2d_with_indices (the int64 indices written, then freed), native_group_norm (moments,
 * fused params, one elementwise pass). Each temporary is freed when the next op has read it.
 * Deliberate differences, none touching y (as L1/33): the batch norm's running statistics are
 * module state (KB_STATE, bound to the submission's buffers); the reference passes none, so cuDNN's running-average update of
 * 2 x 128 floats and num_batches_tracked += 1 are not reproduced. PyTorch's kaiming init of a
 * transposed weight takes fan_in from weight.size(1) * 5 * 5 = 3200.
 * Napkin math: 2 * 512*64*128 * 158*158 = 2.1e11 FLOP (158 of the 32 * 5 (input, tap) pairs per
 * dim land inside the 34-wide output), ~0.52 ms at ~400 TFLOP/s TF32 (3.1 ms at 67 TFLOP/s
 * FP32); the conv output is 0.30 GB, written, read and written by the bias add, read twice and
 * written by the batch norm, read and written by tanh, read by the pool; the pooled 76 MB (+ 152
 * MB of indices) is read twice and written by the group norm: ~3.3 GB of traffic, ~0.8 ms at
 * ~4.3 TB/s. Eager: 2.62 ms on an H100 (reference/kernelbench-problems.csv), 2.38 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: each conv output sums at most 64 input channels
 * x 5 x 5 taps, and the batch statistics sum 512*34*34 of them: the longest sum of the chain
 * (the group statistics sum 16*17*17 values).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 512, CIN = 64, COUT = 128, H = 32, W = 32, K = 5, S = 1, P = 1,
       OH = (H - 1) * S - 2 * P + K, OW = (W - 1) * S - 2 * P + K, /* 34 */
       PAIRS = 158, TAPS = 5, /* (input, tap) pairs per dim inside the output; taps reaching an output per dim */
       POOL = 2, PH = (OH - POOL) / POOL + 1, PW = (OW - POOL) / POOL + 1, /* 17 */
       GROUPS = 8 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S}, .padding = {P, P}));
    kb_tensor b = kb_batch_norm_train(r, KB_NEW, c, kb_arg(r, "batch_norm.weight"), kb_arg(r, "batch_norm.bias"),
                                      KB_NEW, KB_NEW, /*momentum=*/0.1, /*eps=*/1e-5);
    kb_drop(r, c);
    kb_tensor t = kb_tanh(r, KB_NEW, b);
    kb_drop(r, b);
    kb_tensor p = kb_max_pool2d(r, KB_NEW, t, POOL, POOL, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
    kb_drop(r, t);
    kb_group_norm(r, kb_arg(r, "y"), p, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"), 1e-5);
}

KB_PROBLEM(.title = "ConvTranspose2d BatchNorm Tanh MaxPool GroupNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("batch_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("batch_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_mean", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_var", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_STATE("batch_norm.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, PH, PW),
                                .terms = (int64_t)CIN * TAPS * TAPS * BATCH * OH * OW)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* the transposed convolution, its bias, the batch norm (8) and tanh per conv output,
            * the pool's comparisons and the group norm (8) per pooled element */
           .flops = 2.0 * BATCH * CIN * COUT * PAIRS * PAIRS + 10.0 * BATCH * COUT * OH * OW +
                    (POOL * POOL + 8.0) * BATCH * COUT * PH * PW)
