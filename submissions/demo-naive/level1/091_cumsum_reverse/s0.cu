/*
 * demo-naive, level1/091_cumsum_reverse, sample s0: y = torch.cumsum(x.flip(1), 1).flip(1), x (N, L) fp32 -> y (N, L) fp32.
 *
 * One block of 256 threads per row (grid = N blocks). The row is walked in chunks of 256
 * elements, one per thread, coalesced: each warp scans its 32 values with shuffles
 * (Hillis-Steele, 5 steps), warp 0 scans the 8 warp totals, every thread adds the totals of the
 * warps before it and the carry of the previous chunks, writes its element, and the chunk's last
 * element becomes the carry. Reverse: thread t of a chunk reads and writes
 * element L-1-j, i.e. the suffix sums, in one pass (no flipped copies).
 * 64-bit offsets: the tensors have 2^30 elements.
 *
 * Napkin math (32768 x 32768): 8.6 GB moved, ~2.0 ms at ~4.3 TB/s; 128 chunks per row with 2
 * barriers each and 32768 blocks; expect a few ms (latency-bound like PyTorch's own scan).
 * Accuracy: fp32 running sum over up to 32768 terms, a different association order than
 * PyTorch's chunked Sklansky scan; relative error ~ sqrt(L) * 2^-24 typical, L * 2^-24 worst.
 *
 * Build:
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
#define WARPS (THREADS / 32)

static __device__ __forceinline__ float op(float a, float b) { return a + b; }

static __global__ void __launch_bounds__(THREADS)
scan_rows(const float *__restrict__ x, int64_t L, float *__restrict__ y)
{
    __shared__ float warp_tot[WARPS];
    __shared__ float carry_s;
    const int64_t row = blockIdx.x;
    const float *xr = x + row * L;
    float *yr = y + row * L;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float carry = 0.0f;
    for (int64_t c0 = 0; c0 < L; c0 += THREADS) {
        const int64_t j = c0 + threadIdx.x;
        float v = 0.0f;
        if (j < L)
            v = xr[L - 1 - j];
        /* inclusive warp scan */
        for (int o = 1; o < 32; o <<= 1) {
            const float u = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o)
                v = op(u, v);
        }
        if (lane == 31)
            warp_tot[warp] = v;
        __syncthreads();
        if (warp == 0) {
            float t = lane < WARPS ? warp_tot[lane] : 0.0f;
            for (int o = 1; o < WARPS; o <<= 1) {
                const float u = __shfl_up_sync(0xffffffffu, t, o);
                if (lane >= o)
                    t = op(u, t);
            }
            if (lane < WARPS)
                warp_tot[lane] = t; /* inclusive scan of the warp totals */
        }
        __syncthreads();
        float pre = carry;
        if (warp > 0)
            pre = op(pre, warp_tot[warp - 1]);
        v = op(pre, v);
        if (j < L)
            yr[L - 1 - j] = v;
        if (threadIdx.x == THREADS - 1)
            carry_s = v; /* the chunk's last element (identity-padded past L) */
        __syncthreads();
        carry = carry_s;
        __syncthreads(); /* warp_tot and carry_s are rewritten by the next chunk */
    }
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 2 || y->ndim != 2)
        return 1;
    const int64_t N = x->shape[0], L = x->shape[1];
    if (y->shape[0] != N || y->shape[1] != L || N <= 0 || L <= 0 || N > 0x7fffffff)
        return 1;

    scan_rows<<<(unsigned)N, THREADS, 0, args->stream>>>((const float *)x->data, L, (float *)y->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
