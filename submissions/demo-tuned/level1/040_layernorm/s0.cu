/*
 * demo-tuned, level1/040_layernorm, sample s0: LayerNorm over the last 3 dims (eps 1e-5,
 * elementwise affine). x (B, D0, D1, D2), weight (D0, D1, D2), bias (D0, D1, D2) -> y; with
 * D = D0*D1*D2 each of the B rows is normalised on its own:
 *   y[r, j] = (x[r, j] - mean_r) * rstd_r * weight[j] + bias[j],  rstd = 1/sqrt(var + eps)
 * (biased variance), the evaluation order of PyTorch's kernel.
 *
 * Design: a row is 4.2M elements, so one block per row (PyTorch: 16 blocks on 132 SMs, 8.4 ms)
 * starves the GPU. Three kernels on args->stream:
 *   1. ln_partials: SPLITS = 128 blocks per row (2048 blocks, 256 threads), each reading its
 *      32768-element slice as float4 with 8 independent 16-byte loads in flight per thread,
 *      accumulating sum and sum of squares in DOUBLE (no cancellation or drift worth naming for
 *      any fp32 input: 53-bit sums of 4.2M squares), block-reduced in a fixed shuffle order into
 *      partial[r][s];
 *   2. ln_finalize: one warp per row adds its 128 partials in a fixed order (double):
 *      mean, var = E[x^2] - mean^2 (clamped at 0), rstd = 1/sqrt(var + eps);
 *   3. ln_normalize: blocks of 4096 elements (4 float4 of x, weight, bias per thread, all 12
 *      loads in flight), ordered chunk-major with the row innermost, so the 16 blocks that read
 *      the same weight/bias chunk run back to back (weight and bias come from L2, not DRAM, 15
 *      times in 16) and in REVERSE order of pass 1, so the first x chunks it reads are the ones
 *      pass 1 read last, still in the 50 MB L2.
 * Deterministic (fixed reduction orders, no atomics). Scratch: B*128*16 + B*8 bytes (33 KiB),
 * stream-ordered and freed on the stream; nothing kept across calls. NaN/inf in a row make that
 * row's mean/rstd NaN and the whole row NaN, as in PyTorch.
 *
 * Napkin math (16 x 4194304 = 67.1M elements, x 268 MB): pass 1 reads 268 MB; pass 3 reads x
 * (268 MB, ~40 MB of it from L2) and weight + bias (33.5 MB from DRAM ~once) and writes 268 MB:
 * ~0.8 GB of DRAM traffic, 0.19 ms at ~4.3 TB/s; plus ~3 launch gaps. Expect ~0.22-0.26 ms
 * (demo-naive: 0.40 ms; eager PyTorch 8.4 ms: ~35x).
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
#define SPLITS 128    /* stats blocks per row */
#define STAT_UNROLL 8 /* float4 loads in flight per thread in pass 1 */
#define NORM_V4 4     /* float4 per thread in pass 3: a block covers 4096 elements */
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

/* Block L: split s = L / B, row r = L % B (split-major, row innermost). Slice [s*slice4,
 * min((s+1)*slice4, D4)) of row r, in float4 units. */
static __global__ void __launch_bounds__(THREADS)
ln_partials(const float4 *__restrict__ x4, int64_t B, int64_t D4, int64_t slice4, double2 *__restrict__ partial)
{
    __shared__ double sm[WARPS];
    const int64_t L = blockIdx.x;
    const int64_t s_idx = L / B, r = L % B;
    const int64_t begin = s_idx * slice4;
    const int64_t end = begin + slice4 < D4 ? begin + slice4 : D4;
    const float4 *xr = x4 + r * D4;
    double s = 0.0, q = 0.0;
    for (int64_t j = begin + threadIdx.x; j < end; j += (int64_t)STAT_UNROLL * THREADS) {
        float4 v[STAT_UNROLL];
#pragma unroll
        for (int u = 0; u < STAT_UNROLL; u++) {
            const int64_t jj = j + (int64_t)u * THREADS;
            v[u] = jj < end ? __ldg(xr + jj) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < STAT_UNROLL; u++) {
            const double a = v[u].x, b = v[u].y, c = v[u].z, d = v[u].w;
            s += (a + b) + (c + d);
            q += (a * a + b * b) + (c * c + d * d);
        }
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0)
        partial[r * SPLITS + s_idx] = make_double2(s, q);
}

/* One warp per row: stats[r] = {mean, rstd}. */
static __global__ void __launch_bounds__(32)
ln_finalize(const double2 *__restrict__ partial, int64_t D, int64_t nsplit, float2 *__restrict__ stats)
{
    const int64_t r = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (int64_t i = threadIdx.x; i < nsplit; i += 32) {
        const double2 pq = partial[r * SPLITS + i];
        s += pq.x;
        q += pq.y;
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        s += __shfl_xor_sync(0xffffffffu, s, off);
        q += __shfl_xor_sync(0xffffffffu, q, off);
    }
    if (threadIdx.x == 0) {
        const double mean = s / (double)D;
        double var = q / (double)D - mean * mean;
        if (var < 0.0)
            var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative; NaN stays NaN */
        stats[r] = make_float2((float)mean, (float)(1.0 / sqrt(var + EPS)));
    }
}

