/*
 * demo-naive, level1/035_groupnorm, sample s0: nn.GroupNorm(G, C) forward:
 * x (N,C,H,W), weight (C), bias (C) -> y. The C channels split into G groups of D = C/G; each
 * (n, g) group of D*H*W contiguous values is normalised by its own mean and biased variance:
 *   y = (x - mean[n,g]) / sqrt(var[n,g] + 1e-5) * weight[c] + bias[c].
 *
 * Two kernels on args->stream:
 *   1. group_stats: one block of 512 threads per (n, g) group; sum and sum of squares in DOUBLE
 *      per thread (float4 loads when aligned), block-reduced in double; thread 0 writes
 *      {mean, 1/sqrt(var + eps)} (var = E[x^2] - mean^2 in double, clamped at 0);
 *   2. normalize: grid (n*C + c plane, chunk of 1024 elements), the group's statistics and the
 *      channel's weight and bias.
 * Scratch: N*G*8 bytes, stream-ordered (cudaMallocAsync/cudaFreeAsync).
 *
 * Napkin math (112 x 64 x 512 x 512, G = 8: 896 groups of 2.1M values, 7.5 GB): read x twice +
 * write y once = 22.5 GB, ~5.3 ms at ~4.3 TB/s; the 896 statistics blocks are all resident at
 * once (132 SMs x 4 blocks of 512 threads = 528, so 1.7 waves) -- expect ~6 ms (eager PyTorch:
 * 9.26 ms).
 * Accuracy: double sums; the only fp32 roundings are in the final normalise: ~2e-7 relative.
 *
 * Build (the compile stage's command, hidden visibility so only kb_forward is exported):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s0.cu
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, dtype,
 * shape, or C not divisible by the groups); 2 a CUDA call failed.
 */
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define GROUPS 8 /* the module's num_groups: not visible in the tensors, fixed by the problem */
#define STAT_THREADS 512
#define STAT_WARPS (STAT_THREADS / 32)
#define THREADS 256
#define NORM_PER_THREAD 4
#define EPS 1e-5

/* Sum of v over the block (all STAT_THREADS threads must call it); valid in thread 0. */
static __device__ double block_sum(double v, double *sm)
{
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = 0.0;
    if (warp == 0) {
        v = lane < STAT_WARPS ? sm[lane] : 0.0;
        for (int off = 16; off > 0; off /= 2)
            v += __shfl_xor_sync(0xffffffffu, v, off);
    }
    return v;
}

/* stats[ng] = {mean, invstd} of the len contiguous values of group ng. */
static __global__ void __launch_bounds__(STAT_THREADS)
group_stats(const float *__restrict__ x, int64_t len, int vec, float2 *__restrict__ stats)
{
    __shared__ double sm[STAT_WARPS];
    const float *p = x + (int64_t)blockIdx.x * len;
    double s = 0.0, q = 0.0;
    if (vec) {
        const float4 *p4 = reinterpret_cast<const float4 *>(p);
        for (int64_t i = threadIdx.x; i < len / 4; i += STAT_THREADS) {
            const float4 v = p4[i];
            s += (double)v.x + (double)v.y + (double)v.z + (double)v.w;
            q += (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z + (double)v.w * v.w;
        }
    } else {
        for (int64_t i = threadIdx.x; i < len; i += STAT_THREADS) {
            const double v = (double)p[i];
            s += v;
            q += v * v;
        }
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0) {
        const double mean = s / (double)len;
        double var = q / (double)len - mean * mean;
        if (var < 0.0)
            var = 0.0;
        stats[blockIdx.x] = make_float2((float)mean, (float)(1.0 / sqrt(var + EPS)));
    }
}

/* blockIdx.x = plane (n*C + c), blockIdx.y = chunk of THREADS*NORM_PER_THREAD elements. */
static __global__ void __launch_bounds__(THREADS)
normalize(const float *__restrict__ x, const float2 *__restrict__ stats, const float *__restrict__ weight,
          const float *__restrict__ bias, int64_t channels, int64_t per_group, int64_t hw, float *__restrict__ y)
{
    const int64_t plane = blockIdx.x;
    const int64_t c = plane % channels;
    const int64_t ng = plane / per_group; /* (n*C + c) / D = n*G + c/D */
    const float mean = stats[ng].x, invstd = stats[ng].y, w = weight[c], b = bias[c];
    const int64_t base = plane * hw;
    const int64_t i0 = (int64_t)blockIdx.y * (THREADS * NORM_PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < NORM_PER_THREAD; k++) {
        const int64_t i = i0 + k * THREADS;
        if (i < hw)
            y[base + i] = (x[base + i] - mean) * invstd * w + b;
    }
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 3 || args->n_outputs != 1)
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
    if (w->shape[0] != C || b->shape[0] != C || N <= 0 || C <= 0 || HW <= 0 || C % GROUPS != 0)
        return 1;
    const int64_t D = C / GROUPS, len = D * HW;
    const int64_t chunks = (HW + THREADS * NORM_PER_THREAD - 1) / (THREADS * NORM_PER_THREAD);
    if (N * C > 0x7fffffff || chunks > 65535)
        return 1;
    const int vec = len % 4 == 0 && (uintptr_t)x->data % 16 == 0;

    cudaStream_t st = args->stream;
    float2 *stats = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&stats, (size_t)(N * GROUPS) * sizeof(float2), st) != cudaSuccess)
        return 2;
    group_stats<<<(unsigned)(N * GROUPS), STAT_THREADS, 0, st>>>((const float *)x->data, len, vec, stats);
    if (cudaGetLastError() != cudaSuccess) {
        rc = 2;
    } else {
        normalize<<<dim3((unsigned)(N * C), (unsigned)chunks), THREADS, 0, st>>>(
            (const float *)x->data, stats, (const float *)w->data, (const float *)b->data, C, D, HW,
            (float *)y->data);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(stats, st) != cudaSuccess)
        rc = 2;
    return rc;
}
