/*
 * demo-naive, level1/019_relu, sample s0: y = relu(x) = max(x, 0), any shape, fp32.
 *
 * One element per thread, 64-bit index (x has 1.6e9 elements; a tensor of this family may exceed
 * 2^31). NaN propagates as in torch.relu (x < 0 is false for NaN, so y = x).
 *
 * Napkin math (4096 x 393216): 6.44 GB read + 6.44 GB written = 12.9 GB; at ~4.3 TB/s that is
 * 3.0 ms. With one 4-byte load per thread too few bytes are in flight per SM to reach that:
 * measured 4.76 ms on an H200 (s1's float4 version 3.06 ms, eager PyTorch 3.04 ms). It is kept
 * as the plain first version so that best-of-N selection has a slower correct sample.
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

static __global__ void relu_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t n)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v < 0.0f ? 0.0f : v;
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
    const int64_t blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 0x7fffffff) /* gridDim.x limit: 2^31 - 1 blocks, 5.5e11 elements */
        return 1;

    relu_kernel<<<(unsigned)blocks, THREADS, 0, args->stream>>>((const float *)x->data, (float *)y->data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
