/*
 * demo-naive, level1/099_triplet_margin_loss, sample s0: nn.TripletMarginLoss(margin=1.0)
 * (p = 2, eps = 1e-6, swap = False, reduction='mean') on anchor, positive, negative (R, D)
 * fp32 (32768 x 8192 on the standard inputs) -> 0-dim fp32:
 *   d_pos[r] = || a[r] - p[r] + eps ||_2,  d_neg[r] = || a[r] - n[r] + eps ||_2
 *   loss = mean_r max(margin + d_pos[r] - d_neg[r], 0)       (NaN kept, as clamp_min keeps it)
 * the differences (a - p) + eps in float, as PyTorch's pairwise_distance computes them.
 *
 * Two kernels on args->stream, deterministic (no atomics, fixed order):
 *   1. row_loss: one block of 256 threads per row reads the three rows once (float4 when D % 4
 *      == 0 and the pointers are 16-byte aligned, else scalar), each thread accumulating both
 *      sums of squares in float (D / 256 = 32 terms each), a fixed-order block reduction (in
 *      double), then thread 0 writes the row's hinge to scratch.
 *   2. final_sum: one block of 1024 threads adds the R row losses in double, fixed order, and
 *      writes sum / R.
 * Scratch: 8 R bytes (256 KiB), stream-ordered; nothing is kept across calls.
 *
 * Napkin math (32768 x 8192): 3.2 GB read once (~0.75 ms at ~4.3 TB/s), 6 FLOPs per element
 * triple; expect ~0.8 ms, against eager PyTorch's 3.11 ms (materialised differences).
 * Accuracy: each distance (~50 here) is within a few float roundings of exact; the loss
 * (~1) is their difference, so its absolute error is ~1e-5 at worst per row, averaging down.
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
#define MAX_BLOCKS 1024 /* ~one resident wave on an H200 (132 SMs x 8 blocks of 256) */
#define FINAL_THREADS 1024

/* Block-wide double sum in a fixed order (shuffles, then warp 0 over the WARPS slots); the
 * result is valid in thread 0. All THREADS threads must call it. */
static __device__ double block_sum(double v, double *sm)
{
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0)
        sm[warp] = v;
    __syncthreads();
    double s = 0.0;
    if (threadIdx.x == 0)
        for (int w = 0; w < WARPS; w++)
            s += sm[w];
    return s;
}

#define MARGIN 1.0f
#define EPS 1e-6f

static __device__ __forceinline__ void accumulate(float a, float p, float n, float *sp, float *sn)
{
    const float dp = (a - p) + EPS, dn = (a - n) + EPS;
    *sp += dp * dp;
    *sn += dn * dn;
}

static __global__ void __launch_bounds__(THREADS)
row_loss(const float *__restrict__ a, const float *__restrict__ p, const float *__restrict__ ng, int64_t D,
         int vec, double *__restrict__ loss)
{
    __shared__ double sm[WARPS];
    const int64_t off = (int64_t)blockIdx.x * D;
    float sp = 0.0f, sn = 0.0f;
    if (vec) {
        const float4 *a4 = reinterpret_cast<const float4 *>(a + off);
        const float4 *p4 = reinterpret_cast<const float4 *>(p + off);
        const float4 *n4 = reinterpret_cast<const float4 *>(ng + off);
        for (int64_t j = threadIdx.x; j < D / 4; j += THREADS) {
            const float4 x = a4[j], y = p4[j], z = n4[j];
            accumulate(x.x, y.x, z.x, &sp, &sn);
            accumulate(x.y, y.y, z.y, &sp, &sn);
            accumulate(x.z, y.z, z.z, &sp, &sn);
            accumulate(x.w, y.w, z.w, &sp, &sn);
        }
    } else {
        for (int64_t j = threadIdx.x; j < D; j += THREADS)
            accumulate(a[off + j], p[off + j], ng[off + j], &sp, &sn);
    }
    const double tp = block_sum((double)sp, sm);
    __syncthreads(); /* sm is reused */
    const double tn = block_sum((double)sn, sm);
    if (threadIdx.x == 0) {
        const float v = MARGIN + sqrtf((float)tp) - sqrtf((float)tn);
        loss[blockIdx.x] = (double)(isnan(v) ? v : fmaxf(v, 0.0f));
    }
}

/* Stage 2: one block adds the per-block partials in a fixed order and writes sum * scale. */
static __global__ void __launch_bounds__(FINAL_THREADS)
final_sum(const double *__restrict__ partial, int nblocks, double scale, float *__restrict__ out)
{
    __shared__ double sm[FINAL_THREADS];
    double v = 0.0;
    for (int i = threadIdx.x; i < nblocks; i += FINAL_THREADS)
        v += partial[i];
    sm[threadIdx.x] = v;
    __syncthreads();
    for (int half = FINAL_THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            sm[threadIdx.x] += sm[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[0] = (float)(sm[0] * scale);
}


extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 3 || args->n_outputs != 1)
        return 1;
    const kb_input *a = &args->inputs[0], *p = &args->inputs[1], *n = &args->inputs[2];
    const kb_output *out = &args->outputs[0];
    if (a->dtype != KB_F32 || p->dtype != KB_F32 || n->dtype != KB_F32 || out->dtype != KB_F32 || out->ndim != 0)
        return 1;
    if (a->ndim != 2 || p->ndim != 2 || n->ndim != 2)
        return 1;
    for (int d = 0; d < 2; d++)
        if (p->shape[d] != a->shape[d] || n->shape[d] != a->shape[d])
            return 1;
    const int64_t R = a->shape[0], D = a->shape[1];
    if (R <= 0 || D <= 0 || R > 0x7fffffff) /* one block per row: gridDim.x */
        return 1;
    const int vec = D % 4 == 0 && (((uintptr_t)a->data | (uintptr_t)p->data | (uintptr_t)n->data) % 16) == 0;

    cudaStream_t st = args->stream;
    double *loss = NULL;
    int rc = 0;
    if (cudaMallocAsync((void **)&loss, (size_t)R * sizeof(double), st) != cudaSuccess)
        return 2;
    row_loss<<<(unsigned)R, THREADS, 0, st>>>((const float *)a->data, (const float *)p->data, (const float *)n->data,
                                              D, vec, loss);
    if (cudaGetLastError() != cudaSuccess) {
        rc = 2;
        goto done;
    }
    final_sum<<<1, FINAL_THREADS, 0, st>>>(loss, (int)R, 1.0 / (double)R, (float *)out->data);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
done:
    if (cudaFreeAsync(loss, st) != cudaSuccess)
        rc = 2;
    return rc;
}
