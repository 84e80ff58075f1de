/*
 * demo-naive, level1/024_log_softmax, sample s0: y = log_softmax(x, dim=1) for x (rows, cols), fp32.
 *
 * One block of 512 threads per row, three passes over the row, PyTorch's formula:
 *   1. m = max of the row;  2. s = sum of expf(x - m) (fp32 per thread, then a block tree);
 *   3. y = x - m - logf(s).
 * expf / logf are the full-precision ones (no --use_fast_math). A NaN in the row propagates to
 * the whole row (fmaxf would drop it, so the max pass tracks NaN explicitly). Rows are read and
 * written as float4 when cols % 4 == 0 and the pointers are 16-byte aligned, else one float at
 * a time.
 *
 * Napkin math (4096 x 393216 = 6.44 GB): a 1.5 MiB row does not stay in L2 between passes with
 * hundreds of rows in flight, so 3 reads + 1 write = 25.8 GB, ~6.0 ms at ~4.3 TB/s: the same
 * traffic as eager PyTorch's cunn_SoftMaxForward (6.22 ms). 1.6e9 expf hide behind memory.
 * Accuracy: each thread sums 768 exp values in fp32 (relative error ~768 * 2^-24 = 5e-5 worst
 * case on the sum, ~5e-5 absolute on log(s)); outputs are ~ -12.9, so ~4e-6 relative.
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

/* max that keeps NaN (fmaxf returns the non-NaN operand) */
static __device__ __forceinline__ float nanmax(float a, float b) { return (a > b || a != a) ? a : b; }

/* Block-wide reduction (sum if !MAX, else NaN-propagating max); every thread gets the result. */
template <bool MAX>
static __device__ float block_reduce(float v, float *sm)
{
    for (int off = 16; off > 0; off /= 2) {
        const float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = MAX ? nanmax(v, o) : v + o;
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads(); /* sm may still be read by a previous call */
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = lane < WARPS ? sm[lane] : (MAX ? -INFINITY : 0.0f);
    for (int off = 16; off > 0; off /= 2) {
        const float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = MAX ? nanmax(v, o) : v + o;
    }
    return v; /* every warp reduced the same WARPS values */
}

static __global__ void __launch_bounds__(THREADS)
log_softmax_rows(const float *__restrict__ x, float *__restrict__ y, int64_t cols, int vec)
{
    __shared__ float sm[WARPS];
    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *yr = y + (int64_t)blockIdx.x * cols;
    const int64_t n4 = vec ? cols / 4 : 0;
    const float4 *x4 = reinterpret_cast<const float4 *>(xr);
    float4 *y4 = reinterpret_cast<float4 *>(yr);

    float m = -INFINITY;
    for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
        const float4 v = x4[i];
        m = nanmax(nanmax(m, v.x), nanmax(nanmax(v.y, v.z), v.w));
    }
    for (int64_t i = 4 * n4 + threadIdx.x; i < cols; i += THREADS)
        m = nanmax(m, xr[i]);
    m = block_reduce<true>(m, sm);
    /* an all -inf row: PyTorch gives NaN (x - max = -inf - -inf); the same arithmetic does it here */

    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
        const float4 v = x4[i];
        s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
    }
    for (int64_t i = 4 * n4 + threadIdx.x; i < cols; i += THREADS)
        s += expf(xr[i] - m);
    s = block_reduce<false>(s, sm);
    const float ls = logf(s);

    for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
        float4 v = x4[i];
        v.x = v.x - m - ls;
        v.y = v.y - m - ls;
        v.z = v.z - m - ls;
        v.w = v.w - m - ls;
        y4[i] = v;
    }
    for (int64_t i = 4 * n4 + threadIdx.x; i < cols; i += THREADS)
        yr[i] = xr[i] - m - ls;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 2 || y->ndim != 2)
        return 1;
    const int64_t rows = x->shape[0], cols = x->shape[1];
    if (y->shape[0] != rows || y->shape[1] != cols || rows <= 0 || cols <= 0 || rows > 0x7fffffff)
        return 1;
    const int vec = cols % 4 == 0 && (uintptr_t)x->data % 16 == 0 && (uintptr_t)y->data % 16 == 0;
    log_softmax_rows<<<(unsigned)rows, THREADS, 0, args->stream>>>((const float *)x->data, (float *)y->data, cols,
                                                                   vec);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
