/*
 * ops/loss.cu -- kb_op_cross_entropy: F.cross_entropy(logits[N, C], targets[N] int64,
 * reduction='mean') (see kb/ops.h).
 *
 * Eager PyTorch computes cross_entropy with class-index targets as
 * nll_loss(log_softmax(logits, 1), targets): the [N, C] log-probabilities are materialised (here
 * in counted scratch, through kb_op_softmax with log = 1, which dispatches like host_softmax),
 * then nll_loss_forward_reduce_cuda_kernel_2d (ATen/native/cuda/Loss.cu) runs as ONE block of
 * nll_loss_threads(N) = clamp(2^round(log2(N / 16)), 32, 1024) threads: each thread accumulates
 * -logp[i, t_i] for its frames i = tid, tid + blockDim, ... in a shared-memory slot, plus a
 * count of the frames that are not ignore_index (-100, the default); a shared-memory tree sums the
 * slots, and the loss is sum / count, all in float.
 * Targets outside [0, C) other than -100 make PyTorch's kernel assert (a device-side error that
 * poisons the CUDA context); here they turn the loss into NaN instead. If every target is -100
 * the loss is 0 / 0 = NaN, as in PyTorch.
 *
 * Napkin math, L1/95: logits (32768, 4096) fp32 = 0.54 GB. log_softmax reads it once and writes
 * 0.54 GB (cunn_SoftMaxForwardReg<4>, one 1024-thread block per row): ~0.26 ms at ~4.2 TB/s.
 * nll_loss: one block of 1024 threads, 32 frames each, every frame a dependent target load then
 * a gather from a different 16 KB row: ~32 x 2 memory latencies, ~0.05 ms. Eager PyTorch:
 * 0.44 ms on the H200 (CPU launch gaps included); this file measures 0.40-0.42 ms.
 */
#include <math.h>
#include <stdint.h>

#include "kb/ops.h"

namespace {

constexpr int64_t kIgnoreIndex = -100; /* F.cross_entropy's default ignore_index */

/* One block; blockDim.x a power of two; dynamic shared memory 2 * blockDim.x floats. */
__global__ void nll_loss_mean_kernel(float *output, const float *logp, const int64_t *target, int64_t nframe,
                                     int64_t ndim, int64_t n_classes, int64_t ignore_index)
{
    extern __shared__ float shmem[];
    float *sh_inputs = shmem;
    float *acc_weight = shmem + blockDim.x;
    const int tid = (int)threadIdx.x;

    sh_inputs[tid] = 0.0f;
    acc_weight[tid] = 0.0f;
    for (int64_t i = tid; i < nframe; i += blockDim.x) {
        const int64_t t = target[i];
        if (t == ignore_index)
            continue;
        if (t < 0 || t >= n_classes) {
            sh_inputs[tid] = NAN; /* PyTorch asserts; see the header */
            acc_weight[tid] += 1.0f;
            continue;
        }
        const float cur_weight = 1.0f;
        sh_inputs[tid] -= logp[i * ndim + t] * cur_weight;
        acc_weight[tid] += cur_weight;
    }
    __syncthreads();
    for (int stride = (int)blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            sh_inputs[tid] += sh_inputs[tid + stride];
            acc_weight[tid] += acc_weight[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0)
        output[0] = sh_inputs[0] / acc_weight[0];
}

/* nll_loss_threads(): clamp(1 << round(log2(nframe / 16)), 32, 1024). */
static int nll_loss_threads(int64_t nframe)
{
    const int64_t q = nframe / 16;
    if (q < 1)
        return 32;
    const long e = lround(log2((double)q));
    if (e >= 10)
        return 1024;
    const int t = 1 << (e < 0 ? 0 : e);
    return t < 32 ? 32 : t;
}

} /* namespace */

extern "C" int kb_op_cross_entropy(kb_ctx *ctx, const float *logits, const int64_t *targets, float *loss, int64_t N,
                                   int64_t C)
{
    if (N < 0 || C <= 0)
        return kb_ctx_fail(ctx, "kb_op_cross_entropy: bad extent N = %lld, C = %lld", (long long)N, (long long)C);
    if (!loss)
        return kb_ctx_fail(ctx, "kb_op_cross_entropy: NULL loss pointer");
    cudaStream_t stream = kb_ctx_stream(ctx);
    if (N == 0) {
        /* Mean over no frames: NaN, as PyTorch (0xFFFFFFFF is a quiet NaN). */
        KB_OP_CUDA(ctx, cudaMemsetAsync(loss, 0xFF, sizeof(float), stream));
        return 0;
    }
    if (!logits || !targets)
        return kb_ctx_fail(ctx, "kb_op_cross_entropy: NULL tensor pointer");

    float *logp = (float *)kb_ctx_alloc(ctx, sizeof(float) * (size_t)N * (size_t)C);
    if (!logp)
        return -1;
    if (kb_op_softmax(ctx, logits, logp, N, C, 1) != 0) {
        kb_ctx_free(ctx, logp);
        return -1;
    }
    const int threads = nll_loss_threads(N);
    nll_loss_mean_kernel<<<1, threads, 2 * sizeof(float) * (size_t)threads, stream>>>(loss, logp, targets, N, C, C,
                                                                                       kIgnoreIndex);
    const cudaError_t launched = cudaGetLastError();
    kb_ctx_free(ctx, logp);
    KB_OP_CUDA(ctx, launched);
    return 0;
}
