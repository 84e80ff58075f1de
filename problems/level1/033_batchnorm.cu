/*
 * level1/033_batchnorm -- KernelBench L1/33: nn.BatchNorm2d(64) in training mode on
 * x (64, 64, 512, 512) fp32 (4 GiB): batch statistics, eps 1e-5, momentum 0.1.
 *
 * Eager PyTorch: BatchNorm2d.forward -> F.batch_norm(training=True) -> cudnn_batch_norm ->
 * cudnnBatchNormalizationForwardTrainingEx (CUDNN_BATCHNORM_SPATIAL, OPS_BN), which also updates
 * the running statistics and saves mean / inverse std for backward; the module then bumps
 * num_batches_tracked (one tiny kernel, not reproduced: it does not touch y).
 * Running statistics are module buffers, not inputs: the reference gives cuDNN a fresh pair from
 * the context (zeroed; their values never influence y in training mode).
 * Napkin math: minimal traffic 8 GiB (read x, write y); cuDNN reads x twice (statistics, then
 * normalise), 12 GiB, which at ~4 TB/s would be ~3.2 ms. PyTorch measures 8.70 ms on the H200
 * (data/pytorch-eager-h200.csv; torch.compile does it in about half): the eager baseline is
 * cuDNN's kernel for this shape, whatever it costs.
 */
#include <cuda_runtime_api.h>

#include "kb/ops.h"

#define BN_N 64
#define BN_C 64
#define BN_H 512
#define BN_W 512

static const kb_tensor_spec inputs[] = {
    {"x", KB_F32, KB_SHAPE(BN_N, BN_C, BN_H, BN_W), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
    {"bn.weight", KB_F32, KB_SHAPE(BN_C), KB_ROLE_PARAM, {KB_GEN_ONES, 0, 0}, 0},
    {"bn.bias", KB_F32, KB_SHAPE(BN_C), KB_ROLE_PARAM, {KB_GEN_ZEROS, 0, 0}, 0},
};
static const kb_tensor_spec outputs[] = {
    /* terms: the batch statistics sum N*H*W values per channel */
    {"y", KB_F32, KB_SHAPE(BN_N, BN_C, BN_H, BN_W), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, (int64_t)BN_N * BN_H * BN_W},
};

static int reference(kb_ctx *ctx, const kb_args *a)
{
    float *running = (float *)kb_ctx_alloc(ctx, 2 * BN_C * sizeof(float)); /* mean, var */
    if (!running)
        return -1;
    cudaError_t e = cudaMemsetAsync(running, 0, 2 * BN_C * sizeof(float), kb_ctx_stream(ctx));
    if (e != cudaSuccess) {
        kb_ctx_free(ctx, running);
        return kb_ctx_fail(ctx, "%s:%d: cudaMemsetAsync(running stats): %s (%s)", __FILE__, __LINE__,
                           cudaGetErrorName(e), cudaGetErrorString(e));
    }
    int rc = kb_op_batch_norm_train(ctx, (const float *)a->inputs[0].data, (float *)a->outputs[0].data, BN_N,
                                    BN_C, (int64_t)BN_H * BN_W, (const float *)a->inputs[1].data,
                                    (const float *)a->inputs[2].data, 1e-5, 0.1, running, running + BN_C);
    kb_ctx_free(ctx, running);
    return rc;
}

KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {
    KB_ABI_VERSION,
    "level1/033_batchnorm",
    "BatchNorm",
    3, inputs,
    1, outputs,
    8.0 * BN_N * BN_C * BN_H * BN_W, /* mean, variance, normalise, scale, shift */
    4.0 * (2.0 * BN_N * BN_C * BN_H * BN_W + 2.0 * BN_C), /* read x, write y, read weight and bias */
    0,
    reference,
};
