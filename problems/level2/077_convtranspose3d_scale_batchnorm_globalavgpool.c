/*
 * level2/077_convtranspose3d_scale_batchnorm_globalavgpool -- KernelBench L2/77:
 * x = global_avg_pool(batch_norm(conv_transpose(x) * 2.0)), with conv_transpose =
 * nn.ConvTranspose3d(64, 128, 5), batch_norm = nn.BatchNorm3d(128, eps=1e-5, momentum=0.1) in
 * training mode (batch statistics) and global_avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1)), on
 * x (16, 64, 16, 32, 32) fp32 -> (16, 128, 1, 1, 1).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, the multiply by the Python float, BatchNorm3d -> cudnn_batch_norm
 * (cudnnBatchNormalizationForwardTrainingEx), the adaptive pool to 1x1x1 (at::adaptive_avg_pool3d's
 * shortcut: mean over the three spatial dims, keepdim): five kernels. As in L1/33, the running
 * statistics are module state (KB_STATE, bound to the submission's buffers): the reference passes none, so cuDNN's
 * running-average update of 2 x 128 floats and num_batches_tracked += 1 (a 1-element kernel) are
 * not reproduced; y is unaffected. Napkin math: 2 * 16*64*128 * 80*160*160 (stride 1: every
 * input-tap pair lands in the output) = 5.4e11 FLOP, ~8.9 ms of TF32 at ~60 TFLOP/s; the conv
 * output is 0.2 GiB: ~2.0 GB of traffic, ~0.46 ms at ~4.3 TB/s: the convolution dominates.
 * Eager: 5.42 ms on an H100 (reference/kernelbench-problems.csv), 6.41 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 64, COUT = 128, D = 16, H = 32, W = 32, K = 5 };
enum { OD = D + K - 1, OH = H + K - 1, OW = W + K - 1 }; /* 20, 36, 36 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), NULL);
    kb_tensor s = kb_muls(r, KB_NEW, c, 2.0); /* self.scale_factor */
    kb_drop(r, c);
    kb_tensor b = kb_batch_norm_train(r, KB_NEW, s, kb_arg(r, "batch_norm.weight"), kb_arg(r, "batch_norm.bias"), KB_NEW,
                                      KB_NEW, 0.1, 1e-5);
    kb_drop(r, s);
    kb_adaptive_avg_pool_nd(r, kb_arg(r, "y"), b, 3, (const int64_t[]){1, 1, 1});
}

KB_PROBLEM(.title = "ConvTranspose3d Scale BatchNorm GlobalAvgPool",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("batch_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("batch_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_mean", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_var", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_STATE("batch_norm.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           /* terms: the conv's 8000 products (C_in * 5*5*5 taps), the batch statistics over
            * N*D*H*W values, the mean over D*H*W (their product: the conservative count) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, 1, 1, 1),
                                .terms = (int64_t)CIN * K * K * K * ((int64_t)BATCH * OD * OH * OW) * (OD * OH * OW))),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per input element, output channel and tap, then per element: the bias
            * add, the multiply, 8 for the BatchNorm, one add for the mean */
           .flops = 2.0 * BATCH * CIN * D * H * W * COUT * K * K * K + 11.0 * BATCH * COUT * OD * OH * OW)
