/*
 * demo-naive, level1/098_kldiv_loss, sample s0:
 * F.kl_div(torch.log(predictions), targets, reduction='batchmean').
 * predictions, targets: same-shape fp32 (16384 x 16384 probability rows on the standard
 * inputs) -> 0-dim fp32:
 *   loss = sum_i (xlogy(t_i, t_i) - t_i * log(p_i)) / predictions.shape[0]
 * with PyTorch's terms: xlogy(t, t) = 0 where t == 0 (NaN where t is NaN), log(p) in float,
 * the difference in float; log(0) = -inf gives an inf / NaN loss, as in PyTorch.
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
 * Napkin math (2^28 elements): 2.1 GB read once (~0.5 ms at ~4.3 TB/s) plus two logf per
 * element (~2^29 logf, ~20 instructions each: ~0.2 ms of issue, mostly hidden under the
 * loads); expect ~0.6 ms, against eager PyTorch's 2.75 ms (five kernels, four 1 GiB
 * temporaries).
 * Accuracy: the row sums of t log t and t log p (~ -9.7 each) nearly cancel (KL ~0.1 per row),
 * so the float terms' rounding sets the error (~1e-7 of sum |terms|, far below the loss); the
 * double sum adds nothing visible.
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

static __device__ __forceinline__ float xlogy(float x, float y)
{
    if (isnan(y))
        return NAN;
    if (x == 0.0f)
        return 0.0f;
    return x * logf(y);
}

static __device__ __forceinline__ float term(float p, float t)
{
    return xlogy(t, t) - t * logf(p);
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
    if (a->ndim < 1) /* batchmean divides by input.size(0) */
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
    final_sum<<<1, FINAL_THREADS, 0, st>>>(partial, nblocks, 1.0 / (double)a->shape[0], (float *)out->data);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
done:
    if (cudaFreeAsync(partial, st) != cudaSuccess)
        rc = 2;
    return rc;
}
