/*
 * demo-tuned, level1/047_sum_dim, sample s0: y = torch.sum(x, dim=1, keepdim=True),
 * x (B, R, J) -> y (B, 1, J), fp32 in and out.
 *
 * Design: a column reduction (element (b, i, j) at b*R*J + i*J + j; J = 4095, so rows are not
 * 16-byte aligned and float4 loads are out). A cluster of RS = 8 CTAs owns 256 consecutive
 * columns of one batch; CTA rank q sums rows [q*ceil(R/8), (q+1)*ceil(R/8)) of them, one column per
 * thread, 8 rows unrolled (8 independent loads in flight per thread; per row step the CTA reads
 * 1 KB contiguous). Accumulation in DOUBLE (512 terms per thread). The 8 partial columns are then
 * combined through distributed shared memory: after a cluster barrier, rank q adds columns
 * [32q, 32q+32) of all 8 ranks in rank order 0..7 and writes them (fixed order: deterministic, no
 * atomics, no scratch memory); a second cluster barrier keeps each CTA's shared memory alive
 * until its peers have read it. 16384 small CTAs (512 KB of reads each) keep the tail short,
 * which a one-wave grid of big blocks would not. 64-bit offsets (x has 2.15e9 elements).
 * NaN/inf propagate through the sums as in PyTorch.
 *
 * Napkin math (128 x 4096 x 4095): 8.59 GB read, 2 MB written: 2.0 ms at ~4.3 TB/s; 2.1e9 DADD
 * (~0.13 ms of FP64 issue, hidden). Expect ~2.1-2.2 ms (demo-naive, 128-byte strips: 2.52 ms;
 * eager PyTorch 2.07 ms): ~0.95-1.0x -- this one sits at the roofline with PyTorch.
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
#include <cooperative_groups.h>
#include <kb/submission.h>

namespace cg = cooperative_groups;

#define THREADS 256 /* columns per cluster */
#define RS 8        /* CTAs per cluster = row splits */
#define U 8         /* rows unrolled: loads in flight per thread */

/* blockIdx.x = column block * RS + rank, blockIdx.y = batch. */
static __global__ void __cluster_dims__(RS, 1, 1) __launch_bounds__(THREADS)
sum_middle(const float *__restrict__ x, int64_t R, int64_t J, float *__restrict__ y)
{
    __shared__ double part[THREADS];
    cg::cluster_group cluster = cg::this_cluster();
    const int q = (int)cluster.block_rank();
    const int tx = threadIdx.x;
    const int64_t b = blockIdx.y;
    const int64_t cb = blockIdx.x / RS;
    const int64_t col = cb * THREADS + tx;
    const int64_t rows_per = (R + RS - 1) / RS;
    const int64_t r0 = (int64_t)q * rows_per;
    const int64_t r1 = r0 + rows_per < R ? r0 + rows_per : R;

    double acc = 0.0;
    if (col < J) {
        const float *p = x + b * R * J + col;
        int64_t i = r0;
        for (; i + (U - 1) < r1; i += U) {
            float v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                v[u] = __ldcs(p + (i + u) * J);
#pragma unroll
            for (int u = 0; u < U; u++)
                acc += (double)v[u];
        }
        for (; i < r1; i++)
            acc += (double)__ldcs(p + i * J);
    }
    part[tx] = acc;
    cluster.sync(); /* all 8 partial rows of the cluster are visible */

    if (tx < THREADS / RS) {
        const int c = q * (THREADS / RS) + tx;
        double s = 0.0;
#pragma unroll
        for (int r = 0; r < RS; r++)
            s += *cluster.map_shared_rank(&part[c], r);
        const int64_t oc = cb * THREADS + c;
        if (oc < J)
            y[b * J + oc] = (float)s;
    }
    cluster.sync(); /* peers may still be reading part[] */
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 3 || y->ndim != 3)
        return 1;
    const int64_t B = x->shape[0], R = x->shape[1], J = x->shape[2];
    if (y->shape[0] != B || y->shape[1] != 1 || y->shape[2] != J || B <= 0 || R <= 0 || J <= 0)
        return 1;
    const int64_t gx = (J + THREADS - 1) / THREADS * RS;
    if (B > 65535 || gx > 0x7fffffff)
        return 1;
    sum_middle<<<dim3((unsigned)gx, (unsigned)B), THREADS, 0, args->stream>>>((const float *)x->data, R, J,
                                                                             (float *)y->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
