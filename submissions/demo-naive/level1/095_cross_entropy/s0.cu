/*
 * demo-naive, level1/095_cross_entropy, sample s0: torch.nn.functional.cross_entropy(predictions,
 * targets) with the defaults (reduction='mean', ignore_index=-100, no weights, no smoothing).
 * predictions (R, C) fp32, targets (R) int64 -> loss, a 0-dim fp32 tensor:
 *   loss = mean over rows r with targets[r] != -100 of (logsumexp(predictions[r]) - predictions[r, t]).
 *
 * Two kernels on args->stream:
 *   1. row_loss: one block per row: block max, then sum of exp(x - max) (full-precision expf,
 *      the 16 KiB row is re-read from L1/L2), then thread 0 writes
 *      loss[r] = log(sum) - (x[t] - max) and valid[r] = 1, or 0 / 0 for ignore_index. A target
 *      outside [0, C) (PyTorch raises a device assert) gives NaN, so the result cannot pass.
 *   2. mean_loss: one block adds the R per-row losses and counts in double, in a fixed order
 *      (deterministic, no atomics), and writes sum / count (NaN when every row is ignored, as
 *      in PyTorch).
 * Scratch: 8*R bytes (256 KiB), stream-ordered; nothing is kept across calls.
 *
 * Napkin math (32768 x 4096): 537 MB read once from DRAM (0.13 ms at ~4.3 TB/s), 1.3e8 expf
 * (negligible); 32768 blocks of 256 threads: expect ~0.15-0.2 ms. Measured on an H200: 0.25 ms
 * (eager PyTorch, which materialises log_softmax: 0.42 ms).
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
#define MEAN_THREADS 1024
#define IGNORE_INDEX (-100)

/* Block-wide max (NaN-propagating) or sum of v; all THREADS threads must call it; the result is
 * returned to every thread. */
static __device__ float block_max(float v, float *sm)
{
    for (int off = 16; off > 0; off /= 2) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = (o > v || isnan(o)) ? o : v;
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads(); /* sm may still be read by a previous call */
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = sm[0];
    for (int w = 1; w < WARPS; w++)
        v = (sm[w] > v || isnan(sm[w])) ? sm[w] : v;
    return v;
}

static __device__ float block_sum(float v, float *sm)
{
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    v = 0.0f;
    for (int w = 0; w < WARPS; w++)
        v += sm[w];
    return v;
}

static __global__ void __launch_bounds__(THREADS)
row_loss(const float *__restrict__ x, const int64_t *__restrict__ targets, int64_t C, float *__restrict__ loss,
         float *__restrict__ valid)
{
    __shared__ float sm[WARPS];
    const int64_t r = blockIdx.x;
    const float *xr = x + r * C;

    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < C; j += THREADS) {
        const float v = xr[j];
        m = (v > m || isnan(v)) ? v : m;
    }
    m = block_max(m, sm);

    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < C; j += THREADS)
        s += expf(xr[j] - m);
    s = block_sum(s, sm);

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

    cudaStream_t st = args->stream;
    float *loss = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&loss, (size_t)(2 * R) * sizeof(float), st) != cudaSuccess)
        return 2;

    row_loss<<<(unsigned)R, THREADS, 0, st>>>((const float *)x->data, (const int64_t *)t->data, C, loss, loss + R);
    if (cudaGetLastError() != cudaSuccess) {
        rc = 2;
        goto done;
    }
    mean_loss<<<1, MEAN_THREADS, 0, st>>>(loss, loss + R, R, (float *)out->data);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
done:
    if (cudaFreeAsync(loss, st) != cudaSuccess)
        rc = 2;
    return rc;
}
