/*
 * demo-naive, level1/100_hinge_loss, sample s0:
 * torch.mean(torch.clamp(1 - predictions * targets, min=0)).
 * predictions (R, D) fp32, targets (D) fp32 (-1 / +1 on the standard inputs, 32768 x 32768)
 * -> 0-dim fp32. targets broadcast along the LAST dimension, as PyTorch broadcasts a 1-d
 * tensor: element (r, j) uses targets[j]:
 *   loss = sum_{r,j} max(1 - p[r, j] * t[j], 0) / (R * D), each term in float (NaN kept, as
 *   clamp_min keeps it).
 *
 * Two kernels on args->stream, deterministic (no atomics, fixed order for a given shape):
 *   1. partial_sum: min(ceil(n / 1024), 1024) blocks of 256 threads walk predictions as float4
 *      (grid-stride, 64-bit indices) when D % 4 == 0 and both pointers are 16-byte aligned (the
 *      four elements then share a row and take targets[j .. j+3] as one float4; targets, 128
 *      KiB, stay in L2); otherwise one element at a time with j = i % D. Each thread adds its
 *      terms in DOUBLE (2^30 terms); one double partial per block.
 *   2. final_sum: one block of 1024 threads adds the <= 1024 partials in a fixed tree.
 * Scratch: <= 8 KiB of partials, stream-ordered; nothing is kept across calls.
 *
 * Napkin math (2^30 elements): 4.3 GB of predictions read once (~1.0 ms at ~4.3 TB/s); expect
 * ~1.1 ms, against eager PyTorch's 8.12 ms (four kernels, three 4 GiB temporaries).
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

static __device__ __forceinline__ float term(float p, float t)
{
    const float m = 1.0f - p * t;
    return isnan(m) ? m : fmaxf(m, 0.0f);
}

static __global__ void __launch_bounds__(THREADS)
partial_sum(const float *__restrict__ p, const float *__restrict__ t, int64_t n, int64_t D, int vec,
            double *__restrict__ partial)
{
    __shared__ double sm[WARPS];
    const int64_t tid = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    const int64_t step = (int64_t)gridDim.x * THREADS;
    double acc = 0.0;
    if (vec) {
        const float4 *p4 = reinterpret_cast<const float4 *>(p);
        const float4 *t4 = reinterpret_cast<const float4 *>(t);
        const int64_t nvec = n / 4, dvec = D / 4;
        for (int64_t i = tid; i < nvec; i += step) {
            const float4 u = p4[i], v = t4[i % dvec];
            acc += (double)term(u.x, v.x);
            acc += (double)term(u.y, v.y);
            acc += (double)term(u.z, v.z);
            acc += (double)term(u.w, v.w);
        }
    } else {
        for (int64_t i = tid; i < n; i += step)
            acc += (double)term(p[i], t[i % D]);
    }
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
    const kb_input *p = &args->inputs[0], *t = &args->inputs[1];
    const kb_output *out = &args->outputs[0];
    if (p->dtype != KB_F32 || t->dtype != KB_F32 || out->dtype != KB_F32 || out->ndim != 0)
        return 1;
    if (p->ndim != 2 || t->ndim != 1 || t->shape[0] != p->shape[1]) /* (R, D) * (D,) */
        return 1;
    const int64_t D = p->shape[1], n = p->shape[0] * D;
    if (n <= 0)
        return 1;
    const int vec = D % 4 == 0 && (((uintptr_t)p->data | (uintptr_t)t->data) % 16) == 0;
    const int nblocks = blocks_for(n);

    cudaStream_t st = args->stream;
    double *partial = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&partial, (size_t)nblocks * sizeof(double), st) != cudaSuccess)
        return 2;
    partial_sum<<<nblocks, THREADS, 0, st>>>((const float *)p->data, (const float *)t->data, n, D, vec, partial);
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
