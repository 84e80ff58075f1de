/*
 * demo-naive, level1/034_instancenorm, sample s0: nn.InstanceNorm2d(C) forward (affine=False, no
 * running statistics): x (N,C,H,W) -> y, each (n, c) plane normalised by its own statistics:
 *   y = (x - mean) / sqrt(var + 1e-5), var the biased variance over the plane's H*W values.
 *
 * Two kernels on args->stream:
 *   1. plane_stats: one block per (n, c) plane of H*W contiguous floats; every thread
 *      accumulates sum and sum of squares in DOUBLE (float4 loads when aligned), block-reduced in
 *      double; thread 0 writes {mean, 1/sqrt(var + eps)} (var = E[x^2] - mean^2 in double,
 *      clamped at 0) to a float2 per plane;
 *   2. normalize: grid (plane, chunk of 1024 elements), y = (x - mean) * invstd.
 * Scratch: N*C*8 bytes (56 KiB here), stream-ordered (cudaMallocAsync/cudaFreeAsync).
 *
 * Napkin math (112 x 64 x 512 x 512 = 1.88e9 elements, 7.5 GB): read x twice + write y once =
 * 22.5 GB, ~5.3 ms at ~4.3 TB/s (eager PyTorch: 8.45 ms with its one-division-per-element Welford).
 * 3.8e9 double adds/FMAs are far under the H200's FP64 rate.
 * Accuracy: double sums; the only fp32 rounding is in the final (x - mean) * invstd: ~1e-7 relative.
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

/* stats[plane] = {mean, 1/sqrt(var + eps)} of the hw elements of plane. vec: hw % 4 == 0 and x
 * 16-byte aligned, so every plane starts on a 16-byte boundary. */
static __global__ void __launch_bounds__(THREADS)
plane_stats(const float *__restrict__ x, int64_t hw, int vec, float2 *__restrict__ stats)
{
    __shared__ double sm[WARPS];
    const float *p = x + (int64_t)blockIdx.x * hw;
    double s = 0.0, q = 0.0;
    if (vec) {
        const float4 *p4 = reinterpret_cast<const float4 *>(p);
        for (int64_t i = threadIdx.x; i < hw / 4; i += THREADS) {
            const float4 v = p4[i];
            s += (double)v.x + (double)v.y + (double)v.z + (double)v.w;
            q += (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z + (double)v.w * v.w;
        }
    } else {
        for (int64_t i = threadIdx.x; i < hw; i += THREADS) {
            const double v = (double)p[i];
            s += v;
            q += v * v;
        }
    }
    s = block_sum(s, sm);
    q = block_sum(q, sm);
    if (threadIdx.x == 0) {
        const double mean = s / (double)hw;
        double var = q / (double)hw - mean * mean;
        if (var < 0.0)
            var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative */
        stats[blockIdx.x] = make_float2((float)mean, (float)(1.0 / sqrt(var + EPS)));
    }
}

/* blockIdx.x = plane (n*C + c), blockIdx.y = chunk of THREADS*NORM_PER_THREAD elements. */
static __global__ void __launch_bounds__(THREADS)
normalize(const float *__restrict__ x, const float2 *__restrict__ stats, int64_t hw, float *__restrict__ y)
{
    const int64_t plane = blockIdx.x;
    const float mean = stats[plane].x, invstd = stats[plane].y;
    const int64_t base = plane * hw;
    const int64_t i0 = (int64_t)blockIdx.y * (THREADS * NORM_PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < NORM_PER_THREAD; k++) {
        const int64_t i = i0 + k * THREADS;
        if (i < hw)
            y[base + i] = (x[base + i] - mean) * invstd;
    }
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 4 || y->ndim != 4)
        return 1;
    for (int d = 0; d < 4; d++)
        if (x->shape[d] != y->shape[d])
            return 1;
    const int64_t planes = x->shape[0] * x->shape[1], HW = x->shape[2] * x->shape[3];
    if (planes <= 0 || HW <= 0)
        return 1;
    const int64_t chunks = (HW + THREADS * NORM_PER_THREAD - 1) / (THREADS * NORM_PER_THREAD);
    if (planes > 0x7fffffff || chunks > 65535) /* gridDim.x and gridDim.y limits */
        return 1;
    const int vec = HW % 4 == 0 && (uintptr_t)x->data % 16 == 0;

    cudaStream_t st = args->stream;
    float2 *stats = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&stats, (size_t)planes * sizeof(float2), st) != cudaSuccess)
        return 2;
    plane_stats<<<(unsigned)planes, THREADS, 0, st>>>((const float *)x->data, HW, vec, stats);
    if (cudaGetLastError() != cudaSuccess) {
        rc = 2;
    } else {
        normalize<<<dim3((unsigned)planes, (unsigned)chunks), THREADS, 0, st>>>((const float *)x->data, stats, HW,
                                                                               (float *)y->data);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(stats, st) != cudaSuccess)
        rc = 2;
    return rc;
}
