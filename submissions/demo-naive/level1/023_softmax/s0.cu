/*
 * demo-naive, level1/023_softmax, sample s0: y = softmax(x, dim=1) for x (rows, cols), fp32.
 *
 * One block per row, numerically stable: pass 1 reads the row once and keeps an "online" pair
 * per thread (running max m, running sum s of exp(x - m), rescaled whenever m grows), the pairs
 * are merged across the block; pass 2 re-reads the row and writes exp(x - max) / sum, PyTorch's
 * epilogue. expf is the full-precision one (no --use_fast_math). -inf entries contribute 0; a NaN
 * anywhere in the row makes the whole row NaN, as in PyTorch. Rows are read and written as float4
 * when cols % 4 == 0 and the pointers are 16-byte aligned, else one float at a time.
 *
 * Napkin math (4096 x 393216): a row is 1.5 MiB, so the second read misses L2 (50 MiB holds ~30
 * rows, fewer than the blocks in flight): 2 reads + 1 write = 19.3 GB, 4.5 ms at ~4.3 TB/s.
 * 2 expf per element (3.2e9 expf) hide behind memory. Measured on an H200: 4.83 ms (eager
 * PyTorch, which reads 3 times: 6.2 ms); the scalar path alone measured 7.3 ms.
 * 4096 blocks of 512 threads are ~8 waves on 132 SMs. Relative error against fp64 <= 6e-7
 * measured on the x1, x-1, x3 and x0.01 distributions.
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

#define THREADS 512
#define WARPS (THREADS / 32)

/* Merge the pair (m2, s2) into (m, s): both are "sum of exp(v - m) over the values seen". An
 * empty side has m = -inf, s = 0; the guard keeps -inf - -inf (NaN) out of the sum. */
static __device__ __forceinline__ void merge(float &m, float &s, float m2, float s2)
{
    float mx = m > m2 ? m : m2;
    if (mx == -INFINITY) {
        s = s + s2; /* both empty (or all -inf): nothing to rescale */
    } else {
        s = s * expf(m - mx) + s2 * expf(m2 - mx);
    }
    m = mx;
}

/* Add one value v to the running pair. v > m is false for NaN, so a NaN lands in the second
 * branch and poisons s (expf(NaN) = NaN), which every later merge keeps; -inf adds nothing. */
static __device__ __forceinline__ void accumulate(float &m, float &s, float v)
{
    if (v > m) {
        s = s * expf(m - v) + 1.0f; /* expf(-inf) = 0 on the first element */
        m = v;
    } else if (v != -INFINITY) {
        s += expf(v - m);
    }
}

/* vec != 0: cols % 4 == 0 and x, y 16-byte aligned, so every row can be read as float4s. */
static __global__ void __launch_bounds__(THREADS)
softmax_rows(const float *__restrict__ x, float *__restrict__ y, int64_t cols, int vec)
{
    __shared__ float sm_m[WARPS], sm_s[WARPS];
    __shared__ float row_max, row_sum;

    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *yr = y + (int64_t)blockIdx.x * cols;

    /* Pass 1: online max and sum. */
    float m = -INFINITY, s = 0.0f;
    if (vec) {
        const float4 *xr4 = reinterpret_cast<const float4 *>(xr);
#pragma unroll 2
        for (int64_t j = threadIdx.x; j < cols / 4; j += THREADS) {
            const float4 v = xr4[j];
            accumulate(m, s, v.x);
            accumulate(m, s, v.y);
            accumulate(m, s, v.z);
            accumulate(m, s, v.w);
        }
    } else {
#pragma unroll 4
        for (int64_t j = threadIdx.x; j < cols; j += THREADS)
            accumulate(m, s, xr[j]);
    }

    /* Block merge: warp shuffles, then one warp over the per-warp pairs. */
    for (int off = 16; off > 0; off /= 2) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, off);
        float s2 = __shfl_xor_sync(0xffffffffu, s, off);
        merge(m, s, m2, s2);
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        sm_m[warp] = m;
        sm_s[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        m = lane < WARPS ? sm_m[lane] : -INFINITY;
        s = lane < WARPS ? sm_s[lane] : 0.0f;
        for (int off = 16; off > 0; off /= 2) {
            float m2 = __shfl_xor_sync(0xffffffffu, m, off);
            float s2 = __shfl_xor_sync(0xffffffffu, s, off);
            merge(m, s, m2, s2);
        }
        if (lane == 0) {
            row_max = m;
            row_sum = s;
        }
    }
    __syncthreads();

    /* Pass 2: PyTorch's epilogue, exp(x - max) / sum. */
    const float mx = row_max, sum = row_sum;
    if (vec) {
        const float4 *xr4 = reinterpret_cast<const float4 *>(xr);
        float4 *yr4 = reinterpret_cast<float4 *>(yr);
#pragma unroll 2
        for (int64_t j = threadIdx.x; j < cols / 4; j += THREADS) {
            float4 v = xr4[j];
            v.x = expf(v.x - mx) / sum;
            v.y = expf(v.y - mx) / sum;
            v.z = expf(v.z - mx) / sum;
            v.w = expf(v.w - mx) / sum;
            yr4[j] = v;
        }
    } else {
#pragma unroll 4
        for (int64_t j = threadIdx.x; j < cols; j += THREADS)
            yr[j] = expf(xr[j] - mx) / sum;
    }
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 2 || y->ndim != 2 ||
        x->shape[0] != y->shape[0] || x->shape[1] != y->shape[1])
        return 1;
    const int64_t rows = x->shape[0], cols = x->shape[1];
    if (rows <= 0 || cols <= 0 || rows > 0x7fffffff) /* one block per row: gridDim.x limit */
        return 1;

    const int vec = cols % 4 == 0 && (uintptr_t)x->data % 16 == 0 && (uintptr_t)y->data % 16 == 0;
    softmax_rows<<<(unsigned)rows, THREADS, 0, args->stream>>>((const float *)x->data, (float *)y->data, cols, vec);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
