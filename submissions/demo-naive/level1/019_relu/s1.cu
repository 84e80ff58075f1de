/*
 * demo-naive, level1/019_relu, sample s1: y = relu(x) = max(x, 0), any shape, fp32; float4 version.
 *
 * Launch geometry like PyTorch's vectorised elementwise kernels: one float4 (LDG.128/STG.128) per
 * thread, a scalar tail for n mod 4, and a fully scalar path for pointers that are not 16-byte
 * aligned. 64-bit indices. NaN propagates as in torch.relu (x < 0 is false for NaN, so y = x).
 *
 * Napkin math (4096 x 393216): 6.44 GB read + 6.44 GB written = 12.9 GB; at ~4.3 TB/s that is
 * 3.0 ms. Four times the bytes in flight per thread of s0: measured 3.06 ms on an H200 (s0
 * 4.76 ms, eager PyTorch 3.04 ms).
 *
 * Build (the compile stage's command, hidden visibility so only kb_forward is exported):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s1.cu
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, dtype,
 * shape); 2 a CUDA call failed.
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define THREADS 256

static __device__ __forceinline__ float relu1(float v) { return v < 0.0f ? 0.0f : v; }

/* Thread i < n4 handles float4 number i; threads n4 .. n4 + (n - 4*n4) - 1 handle the scalar
 * tail (all n elements, one per thread, when the pointers are not 16-byte aligned). */
static __global__ void __launch_bounds__(THREADS)
relu_vec4(const float *__restrict__ x, float *__restrict__ y, int64_t n4, int64_t n)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4 *>(x)[i];
        v.x = relu1(v.x);
        v.y = relu1(v.y);
        v.z = relu1(v.z);
        v.w = relu1(v.w);
        reinterpret_cast<float4 *>(y)[i] = v;
    } else {
        const int64_t j = 4 * n4 + (i - n4);
        if (j < n)
            y[j] = relu1(x[j]);
    }
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

    /* Vectorise only when both buffers are 16-byte aligned (cudaMalloc gives 256). */
    const int aligned = ((uintptr_t)x->data % 16 == 0) && ((uintptr_t)y->data % 16 == 0);
    const int64_t n4 = aligned ? n / 4 : 0;
    const int64_t work = n4 + (n - 4 * n4);
    const int64_t blocks = (work + THREADS - 1) / THREADS;
    if (blocks > 0x7fffffff) /* gridDim.x limit: 2^31 - 1 blocks, 2.2e12 elements */
        return 1;

    relu_vec4<<<(unsigned)blocks, THREADS, 0, args->stream>>>((const float *)x->data, (float *)y->data, n4, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
