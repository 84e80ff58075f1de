/*
 * demo-naive, level1/096_huber_loss, sample s0: F.smooth_l1_loss(predictions, targets) with the
 * defaults (beta = 1, reduction='mean').
 * predictions, targets: same-shape fp32 (32768 x 32768 on the standard inputs) -> 0-dim fp32:
 *   loss = mean_i (z_i < 1 ? 0.5 z_i^2 : z_i - 0.5), z_i = |p_i - t_i|, each term in float
 *   with PyTorch's formula (0.5 * z * z / beta).
 *
 * Two kernels on args->stream, deterministic (no atomics, fixed order for a given n):
 *   1. partial_sum: min(ceil(n / 1024), 1024) blocks of 256 threads walk the inputs as float4
 *      (grid-stride, 64-bit indices; a scalar loop takes the remainder and unaligned inputs),
 *      each thread adding its terms, computed in float as PyTorch does, in DOUBLE (2^30 terms
 *      in a float running sum would lose ~1e-4 relative); one double partial per block.
 *   2. final_sum: one block of 1024 threads adds the <= 1024 partials in a fixed tree and
 *      writes the float result.
 * Scratch: <= 8 KiB of partials, stream-ordered; nothing is kept across calls.
 *
 * Napkin math (2^30 elements): 8.6 GB read once (~2.0 ms at ~4.3 TB/s); expect ~2.1 ms, against
 * eager PyTorch's 3.93 ms (the loss tensor is materialised, then averaged).
 * Accuracy: terms as PyTorch's to float rounding; the double sum adds ~1e-16 relative.
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
#define MAX_BLOCKS 1024 /* ~one resident wave on an H200 (132 SMs x 8 blocks of 256) */
#define FINAL_THREADS 1024

/* Block-wide double sum in a fixed order (shuffles, then warp 0 over the WARPS slots); the
 * result is valid in thread 0. All THREADS threads must call it. */
static __device__ double block_sum(double v, double *sm)
{
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    double s = 0.0;
    if (threadIdx.x == 0)
        for (int w = 0; w < WARPS; w++)
            s += sm[w];
    return s;
}

#define BETA 1.0f

static __device__ __forceinline__ float term(float p, float t)
{
    const float z = fabsf(p - t);
    return z < BETA ? 0.5f * z * z / BETA : z - 0.5f * BETA;
}

/* Stage 1: grid-stride over float4s of both inputs (when both are 16-byte aligned), then the
 * scalar remainder; each thread accumulates its terms in double; one partial per block. */
static __global__ void __launch_bounds__(THREADS)
partial_sum(const float *__restrict__ a, const float *__restrict__ b, int64_t n, int64_t nvec,
            double *__restrict__ partial)
{
    __shared__ double sm[WARPS];
    const int64_t tid = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    const int64_t step = (int64_t)gridDim.x * THREADS;
    double acc = 0.0;
    const float4 *a4 = reinterpret_cast<const float4 *>(a);
    const float4 *b4 = reinterpret_cast<const float4 *>(b);
    for (int64_t i = tid; i < nvec; i += step) {
        const float4 u = a4[i], v = b4[i];
        acc += (double)term(u.x, v.x);
        acc += (double)term(u.y, v.y);
        acc += (double)term(u.z, v.z);
        acc += (double)term(u.w, v.w);
    }
    for (int64_t i = 4 * nvec + tid; i < n; i += step)
        acc += (double)term(a[i], b[i]);
    const double s = block_sum(acc, sm);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s;
}

/* Stage 2: one block adds the per-block partials in a fixed order and writes sum * scale. */
static __global__ void __launch_bounds__(FINAL_THREADS)
final_sum(const double *__restrict__ partial, int nblocks, double scale, float *__restrict__ out)
{
    __shared__ double sm[FINAL_THREADS];
    double v = 0.0;
    for (int i = threadIdx.x; i < nblocks; i += FINAL_THREADS)
        v += partial[i];
    sm[threadIdx.x] = v;
    __syncthreads();
    for (int half = FINAL_THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            sm[threadIdx.x] += sm[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[0] = (float)(sm[0] * scale);
}

static int blocks_for(int64_t n)
{
    int64_t b = (n + 4 * THREADS - 1) / (4 * THREADS);
    if (b < 1)
        b = 1;
    return b > MAX_BLOCKS ? MAX_BLOCKS : (int)b;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 2 || args->n_outputs != 1)
        return 1;
    const kb_input *a = &args->inputs[0], *b = &args->inputs[1];
    const kb_output *out = &args->outputs[0];
    if (a->dtype != KB_F32 || b->dtype != KB_F32 || out->dtype != KB_F32 || out->ndim != 0)
        return 1;
    if (a->ndim != b->ndim)
        return 1;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return 1;
    const int64_t n = kb_input_numel(a);
    if (n <= 0)
        return 1;
    const int aligned = (((uintptr_t)a->data | (uintptr_t)b->data) % 16) == 0;
    const int64_t nvec = aligned ? n / 4 : 0;
    const int nblocks = blocks_for(n);

    cudaStream_t st = args->stream;
    double *partial = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&partial, (size_t)nblocks * sizeof(double), st) != cudaSuccess)
        return 2;
    partial_sum<<<nblocks, THREADS, 0, st>>>((const float *)a->data, (const float *)b->data, n, nvec, partial);
    if (cudaGetLastError() != cudaSuccess) {
        rc = 2;
        goto done;
    }
    final_sum<<<1, FINAL_THREADS, 0, st>>>(partial, nblocks, 1.0 / (double)n, (float *)out->data);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
done:
    if (cudaFreeAsync(partial, st) != cudaSuccess)
        rc = 2;
    return rc;
}
