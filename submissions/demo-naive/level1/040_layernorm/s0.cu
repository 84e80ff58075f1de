/*
 * demo-naive, level1/040_layernorm, sample s0: LayerNorm over the last 3 dims.
 * x (B, D0, D1, D2), weight (D0, D1, D2), bias (D0, D1, D2) -> y (B, D0, D1, D2); with
 * D = D0*D1*D2 each of the B rows is normalised on its own:
 *   y[r, j] = (x[r, j] - mean_r) / sqrt(var_r + 1e-5) * weight[j] + bias[j]  (biased variance).
 *
 * A row here is 4.2M elements, so one block per row (PyTorch's launch, 16 blocks on 132 SMs)
 * leaves the GPU idle. Instead, several blocks per row, two passes:
 *   1. row_partials: grid (SPLITS, B); each block sums its slice of a row and the squares, in
 *      DOUBLE (4.2M-element sums in float would lose digits), into partial[r*SPLITS + s];
 *   2. row_stats: one block per row adds the SPLITS partials (double) -> mean, 1/sqrt(var + eps);
 *   3. normalize: grid (chunks of the row, B), y = (x - mean) * rstd * weight + bias in float.
 * Scratch: B*SPLITS*16 + B*8 bytes (64 KiB here), stream-ordered; nothing kept across calls.
 *
 * Napkin math (16 x 64 x 256 x 256 = 67M elements, 268 MB): x read twice (the second read partly
 * from the 50 MB L2), weight and bias (16.8 MB each) re-read per row mostly from L2, y written
 * once: ~0.8-1.1 GB of DRAM traffic, 0.2-0.25 ms at ~4.3 TB/s; with three launches expect ~0.3 ms.
 * Measured on an H200: 0.40 ms (eager PyTorch's one-block-per-row kernel: 8.18 ms).
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
#define SPLITS 256         /* blocks per row in the statistics pass */
#define NORM_PER_THREAD 4  /* normalize: each block covers THREADS * NORM_PER_THREAD elements */
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

/* Block (s, r) sums elements [s*slice, min((s+1)*slice, D)) of row r. */
static __global__ void __launch_bounds__(THREADS)
row_partials(const float *__restrict__ x, int64_t D, int64_t slice, double2 *__restrict__ partial)
{
    __shared__ double sm[WARPS];
    const int64_t r = blockIdx.y;
    const int64_t begin = (int64_t)blockIdx.x * slice;
    const int64_t end = begin + slice < D ? begin + slice : D;
    const float *xr = x + r * D;
    double s = 0.0, q = 0.0;
#pragma unroll 4
    for (int64_t j = begin + threadIdx.x; j < end; j += THREADS) {
        double v = (double)xr[j];
        s += v;
        q += v * v;
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0)
        partial[r * SPLITS + blockIdx.x] = make_double2(s, q);
}

/* stats[r] = {mean, 1/sqrt(var + eps)} of row r. */
static __global__ void __launch_bounds__(THREADS)
row_stats(const double2 *__restrict__ partial, int64_t D, float2 *__restrict__ stats)
{
    __shared__ double sm[WARPS];
    const int64_t r = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (int i = threadIdx.x; i < SPLITS; i += THREADS) {
        double2 pq = partial[r * SPLITS + i];
        s += pq.x;
        q += pq.y;
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0) {
        const double mean = s / (double)D;
        double var = q / (double)D - mean * mean;
        if (var < 0.0)
            var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative */
        stats[r] = make_float2((float)mean, (float)(1.0 / sqrt(var + EPS)));
    }
}

/* blockIdx.x = chunk of THREADS*NORM_PER_THREAD elements of the row, blockIdx.y = row. */
static __global__ void __launch_bounds__(THREADS)
normalize(const float *__restrict__ x, const float2 *__restrict__ stats, const float *__restrict__ weight,
          const float *__restrict__ bias, int64_t D, float *__restrict__ y)
{
    const int64_t r = blockIdx.y;
    const float mean = stats[r].x, rstd = stats[r].y;
    const int64_t j0 = (int64_t)blockIdx.x * (THREADS * NORM_PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < NORM_PER_THREAD; k++) {
        int64_t j = j0 + k * THREADS;
        if (j < D)
            y[r * D + j] = (x[r * D + j] - mean) * rstd * weight[j] + bias[j];
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
    if (x->ndim != 4 || y->ndim != 4 || w->ndim != 3 || b->ndim != 3)
        return 1;
    for (int d = 0; d < 4; d++)
        if (x->shape[d] != y->shape[d])
            return 1;
    for (int d = 0; d < 3; d++)
        if (w->shape[d] != x->shape[d + 1] || b->shape[d] != x->shape[d + 1])
            return 1;
    const int64_t B = x->shape[0], D = x->shape[1] * x->shape[2] * x->shape[3];
    if (B <= 0 || D <= 0)
        return 1;
    const int64_t slice = (D + SPLITS - 1) / SPLITS;
    const int64_t chunks = (D + THREADS * NORM_PER_THREAD - 1) / (THREADS * NORM_PER_THREAD);
    if (B > 65535 || chunks > 0x7fffffff) /* gridDim.y and gridDim.x limits */
        return 1;

    cudaStream_t st = args->stream;
    double2 *partial = NULL;
    float2 *stats = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&partial, (size_t)(B * SPLITS) * sizeof(double2), st) != cudaSuccess)
        return 2;
    if (cudaMallocAsync((void **)&stats, (size_t)B * sizeof(float2), st) != cudaSuccess) {
        cudaFreeAsync(partial, st);
        return 2;
    }

    row_partials<<<dim3(SPLITS, (unsigned)B), THREADS, 0, st>>>((const float *)x->data, D, slice, partial);
    if (cudaGetLastError() != cudaSuccess) {
        rc = 2;
        goto done;
    }
    row_stats<<<(unsigned)B, THREADS, 0, st>>>(partial, D, stats);
    if (cudaGetLastError() != cudaSuccess) {
        rc = 2;
        goto done;
    }
    normalize<<<dim3((unsigned)chunks, (unsigned)B), THREADS, 0, st>>>(
        (const float *)x->data, stats, (const float *)w->data, (const float *)b->data, D, (float *)y->data);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
done:
    if (cudaFreeAsync(stats, st) != cudaSuccess)
        rc = 2;
    if (cudaFreeAsync(partial, st) != cudaSuccess)
        rc = 2;
    return rc;
}
