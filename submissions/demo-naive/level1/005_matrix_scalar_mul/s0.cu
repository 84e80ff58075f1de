/*
 * demo-naive, level1/005_matrix_scalar_mul, sample s0: C = A * s, A (M, N) fp32, s a 0-d fp32
 * tensor (the harness passes KernelBench's Python float 3.14 as a device scalar).
 *
 * Design: s is read on the device by every thread (one cached 4-byte load; reading it on the
 * host would need a synchronisation); A and C move as float4 when 16-byte aligned, else one
 * element per thread; 256 threads per block, grid-stride loop, 64-bit indices.
 * Napkin math (65536 x 16384): 4.29 GB read + 4.29 GB written = 8.6 GB; ~2.0 ms at ~4.3 TB/s;
 * eager PyTorch takes 2.05 ms on the H200.
 * Accuracy: one float multiply per element, as eager: bitwise equal.
 *
 * Build (the compile stage's command, hidden visibility so only kb_forward is exported):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s0.cu
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, dtype,
 * shape); 2 a CUDA call failed.
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define THREADS 256

static __global__ void vec4_kernel(const float4 *__restrict__ a, const float *__restrict__ s, float4 *__restrict__ c,
                                   int64_t nvec)
{
    const float k = *s;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += step) {
        float4 v = a[i];
        v.x *= k;
        v.y *= k;
        v.z *= k;
        v.w *= k;
        c[i] = v;
    }
}

static __global__ void scalar_kernel(const float *__restrict__ a, const float *__restrict__ s, float *__restrict__ c,
                                     int64_t begin, int64_t n)
{
    const float k = *s;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        c[i] = a[i] * k;
}

static unsigned grid_for(int64_t work)
{
    int64_t b = (work + THREADS - 1) / THREADS;
    if (b < 1)
        b = 1;
    if (b > 0x7fffffff)
        b = 0x7fffffff;
    return (unsigned)b;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 2 || args->n_outputs != 1)
        return 1;
    const kb_input *A = &args->inputs[0];
    const kb_input *s = &args->inputs[1];
    const kb_output *C = &args->outputs[0];
    if (A->dtype != KB_F32 || s->dtype != KB_F32 || C->dtype != KB_F32 || kb_input_numel(s) != 1)
        return 1;
    if (A->ndim != C->ndim)
        return 1;
    for (int32_t d = 0; d < A->ndim; d++)
        if (A->shape[d] != C->shape[d])
            return 1;
    const int64_t n = kb_input_numel(A);
    if (n <= 0)
        return n == 0 ? 0 : 1;
    const float *ap = (const float *)A->data;
    const float *sp = (const float *)s->data;
    float *cp = (float *)C->data;
    int64_t done = 0;
    if ((((uintptr_t)ap | (uintptr_t)cp) & 15) == 0) {
        const int64_t nvec = n / 4;
        if (nvec > 0) {
            vec4_kernel<<<grid_for(nvec), THREADS, 0, args->stream>>>((const float4 *)ap, sp, (float4 *)cp, nvec);
            if (cudaGetLastError() != cudaSuccess)
                return 2;
        }
        done = nvec * 4;
    }
    if (done < n) {
        scalar_kernel<<<grid_for(n - done), THREADS, 0, args->stream>>>(ap, sp, cp, done, n);
        if (cudaGetLastError() != cudaSuccess)
            return 2;
    }
    return 0;
}
