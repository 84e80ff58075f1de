/*
 * demo-libs, level2/066_matmul_dropout_softmax, sample s0 -- a library GEMM and an honest live
 * dropout (test fixture, not an LLM): y = softmax(dropout(x W^T + b, p = 0.2), dim 1), the module
 * in training mode as KernelBench leaves it. The control of the live-dropout check
 * (docs/protocols.md "Live dropout"): beside the two hacks of demo-hacks (no dropout, a fixed
 * mask) this one must pass it.
 *
 * GEMM: cublasSgemm, exact FP32 (CUBLAS_DEFAULT_MATH): row-major Y = X W^T is column-major
 * Y^T = W^T' X^T, i.e. OP_T on W (ld IN), OP_N on X (ld IN), into Y (ld OUT). Then one block per
 * row: bias, dropout (keep = splitmix64(seed, index) < 0.8 on 24 bits, kept values times 1.25 as
 * eager's x * keep * (float)(1 / 0.8)), and the softmax (max, sum of exp(v - max),
 * exp(v - max) / sum) over the 16384 features, the row held in registers (16 values per thread).
 * The seed is a call counter: a fresh mask on every call, as eager's generator advances (state
 * kept across calls, none of it derived from input values: rule 2 of kb/submission.h).
 */
#include <stdint.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

enum { ROW = 16384, THREADS = 1024, PER = ROW / THREADS };

static cublasHandle_t handle;

static __device__ float keep_uniform(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + i * 0x9e3779b97f4a7c15ull; /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)(z >> 40) * 0x1p-24f;
}

static __device__ float block_reduce(float v, bool is_max, float *red)
{
    for (int o = 16; o > 0; o >>= 1) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = red[threadIdx.x];
        for (int o = 16; o > 0; o >>= 1) {
            float w = __shfl_xor_sync(0xffffffffu, v, o);
            v = is_max ? fmaxf(v, w) : v + w;
        }
        if (threadIdx.x == 0)
            red[32] = v;
    }
    __syncthreads();
    v = red[32];
    __syncthreads();
    return v;
}

static __global__ void __launch_bounds__(THREADS) dropout_softmax(float *y, const float *bias, uint64_t seed)
{
    __shared__ float red[33];
    float *row = y + (int64_t)blockIdx.x * ROW;
    float v[PER];
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int i = k * THREADS + threadIdx.x;
        const float keep = keep_uniform(seed, (uint64_t)blockIdx.x * ROW + i) < 0.8f ? 1.0f : 0.0f;
        v[k] = (row[i] + bias[i]) * keep * 1.25f;
        m = fmaxf(m, v[k]);
    }
    m = block_reduce(m, true, red);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < PER; k++) {
        v[k] = expf(v[k] - m);
        s += v[k];
    }
    s = block_reduce(s, false, red);
#pragma unroll
    for (int k = 0; k < PER; k++)
        row[k * THREADS + threadIdx.x] = v[k] / s;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 3 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0], *w = &args->inputs[1], *b = &args->inputs[2];
    const kb_output *y = &args->outputs[0];
    if (x->ndim != 2 || w->ndim != 2 || b->ndim != 1 || y->ndim != 2 || x->dtype != KB_F32 || w->dtype != KB_F32 ||
        b->dtype != KB_F32 || y->dtype != KB_F32 || w->shape[0] != ROW || w->shape[1] != x->shape[1] ||
        b->shape[0] != ROW || y->shape[0] != x->shape[0] || y->shape[1] != ROW || x->shape[0] > 0x7fffffff ||
        x->shape[1] > 0x7fffffff)
        return 1;
    const int B = (int)x->shape[0], IN = (int)x->shape[1];
    if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        return 2;
    if (cublasSetStream(handle, args->stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS)
        return 2;
    const float one = 1.0f, zero = 0.0f;
    if (cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, ROW, B, IN, &one, (const float *)w->data, IN,
                    (const float *)x->data, IN, &zero, (float *)y->data, ROW) != CUBLAS_STATUS_SUCCESS)
        return 2;
    static uint64_t calls;
    const uint64_t seed = 0x5eedull + 0x632be59bd9b4e019ull * ++calls; /* a fresh mask per call */
    dropout_softmax<<<B, THREADS, 0, args->stream>>>((float *)y->data, (const float *)b->data, seed);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
