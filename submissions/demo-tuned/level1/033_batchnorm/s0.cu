/*
 * demo-tuned, level1/033_batchnorm, sample s0: BatchNorm2d forward in training mode (batch
 * statistics, eps 1e-5). x (N,C,H,W), weight (C), bias (C) -> y (N,C,H,W):
 *   mean[c], var[c] = mean and biased variance of x[:,c,:,:] (N*H*W elements),
 *   y = (x - mean[c]) * invstd[c] * weight[c] + bias[c],  invstd = 1/sqrt(var + eps).
 * (The running-statistics update of nn.BatchNorm2d is module state, not an output here.)
 *
 * Design: two passes over x, three kernels on args->stream:
 *   1. bn_partials: PARTS = 4 blocks per (n, c) plane (16384 blocks of 256 threads, in memory
 *      order), float4 loads with 8 independent 16-byte loads in flight per thread, sum and sum of
 *      squares in DOUBLE (a channel is 16.7M elements), block-reduced in a fixed shuffle order into
 *      partial[c][n * PARTS + p];
 *   2. bn_finalize: one warp per channel adds its N * PARTS partials in a fixed order (double):
 *      mean, var = E[x^2] - mean^2 (clamped at 0), invstd;
 *   3. bn_normalize: blocks of 8 float4 per thread (8 loads in flight), in REVERSE memory order
 *      so that the first ~40 MB it reads are still in L2 from pass 1; streaming loads/stores.
 * Deterministic (fixed reduction orders, no atomics). Scratch: C*N*PARTS*16 + C*8 bytes
 * (256.5 KiB), stream-ordered and freed on the stream; nothing kept across calls. A NaN or inf in
 * a channel makes that channel NaN, as in PyTorch.
 *
 * Napkin math (64 x 64 x 512 x 512 = 1.07e9 elements, 4.29 GB): read x twice + write y once =
 * 12.9 GB, 3.0 ms at ~4.3 TB/s; 2.1e9 DADD/DFMA pairs are far under the FP64 rate. Expect
 * ~3.05-3.2 ms (demo-naive: 3.50 ms; eager PyTorch 8.7 ms: ~2.8x).
 *
 * Build (the compile stage's command, hidden visibility so only kb_forward is exported):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s0.cu
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, dtype,
 * shape, alignment); 2 a CUDA call failed.
 */
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define PARTS 4  /* stats blocks per plane */
#define UNROLL 8 /* float4 loads in flight per thread */
#define EPS 1e-5

/* Sum over the block in a fixed order; valid in thread 0. sm: WARPS doubles. */
static __device__ __forceinline__ double block_sum(double v, double *sm)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads(); /* sm may still be read by a previous call */
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = 0.0;
    if (threadIdx.x == 0)
        for (int w = 0; w < WARPS; w++)
            v += sm[w];
    return v;
}

/* Block L: plane P = L / PARTS (P = n*C + c), part p = L % PARTS covering float4s
 * [p*part4, min((p+1)*part4, HW4)) of the plane. */
static __global__ void __launch_bounds__(THREADS)
bn_partials(const float4 *__restrict__ x4, int64_t C, int64_t HW4, int64_t part4, double2 *__restrict__ partial,
            int64_t nparts_per_channel)
{
    __shared__ double sm[WARPS];
    const int64_t L = blockIdx.x;
    const int64_t P = L / PARTS, p = L % PARTS;
    const int64_t n = P / C, c = P % C;
    const int64_t begin = p * part4;
    const int64_t end = begin + part4 < HW4 ? begin + part4 : HW4;
    const float4 *xp = x4 + P * HW4;
    double s = 0.0, q = 0.0;
    for (int64_t j = begin + threadIdx.x; j < end; j += (int64_t)UNROLL * THREADS) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const int64_t jj = j + (int64_t)u * THREADS;
            v[u] = jj < end ? __ldg(xp + jj) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const double a = v[u].x, b = v[u].y, cc = v[u].z, d = v[u].w;
            s += (a + b) + (cc + d);
            q += (a * a + b * b) + (cc * cc + d * d);
        }
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0)
        partial[c * nparts_per_channel + n * PARTS + p] = make_double2(s, q);
}

