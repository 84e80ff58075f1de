/*
 * level1/033_batchnorm -- KernelBench L1/33: nn.BatchNorm2d(64) in training mode on
 * x (64, 64, 512, 512) fp32 (4 GiB): batch statistics, eps 1e-5, momentum 0.1.
 *
 * Eager PyTorch: BatchNorm2d.forward -> F.batch_norm(training=True) -> cudnn_batch_norm ->
 * cudnnBatchNormalizationForwardTrainingEx (CUDNN_BATCHNORM_SPATIAL, OPS_BN), which also saves
 * mean / inverse std for backward (kb_op_batch_norm_train, ops/dnn.cu).
 * Deliberate differences, none touching y: the running statistics are module state (KB_STATE, bound to the submission's buffers); the reference passes none, so cuDNN's fused running-average update
 * of 2 x 64 floats inside the same kernel is skipped, and the module's num_batches_tracked += 1
 * (one 1-element kernel, ~2 us of 8.7 ms) is not reproduced.
 * Napkin math: minimal traffic 8 GiB (read x, write y); cuDNN reads x twice (statistics, then
 * normalise), 12.9 GB, which at ~4 TB/s would be ~3.2 ms. PyTorch measures 8.70 ms on the H200
 * (reference/pytorch-eager-h200.csv; torch.compile does it in about half): the eager baseline is
 * cuDNN's kernel for this shape, whatever it costs.
 */
#include "kb/ref.h"

enum { BATCH = 64, FEATURES = 64, H = 512, W = 512 };

static void reference(kb_ref *r)
{
    kb_batch_norm_train(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "bn.weight"), kb_arg(r, "bn.bias"),
                        KB_NEW, KB_NEW, 0.1, 1e-5);
}

KB_PROBLEM(.title = "BatchNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, FEATURES, H, W), KB_RAND),
                     KB_PARAM("bn.weight", KB_F32, KB_DIMS(FEATURES), KB_ONES),
                     KB_PARAM("bn.bias", KB_F32, KB_DIMS(FEATURES), KB_ZEROS),
                     KB_STATE("bn.running_mean", KB_F32, KB_DIMS(FEATURES), KB_ZEROS),
                     KB_STATE("bn.running_var", KB_F32, KB_DIMS(FEATURES), KB_ONES),
                     KB_STATE("bn.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           /* terms: the batch statistics sum N*H*W values per channel */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, FEATURES, H, W), .terms = (int64_t)BATCH * H * W)),
           .flops = 8.0 * BATCH * FEATURES * H * W, /* mean, variance, normalise, scale, shift */
           .flags = KB_PROB_CENTERED)