/* Block L (reversed: L' = gridDim.x - 1 - L): chunk c = L' / B, row r = L' % B; the chunk is
 * NORM_V4 * THREADS float4 of the row. */
static __global__ void __launch_bounds__(THREADS)
ln_normalize(const float4 *__restrict__ x4, const float2 *__restrict__ stats, const float4 *__restrict__ w4,
             const float4 *__restrict__ b4, int64_t B, int64_t D4, float4 *__restrict__ y4)
{
    const int64_t L = (int64_t)gridDim.x - 1 - blockIdx.x;
    const int64_t c = L / B, r = L % B;
    const float2 st = stats[r];
    const float mean = st.x, rstd = st.y;
    const int64_t j0 = c * (NORM_V4 * THREADS) + threadIdx.x;
    float4 v[NORM_V4], w[NORM_V4], b[NORM_V4];
#pragma unroll
    for (int u = 0; u < NORM_V4; u++) {
        const int64_t j = j0 + (int64_t)u * THREADS;
        if (j < D4) {
            v[u] = __ldcs(x4 + r * D4 + j); /* last use of x */
            w[u] = __ldg(w4 + j);           /* re-read by the other rows: keep cached */
            b[u] = __ldg(b4 + j);
        }
    }
#pragma unroll
    for (int u = 0; u < NORM_V4; u++) {
        const int64_t j = j0 + (int64_t)u * THREADS;
        if (j < D4) {
            float4 o;
            o.x = (v[u].x - mean) * rstd * w[u].x + b[u].x;
            o.y = (v[u].y - mean) * rstd * w[u].y + b[u].y;
            o.z = (v[u].z - mean) * rstd * w[u].z + b[u].z;
            o.w = (v[u].w - mean) * rstd * w[u].w + b[u].w;
            __stcs(y4 + r * D4 + j, o);
        }
    }
}

static int aligned16(const void *p) { return ((uintptr_t)p % 16) == 0; }

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 3 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0], *w = &args->inputs[1], *b = &args->inputs[2];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || w->dtype != KB_F32 || b->dtype != KB_F32 || y->dtype != KB_F32)
        return 1;
    if (x->ndim != 4 || y->ndim != 4 || w->ndim != 3 || b->ndim != 3)
        return 1;
    for (int d = 0; d < 4; d++)
        if (x->shape[d] != y->shape[d])
            return 1;
    for (int d = 0; d < 3; d++)
        if (w->shape[d] != x->shape[d + 1] || b->shape[d] != x->shape[d + 1])
            return 1;
    const int64_t B = x->shape[0], D = x->shape[1] * x->shape[2] * x->shape[3];
    if (B <= 0 || D <= 0 || D % 4 != 0)
        return 1;
    if (!aligned16(x->data) || !aligned16(w->data) || !aligned16(b->data) || !aligned16(y->data))
        return 1;
    const int64_t D4 = D / 4;
    const int64_t slice4 = (D4 + SPLITS - 1) / SPLITS;
    const int64_t nsplit = (D4 + slice4 - 1) / slice4; /* <= SPLITS, every split non-empty */
    const int64_t chunks = (D4 + NORM_V4 * THREADS - 1) / (NORM_V4 * THREADS);
    if (B * nsplit > 0x7fffffff || B * chunks > 0x7fffffff)
        return 1;

    cudaStream_t st = args->stream;
    void *scratch = NULL;
    const size_t part_bytes = (size_t)(B * SPLITS) * sizeof(double2);
    if (cudaMallocAsync(&scratch, part_bytes + (size_t)B * sizeof(float2), st) != cudaSuccess)
        return 2;
    double2 *partial = (double2 *)scratch;
    float2 *stats = (float2 *)((char *)scratch + part_bytes);
    int rc = 0;

    ln_partials<<<(unsigned)(B * nsplit), THREADS, 0, st>>>((const float4 *)x->data, B, D4, slice4, partial);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
    if (rc == 0) {
        ln_finalize<<<(unsigned)B, 32, 0, st>>>(partial, D, nsplit, stats);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (rc == 0) {
        ln_normalize<<<(unsigned)(B * chunks), THREADS, 0, st>>>((const float4 *)x->data, stats,
                                                                (const float4 *)w->data, (const float4 *)b->data, B,
                                                                D4, (float4 *)y->data);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(scratch, st) != cudaSuccess)
        rc = 2;
    return rc;
}