/* One warp per channel: stats[c] = {mean, invstd}. */
static __global__ void __launch_bounds__(32)
bn_finalize(const double2 *__restrict__ partial, int64_t nparts_per_channel, double count, float2 *__restrict__ stats)
{
    const int64_t c = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (int64_t i = threadIdx.x; i < nparts_per_channel; i += 32) {
        const double2 pq = partial[c * nparts_per_channel + i];
        s += pq.x;
        q += pq.y;
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        s += __shfl_xor_sync(0xffffffffu, s, off);
        q += __shfl_xor_sync(0xffffffffu, q, off);
    }
    if (threadIdx.x == 0) {
        const double mean = s / count;
        double var = q / count - mean * mean;
        if (var < 0.0)
            var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative; NaN stays NaN */
        stats[c] = make_float2((float)mean, (float)(1.0 / sqrt(var + EPS)));
    }
}

/* Block L' = gridDim.x - 1 - blockIdx.x (reverse order): plane P = L' / chunks, chunk k = L' %
 * chunks of UNROLL * THREADS float4. */
static __global__ void __launch_bounds__(THREADS)
bn_normalize(const float4 *__restrict__ x4, const float2 *__restrict__ stats, const float *__restrict__ w,
             const float *__restrict__ b, int64_t C, int64_t HW4, int64_t chunks, float4 *__restrict__ y4)
{
    const int64_t L = (int64_t)gridDim.x - 1 - blockIdx.x;
    const int64_t P = L / chunks, k = L % chunks;
    const int64_t c = P % C;
    const float2 st = stats[c];
    const float mean = st.x, invstd = st.y, wc = w[c], bc = b[c];
    const float4 *xp = x4 + P * HW4;
    float4 *yp = y4 + P * HW4;
    const int64_t j0 = k * (UNROLL * THREADS) + threadIdx.x;
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const int64_t j = j0 + (int64_t)u * THREADS;
        if (j < HW4)
            v[u] = __ldcs(xp + j);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const int64_t j = j0 + (int64_t)u * THREADS;
        if (j < HW4) {
            float4 o;
            o.x = (v[u].x - mean) * invstd * wc + bc;
            o.y = (v[u].y - mean) * invstd * wc + bc;
            o.z = (v[u].z - mean) * invstd * wc + bc;
            o.w = (v[u].w - mean) * invstd * wc + bc;
            __stcs(yp + j, o);
        }
    }
}

static int aligned16(const void *p) { return ((uintptr_t)p % 16) == 0; }

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
    if (w->shape[0] != C || b->shape[0] != C || N <= 0 || C <= 0 || HW <= 0 || HW % 4 != 0)
        return 1;
    if (!aligned16(x->data) || !aligned16(y->data))
        return 1;
    const int64_t HW4 = HW / 4;
    const int64_t part4 = (HW4 + PARTS - 1) / PARTS; /* the last part may be short (or empty) */
    const int64_t nparts_per_channel = N * PARTS;
    const int64_t chunks = (HW4 + UNROLL * THREADS - 1) / (UNROLL * THREADS);
    if (N * C * PARTS > 0x7fffffff || N * C * chunks > 0x7fffffff || C > 0x7fffffff)
        return 1;

    cudaStream_t st = args->stream;
    void *scratch = NULL;
    const size_t part_bytes = (size_t)(C * nparts_per_channel) * sizeof(double2);
    if (cudaMallocAsync(&scratch, part_bytes + (size_t)C * sizeof(float2), st) != cudaSuccess)
        return 2;
    double2 *partial = (double2 *)scratch;
    float2 *stats = (float2 *)((char *)scratch + part_bytes);
    int rc = 0;

    bn_partials<<<(unsigned)(N * C * PARTS), THREADS, 0, st>>>((const float4 *)x->data, C, HW4, part4, partial,
                                                               nparts_per_channel);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
    if (rc == 0) {
        bn_finalize<<<(unsigned)C, 32, 0, st>>>(partial, nparts_per_channel, (double)(N * HW), stats);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (rc == 0) {
        bn_normalize<<<(unsigned)(N * C * chunks), THREADS, 0, st>>>((const float4 *)x->data, stats,
                                                                    (const float *)w->data, (const float *)b->data,
                                                                    C, HW4, chunks, (float4 *)y->data);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(scratch, st) != cudaSuccess)
        rc = 2;
    return rc;
}
