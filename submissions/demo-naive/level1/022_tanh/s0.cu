/*
 * demo-naive, level1/022_tanh, sample s0: y = tanh(x), any shape, fp32.
 *
 * Design: one fused elementwise pass (whatever eager does in several kernels, this does in one),
 * 4 elements per thread as one float4 when x and y are 16-byte aligned (scalar tail), else
 * one element per thread; 256 threads per block, grid-stride loop, 64-bit indices.
 * Napkin math (4096, 393216): 6.44 GB read + 6.44 GB written = 12.9 GB; ~3.1 ms at ~4.2 TB/s; eager PyTorch takes 3.07 ms on the H200.
 * Accuracy: tanhf, eager's function: bitwise equal.
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

static __device__ __forceinline__ float f(float x)
{
    return tanhf(x);
}

static __global__ void vec4_kernel(const float4 *__restrict__ x, float4 *__restrict__ y, int64_t nvec)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += step) {
        float4 v = x[i];
        v.x = f(v.x);
        v.y = f(v.y);
        v.z = f(v.z);
        v.w = f(v.w);
        y[i] = v;
    }
}

static __global__ void scalar_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t begin, int64_t n)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = f(x[i]);
}

static int same_shape(const kb_input *in, const kb_output *out)
{
    if (in->ndim != out->ndim)
        return 0;
    for (int32_t d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return 0;
    return 1;
}

static unsigned grid_for(int64_t work)
{
    int64_t b = (work + THREADS - 1) / THREADS;
    if (b < 1)
        b = 1;
    if (b > 0x7fffffff)
        b = 0x7fffffff; /* the grid-stride loop covers the rest */
    return (unsigned)b;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || !same_shape(x, y))
        return 1;
    const int64_t n = kb_input_numel(x);
    if (n <= 0)
        return n == 0 ? 0 : 1;
    const float *xp = (const float *)x->data;
    float *yp = (float *)y->data;
    int64_t done = 0;
    if ((((uintptr_t)xp | (uintptr_t)yp) & 15) == 0) {
        const int64_t nvec = n / 4;
        if (nvec > 0) {
            vec4_kernel<<<grid_for(nvec), THREADS, 0, args->stream>>>((const float4 *)xp, (float4 *)yp, nvec);
            if (cudaGetLastError() != cudaSuccess)
                return 2;
        }
        done = nvec * 4;
    }
    if (done < n) {
        scalar_kernel<<<grid_for(n - done), THREADS, 0, args->stream>>>(xp, yp, done, n);
        if (cudaGetLastError() != cudaSuccess)
            return 2;
    }
    return 0;
}
