/*
 * demo-tuned, level1/095_cross_entropy, sample s0: torch.nn.functional.cross_entropy(predictions,
 * targets) with the defaults (reduction='mean', ignore_index=-100, no weights, no smoothing).
 * predictions (R, C) fp32, targets (R) int64 -> loss, a 0-dim fp32 tensor:
 *   loss = mean over rows r with targets[r] != -100 of (logsumexp(predictions[r]) - predictions[r, t]).
 *
 * Design: fused logsumexp + target gather, no materialised log_softmax, x read exactly once.
 *   1. row_loss: one block of 256 threads per row; the 16 KiB row (C = 4096) is loaded as
 *      float4, 4 per thread, all 4 independent loads in flight and kept in registers; block max
 *      (NaN-propagating), then sum of exp(x - max) from the registers (no re-read), then thread 0
 *      gathers x[t] (an L1/L2 hit) and writes loss[r] = log(sum) - (x[t] - max) and valid[r].
 *      Rows wider than 4096 (or unaligned, or C % 4 != 0) loop over the row in the same way with
 *      a scalar path; only C <= 4096 keeps the row in registers (the problem's shape).
 *   2. mean_loss: one block adds the R losses and counts in double in a fixed tree order
 *      (deterministic, no atomics) and writes sum / count (NaN when every row is ignored, as in
 *      PyTorch). A target outside [0, C) (PyTorch raises a device assert) gives NaN.
 * Scratch: 8*R bytes (256 KiB), stream-ordered and freed on the stream; nothing kept across calls.
 *
 * Napkin math (32768 x 4096): 537 MB read once (0.125 ms at ~4.3 TB/s), 1.3e8 expf + 3.3e4
 * logf (negligible), 32768 blocks (~31 waves at 8 blocks/SM) plus a ~5 us mean kernel. Expect
 * ~0.14-0.16 ms (demo-naive, which re-reads the row for the sum: 0.25 ms; eager PyTorch 0.44 ms:
 * ~3x).
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
#define V4 4 /* float4 per thread kept in registers: rows up to THREADS * V4 * 4 = 4096 */
#define MEAN_THREADS 1024
#define IGNORE_INDEX (-100)

static __device__ __forceinline__ float nanmax(float a, float b) { return (b > a || b != b) ? b : a; }

/* Block-wide NaN-propagating max; every thread gets the result. sm: WARPS floats. */
static __device__ __forceinline__ float block_max(float v, float *sm)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v = nanmax(v, __shfl_xor_sync(0xffffffffu, v, off));
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads(); /* sm may still be read by a previous call */
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = sm[0];
#pragma unroll
    for (int w = 1; w < WARPS; w++)
        v = nanmax(v, sm[w]);
    return v;
}

/* Block-wide sum in a fixed order; every thread gets the result. */
static __device__ __forceinline__ float block_sum(float v, float *sm)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = 0.0f;
#pragma unroll
    for (int w = 0; w < WARPS; w++)
        v += sm[w];
    return v;
}

/* vec: C % 4 == 0, C <= THREADS*V4*4 and x 16-byte aligned: the row lives in registers. */
static __global__ void __launch_bounds__(THREADS)
row_loss(const float *__restrict__ x, const int64_t *__restrict__ targets, int64_t C, int vec,
         float *__restrict__ loss, float *__restrict__ valid)
{
    __shared__ float sm[WARPS];
    const int64_t r = blockIdx.x;
    const float *xr = x + r * C;
    float m = -INFINITY, s = 0.0f;

    if (vec) {
        const float4 *xr4 = reinterpret_cast<const float4 *>(xr);
        const int64_t C4 = C / 4;
        float4 v[V4];
#pragma unroll
        for (int k = 0; k < V4; k++) {
            const int64_t j = threadIdx.x + (int64_t)k * THREADS;
            v[k] = j < C4 ? __ldcs(xr4 + j) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        }
#pragma unroll
        for (int k = 0; k < V4; k++)
            m = nanmax(m, nanmax(nanmax(v[k].x, v[k].y), nanmax(v[k].z, v[k].w)));
        m = block_max(m, sm);
        if (m != -INFINITY) { /* all -inf: s stays 0 and x[t] - max = NaN makes the loss NaN, as in PyTorch */
#pragma unroll
            for (int k = 0; k < V4; k++)
                s += (expf(v[k].x - m) + expf(v[k].y - m)) + (expf(v[k].z - m) + expf(v[k].w - m));
        }
        s = block_sum(s, sm);
    } else {
        for (int64_t j = threadIdx.x; j < C; j += THREADS)
            m = nanmax(m, xr[j]);
        m = block_max(m, sm);
        if (m != -INFINITY)
            for (int64_t j = threadIdx.x; j < C; j += THREADS)
                s += expf(xr[j] - m);
        s = block_sum(s, sm);
    }

    if (threadIdx.x == 0) {
        const int64_t t = targets[r];
        if (t == IGNORE_INDEX) {
            loss[r] = 0.0f;
            valid[r] = 0.0f;
        } else if (t < 0 || t >= C) {
            loss[r] = NAN;
            valid[r] = 1.0f;
        } else {
            loss[r] = logf(s) - (xr[t] - m);
            valid[r] = 1.0f;
        }
    }
}

static __global__ void __launch_bounds__(MEAN_THREADS)
mean_loss(const float *__restrict__ loss, const float *__restrict__ valid, int64_t R, float *__restrict__ out)
{
    __shared__ double sl[MEAN_THREADS], sc[MEAN_THREADS];
    double l = 0.0, c = 0.0;
    for (int64_t i = threadIdx.x; i < R; i += MEAN_THREADS) {
        l += (double)loss[i];
        c += (double)valid[i];
    }
    sl[threadIdx.x] = l;
    sc[threadIdx.x] = c;
    __syncthreads();
    for (int half = MEAN_THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            sl[threadIdx.x] += sl[threadIdx.x + half];
            sc[threadIdx.x] += sc[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[0] = (float)(sl[0] / sc[0]); /* 0/0 = NaN when every target is ignored */
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 2 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0], *t = &args->inputs[1];
    const kb_output *out = &args->outputs[0];
    if (x->dtype != KB_F32 || t->dtype != KB_I64 || out->dtype != KB_F32)
        return 1;
    if (x->ndim != 2 || t->ndim != 1 || out->ndim != 0)
        return 1;
    const int64_t R = x->shape[0], C = x->shape[1];
    if (t->shape[0] != R || R <= 0 || C <= 0 || R > 0x7fffffff) /* one block per row: gridDim.x */
        return 1;
    const int vec = C % 4 == 0 && C <= (int64_t)THREADS * V4 * 4 && (uintptr_t)x->data % 16 == 0;

    cudaStream_t st = args->stream;
    float *loss = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&loss, (size_t)(2 * R) * sizeof(float), st) != cudaSuccess)
        return 2;
    row_loss<<<(unsigned)R, THREADS, 0, st>>>((const float *)x->data, (const int64_t *)t->data, C, vec, loss,
                                              loss + R);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
    if (rc == 0) {
        mean_loss<<<1, MEAN_THREADS, 0, st>>>(loss, loss + R, R, (float *)out->data);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(loss, st) != cudaSuccess)
        rc = 2;
    return rc;
}
