/*
 * level2/072_convtranspose3d_batchnorm_avgpool_avgpool -- KernelBench L2/72:
 * x = avg_pool2(avg_pool1(batch_norm(conv_transpose(x)))), with conv_transpose =
 * nn.ConvTranspose3d(3, 16, 3, stride=2, padding=1), batch_norm = nn.BatchNorm3d(16) in training
 * mode (batch statistics, eps 1e-5, momentum 0.1) and avg_pool1 = avg_pool2 = nn.AvgPool3d(2), on
 * x (64, 3, 32, 32, 32) fp32 -> (64, 16, 15, 15, 15).
 *
 * The bias_shape init argument is unused (no parameter is made from it).
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, BatchNorm3d -> cudnn_batch_norm (cudnnBatchNormalization-
 * ForwardTrainingEx), then two avg_pool3d: five kernels. As in L1/33, the running statistics are
 * module state (KB_STATE, bound to the submission's buffers): the reference passes none, so cuDNN's running-average update of
 * 2 x 16 floats and num_batches_tracked += 1 (a 1-element kernel) are not reproduced; y is
 * unaffected. Napkin math: 2 * 64*3*16 * (94*94*94 input-tap pairs inside the output) = 5.1e9
 * FLOP, ~0.09 ms of TF32 at ~60 TFLOP/s; the conv output is 0.95 GiB, written by cuDNN, read and
 * written by the bias add, read twice and written by the BatchNorm, read by the first pool:
 * ~7.5 GB of traffic, ~1.7 ms at ~4.3 TB/s. Eager: 12.3 ms on an H100
 * (reference/kernelbench-problems.csv), 12.3 ms on an H200 (reference/pytorch-eager-h200.csv),
 * far above both.
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 64, CIN = 3, COUT = 16, D = 32, H = 32, W = 32, K = 3, S = 2, P = 1, POOL = 2 };
enum { CD = (D - 1) * S - 2 * P + K, CH = (H - 1) * S - 2 * P + K, CW = (W - 1) * S - 2 * P + K }; /* 63 each */
enum { PD = CD / POOL, PH = CH / POOL, PW = CW / POOL };                                            /* 31 each */
enum { OD = PD / POOL, OH = PH / POOL, OW = PW / POOL };                                            /* 15 each */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}));
    kb_tensor b = kb_batch_norm_train(r, KB_NEW, c, kb_arg(r, "batch_norm.weight"), kb_arg(r, "batch_norm.bias"), KB_NEW,
                                      KB_NEW, 0.1, 1e-5);
    kb_drop(r, c);
    kb_tensor p = kb_avg_pool3d(r, KB_NEW, b, POOL, /*stride=None*/ 0, 0, /*ceil_mode=*/0, /*count_include_pad=*/1,
                                /*divisor_override=None*/ 0);
    kb_drop(r, b);
    kb_avg_pool3d(r, kb_arg(r, "y"), p, POOL, 0, 0, 0, 1, 0);
}

KB_PROBLEM(.title = "ConvTranspose3d BatchNorm AvgPool AvgPool",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("batch_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("batch_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_mean", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_var", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_STATE("batch_norm.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           /* terms: the 24 products that reach a conv output (C_in * 2*2*2 taps), the batch
            * statistics over N*63^3 values, the two pools' 8 each (their product: the conservative count) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW),
                                .terms = (int64_t)CIN * 8 * ((int64_t)BATCH * CD * CH * CW) * 64)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 94, 94, 94),
            * then per conv element: the bias add, 8 for the BatchNorm, one add per pool tap; the
            * second pool one add per tap */
           .flops = 2.0 * BATCH * CIN * COUT * 94.0 * 94.0 * 94.0 + 10.0 * BATCH * COUT * CD * CH * CW +
                    8.0 * BATCH * COUT * OD * OH * OW)
