/*
 * level2/015_convtranspose3d_batchnorm_subtract -- KernelBench L2/15:
 * x = batch_norm(conv_transpose(x)); x = x - torch.mean(x, dim=(2, 3, 4), keepdim=True), with
 * conv_transpose = nn.ConvTranspose3d(16, 32, 3, stride=2, padding=1) and batch_norm =
 * nn.BatchNorm3d(32) in training mode (batch statistics, eps 1e-5, momentum 0.1), on
 * x (16, 16, 16, 32, 32) fp32 -> (16, 32, 31, 63, 63).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, BatchNorm3d -> cudnn_batch_norm (cudnnBatchNormalization-
 * ForwardTrainingEx), the mean over the spatial dims (one reduction kernel), the broadcast
 * subtract: five kernels. As in L1/33, the running statistics are module state (KB_STATE, bound to the submission's buffers):
 * the reference passes none, so cuDNN's running-average update of 2 x 32 floats and
 * num_batches_tracked += 1 (a 1-element kernel) are not reproduced; y is unaffected.
 * Napkin math: 2 * 16*16*32 * (46*94*94 input-tap pairs inside the output) = 6.7e9 FLOP,
 * ~0.11 ms of TF32 at ~60 TFLOP/s; the conv output is 0.23 GiB, written by cuDNN, read and written
 * by the bias add, read twice and written by the BatchNorm, read by the mean, read and written by
 * the subtract: ~2.3 GB of traffic, ~0.53 ms at ~4.3 TB/s. Eager: 2.04 ms on an H100
 * (reference/kernelbench-problems.csv), 1.92 ms on an H200 (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 16, COUT = 32, D = 16, H = 32, W = 32, K = 3, S = 2, P = 1 };
enum { OD = (D - 1) * S - 2 * P + K, OH = (H - 1) * S - 2 * P + K, OW = (W - 1) * S - 2 * P + K }; /* 31, 63, 63 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}));
    kb_tensor b = kb_batch_norm_train(r, KB_NEW, c, kb_arg(r, "batch_norm.weight"), kb_arg(r, "batch_norm.bias"), KB_NEW,
                                      KB_NEW, 0.1, 1e-5);
    kb_drop(r, c);
    kb_tensor m = kb_mean_dims(r, KB_NEW, b, (const int[]){2, 3, 4}, 3, /*keepdim=*/1);
    kb_sub(r, kb_arg(r, "y"), b, m);
}

KB_PROBLEM(.title = "ConvTranspose3d BatchNorm Subtract",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("batch_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("batch_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_mean", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("batch_norm.running_var", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_STATE("batch_norm.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           /* terms: the 128 products that reach a conv output (C_in * 2*2*2 taps), the batch
            * statistics over N*D*H*W values, the mean over D*H*W (their product: the conservative count) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW),
                                .terms = (int64_t)CIN * 8 * ((int64_t)BATCH * OD * OH * OW) * (OD * OH * OW))),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 46, 94, 94),
            * then per element: the bias add, 8 for the BatchNorm, one add for the mean, the subtract */
           .flops = 2.0 * BATCH * CIN * COUT * 46.0 * 94.0 * 94.0 + 11.0 * BATCH * COUT * OD * OH * OW)
