/*
 * demo-naive, level1/037_frobenius_norm, sample s0: y = x / ||x||_F for x of any shape, fp32.
 *
 * Three kernels on args->stream:
 *   1. partial_sumsq: 1024 blocks of 256 threads, grid-stride over x (float4 loads when
 *      aligned), each thread sums squares in DOUBLE, block-reduced in double to partial[block];
 *   2. finish: one block adds the 1024 partials in a fixed order (deterministic), norm = sqrt;
 *   3. divide: y = x / norm, one float4 per thread per step, grid-stride.
 * Scratch: 1024 doubles + 1 float, stream-ordered (cudaMallocAsync/cudaFreeAsync).
 *
 * Napkin math (112 x 64 x 512 x 512 = 7.5 GB): read x twice + write y once = 22.5 GB, ~5.3 ms at
 * ~4.3 TB/s (eager PyTorch: 7.22 ms). Accuracy: double sums of 1.9e9 squares (relative error
 * ~1e-13), the norm rounded once to fp32, one fp32 division per element: ~1e-7 relative.
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
#define BLOCKS 1024

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
        v = lane < WARPS ? sm[lane] : 0.0;
        for (int off = 16; off > 0; off /= 2)
            v += __shfl_xor_sync(0xffffffffu, v, off);
    }
    return v;
}

static __global__ void __launch_bounds__(THREADS)
partial_sumsq(const float *__restrict__ x, int64_t n, int vec, double *__restrict__ partial)
{
    __shared__ double sm[WARPS];
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    const int64_t t = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    double q = 0.0;
    int64_t tail = 0;
    if (vec) {
        const float4 *x4 = reinterpret_cast<const float4 *>(x);
        for (int64_t i = t; i < n / 4; i += stride) {
            const float4 v = x4[i];
            q += (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z + (double)v.w * v.w;
        }
        tail = n / 4 * 4;
    }
    for (int64_t i = tail + t; i < n; i += stride) {
        const double v = x[i];
        q += v * v;
    }
    q = block_sum(q, sm);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = q;
}

static __global__ void __launch_bounds__(THREADS)
finish(const double *__restrict__ partial, int nparts, float *__restrict__ norm)
{
    __shared__ double sm[WARPS];
    double q = 0.0;
    for (int i = threadIdx.x; i < nparts; i += THREADS)
        q += partial[i];
    q = block_sum(q, sm);
    if (threadIdx.x == 0)
        *norm = (float)sqrt(q);
}

static __global__ void __launch_bounds__(THREADS)
divide(const float *__restrict__ x, const float *__restrict__ norm, int64_t n, int vec, float *__restrict__ y)
{
    const float d = *norm;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    const int64_t t = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    int64_t tail = 0;
    if (vec) {
        const float4 *x4 = reinterpret_cast<const float4 *>(x);
        float4 *y4 = reinterpret_cast<float4 *>(y);
        for (int64_t i = t; i < n / 4; i += stride) {
            float4 v = x4[i];
            v.x /= d;
            v.y /= d;
            v.z /= d;
            v.w /= d;
            y4[i] = v;
        }
        tail = n / 4 * 4;
    }
    for (int64_t i = tail + t; i < n; i += stride)
        y[i] = x[i] / d;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != y->ndim || x->ndim < 1)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < x->ndim; d++) {
        if (x->shape[d] != y->shape[d])
            return 1;
        n *= x->shape[d];
    }
    if (n <= 0)
        return 1;
    const int vec = (uintptr_t)x->data % 16 == 0 && (uintptr_t)y->data % 16 == 0;

    cudaStream_t st = args->stream;
    double *partial = NULL;
    float *norm = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&partial, BLOCKS * sizeof(double) + 16, st) != cudaSuccess)
        return 2;
    norm = (float *)(partial + BLOCKS);
    partial_sumsq<<<BLOCKS, THREADS, 0, st>>>((const float *)x->data, n, vec, partial);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
    if (rc == 0) {
        finish<<<1, THREADS, 0, st>>>(partial, BLOCKS, norm);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (rc == 0) {
        divide<<<132 * 8, THREADS, 0, st>>>((const float *)x->data, norm, n, vec, (float *)y->data);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(partial, st) != cudaSuccess)
        rc = 2;
    return rc;
}
