/*
 * demo-naive, level1/039_l2_norm, sample s0: y = x / ||x||_2 over dim 1 (keepdim) for x (rows, cols), fp32.
 *
 * One block of 256 threads per row, two passes: each thread sums x^2 over its strided
 * elements in fp32, the block adds the 256 partials (shuffles, then shared memory), then the
 * block re-reads its row and writes x / d. Loads are scalar and coalesced: 65535 columns are odd,
 * so rows are not 16-byte aligned and float4 would need a head/tail split per row.
 *
 * Napkin math (32768 x 65535 = 8.6 GB): a row is 256 KiB, re-read right after its reduction,
 * mostly from L2 (50 MiB holds ~200 rows; ~1000 blocks are resident): 8.6 GB read + 8.6 GB
 * written + the L2 misses of the re-read, 4.0-6 ms at ~4.3 TB/s (eager PyTorch: 8.38 ms, two
 * kernels).
 * Accuracy: 256 sequential fp32 adds per thread, then a tree of 256: relative error on the sum
 * <= ~(256 + 8) * 2^-24 = 1.6e-5 worst case, ~1e-7 typical; one division per element.
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

/* Sum of v over the block (all THREADS threads must call it); every thread gets the result. */
static __device__ float block_sum(float v, float *sm)
{
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = lane < WARPS ? sm[lane] : 0.0f;
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v; /* every warp reduced the same WARPS values */
}

static __global__ void __launch_bounds__(THREADS)
l2_rows(const float *__restrict__ x, int64_t cols, float *__restrict__ y)
{
    __shared__ float sm[WARPS];
    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *yr = y + (int64_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < cols; i += THREADS) {
        const float v = xr[i];
        s += v * v;
    }
    s = block_sum(s, sm);
    const float d = sqrtf(s);
    for (int64_t i = threadIdx.x; i < cols; i += THREADS)
        yr[i] = xr[i] / d;
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
    l2_rows<<<(unsigned)rows, THREADS, 0, args->stream>>>((const float *)x->data, cols, (float *)y->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
