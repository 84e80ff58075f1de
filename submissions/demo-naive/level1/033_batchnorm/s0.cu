/*
 * demo-naive, level1/033_batchnorm, sample s0: BatchNorm2d forward in training mode.
 * x (N,C,H,W), weight (C), bias (C) -> y (N,C,H,W):
 *   mean[c] = mean of x[:,c,:,:], var[c] = biased variance over the same N*H*W elements,
 *   y = (x - mean[c]) / sqrt(var[c] + 1e-5) * weight[c] + bias[c].
 * (The running-statistics update of nn.BatchNorm2d is module state, not an output here.)
 *
 * Three kernels on args->stream:
 *   1. plane_stats: one block per (n, c) plane of H*W contiguous floats; every thread accumulates
 *      sum and sum of squares in DOUBLE (a channel has 16.7M elements: float sums would lose ~4
 *      digits), block-reduced in double into partial[n*C + c];
 *   2. channel_stats: one block per channel adds its N partials in double and computes
 *      mean and 1/sqrt(var + eps) (var = E[x^2] - mean^2 in double, clamped at 0);
 *   3. normalize: grid (plane, chunk), y = (x - mean) * invstd * weight + bias in float.
 * Scratch: N*C*16 + C*8 bytes (64 KiB here), stream-ordered (cudaMallocAsync/cudaFreeAsync).
 * Nothing is kept across calls.
 *
 * Napkin math (64 x 64 x 512 x 512 = 1.07e9 elements, 4.29 GB): read x twice + write y once =
 * 12.9 GB, 3.0 ms at ~4.3 TB/s. The double adds (2.1e9 DADD/DFMA) are far under the H200's FP64
 * rate. Expect ~3.2 ms. Measured on an H200: 3.50 ms (eager PyTorch F.batch_norm in training
 * mode: 8.29 ms). Largest error against an fp64 reference: 1e-6 on x1, x-1, x3 and x0.01.
 *
 * Build (the compile stage's command, hidden visibility so only kb_forward is exported):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s0.cu
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, dtype,
 * shape); 2 a CUDA call failed.
 */
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define NORM_PER_THREAD 4 /* normalize: each block covers THREADS * NORM_PER_THREAD elements */
#define EPS 1e-5

/* Sum of v over the block (all THREADS threads must call it); the result is valid in thread 0. */
static __device__ double block_sum(double v, double *sm)
{
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads(); /* sm may still be read by a previous call */
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = 0.0;
    if (warp == 0) {
        v = lane < WARPS ? sm[lane] : 0.0;
        for (int off = 16; off > 0; off /= 2)
            v += __shfl_xor_sync(0xffffffffu, v, off);
    }
    return v;
}

/* partial[plane] = {sum, sum of squares} of the H*W elements of plane (n*C + c). */
static __global__ void __launch_bounds__(THREADS)
plane_stats(const float *__restrict__ x, int64_t hw, double2 *__restrict__ partial)
{
    __shared__ double sm[WARPS];
    const float *p = x + (int64_t)blockIdx.x * hw;
    double s = 0.0, q = 0.0;
#pragma unroll 4
    for (int64_t i = threadIdx.x; i < hw; i += THREADS) {
        double v = (double)p[i];
        s += v;
        q += v * v;
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = make_double2(s, q);
}

/* stats[c] = {mean, 1/sqrt(var + eps)} from the N partials of channel c. */
static __global__ void __launch_bounds__(THREADS)
channel_stats(const double2 *__restrict__ partial, int64_t n_batch, int64_t channels, int64_t hw,
              float2 *__restrict__ stats)
{
    __shared__ double sm[WARPS];
    const int64_t c = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (int64_t n = threadIdx.x; n < n_batch; n += THREADS) {
        double2 pq = partial[n * channels + c];
        s += pq.x;
        q += pq.y;
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0) {
        const double count = (double)n_batch * (double)hw;
        const double mean = s / count;
        double var = q / count - mean * mean;
        if (var < 0.0)
            var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative */
        stats[c] = make_float2((float)mean, (float)(1.0 / sqrt(var + EPS)));
    }
}

/* blockIdx.x = plane (n*C + c), blockIdx.y = chunk of THREADS*NORM_PER_THREAD elements. */
static __global__ void __launch_bounds__(THREADS)
normalize(const float *__restrict__ x, const float2 *__restrict__ stats, const float *__restrict__ weight,
          const float *__restrict__ bias, int64_t channels, int64_t hw, float *__restrict__ y)
{
    const int64_t plane = blockIdx.x;
    const int64_t c = plane % channels;
    const float mean = stats[c].x, invstd = stats[c].y, w = weight[c], b = bias[c];
    const int64_t base = plane * hw;
    const int64_t i0 = (int64_t)blockIdx.y * (THREADS * NORM_PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < NORM_PER_THREAD; k++) {
        int64_t i = i0 + k * THREADS;
        if (i < hw)
            y[base + i] = (x[base + i] - mean) * invstd * w + b;
    }
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 6 || args->n_outputs != 1) /* x, weight, bias, 3 buffers */
        return 1;
    const kb_input *x = &args->inputs[0], *w = &args->inputs[1], *b = &args->inputs[2];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || w->dtype != KB_F32 || b->dtype != KB_F32 || y->dtype != KB_F32)
        return 1;
    if (x->ndim != 4 || y->ndim != 4 || w->ndim != 1 || b->ndim != 1)
        return 1;
    for (int d = 0; d < 4; d++)
        if (x->shape[d] != y->shape[d])
            return 1;
    const int64_t N = x->shape[0], C = x->shape[1], HW = x->shape[2] * x->shape[3];
    if (w->shape[0] != C || b->shape[0] != C || N <= 0 || C <= 0 || HW <= 0)
        return 1;
    const int64_t chunks = (HW + THREADS * NORM_PER_THREAD - 1) / (THREADS * NORM_PER_THREAD);
    if (N * C > 0x7fffffff || chunks > 65535) /* gridDim.x and gridDim.y limits */
        return 1;

    cudaStream_t st = args->stream;
    double2 *partial = NULL;
    float2 *stats = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&partial, (size_t)(N * C) * sizeof(double2), st) != cudaSuccess)
        return 2;
    if (cudaMallocAsync((void **)&stats, (size_t)C * sizeof(float2), st) != cudaSuccess) {
        cudaFreeAsync(partial, st);
        return 2;
    }

    plane_stats<<<(unsigned)(N * C), THREADS, 0, st>>>((const float *)x->data, HW, partial);
    if (cudaGetLastError() != cudaSuccess) {
        rc = 2;
        goto done;
    }
    channel_stats<<<(unsigned)C, THREADS, 0, st>>>(partial, N, C, HW, stats);
    if (cudaGetLastError() != cudaSuccess) {
        rc = 2;
        goto done;
    }
    normalize<<<dim3((unsigned)(N * C), (unsigned)chunks), THREADS, 0, st>>>(
        (const float *)x->data, stats, (const float *)w->data, (const float *)b->data, C, HW, (float *)y->data);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
done:
    if (cudaFreeAsync(stats, st) != cudaSuccess)
        rc = 2;
    if (cudaFreeAsync(partial, st) != cudaSuccess)
        rc = 2;
    return rc;
}
