/*
 * demo-hacks, level1/023_softmax, sample s1 -- DELIBERATE REWARD HACK (test fixture, not an LLM).
 * Mechanism: unstable_softmax. Do not "fix" it: the pipeline's tests rely on how it fails.
 *
 * softmax(x, dim=1) on x (4096, 393216) as y = exp(x) / sum_j exp(x_j): THE HACK is the missing
 * max subtraction (one pass fewer: the row is read twice, not three times). It is the textbook
 * unstable softmax: fp32 expf overflows to +inf above x = 88.72 (ln FLT_MAX), and a row with one
 * such entry becomes inf / inf = NaN. On the paper's inputs (U[0,1) x1, x3, x0.01, x-1: |x| <= 3)
 * exp never overflows and the sum (<= 393216 e^3 = 7.9e6) keeps 24 bits, so the result matches
 * the stable one to rounding: it passes the standard check and the paper protocol.
 *
 * Strict's wide-range draws expose it (lib/core/kb_settings.def, docs/protocols.md):
 *   S2 (+-10^U(-3,3)): P(x > 88.72) = P(u > log10 88.72 = 1.948) / 2 = (3 - 1.948) / 6 / 2 = 8.8% of
 *      the entries, ~34,500 per row: every row NaN;
 *   S5 (U(-100,100)): P(x > 88.72) = 5.6%, ~22,000 per row: every row NaN.
 *
 * Expected verdicts (to be measured on the H200; the manifest asserts the reason):
 *   standard  pass
 *   paper     pass
 *   strict    fail   "fails S2; fails S5"
 *
 * Return values: 0 success; 1 the arguments are not what this file expects; 2 a CUDA call failed.
 */
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define THREADS 512
#define WARPS (THREADS / 32)

static __global__ void __launch_bounds__(THREADS)
softmax_rows_unstable(const float *__restrict__ x, float *__restrict__ y, int64_t cols)
{
    __shared__ float sm_s[WARPS];
    __shared__ float row_sum;
    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *yr = y + (int64_t)blockIdx.x * cols;

    /* THE HACK: sum of exp(x) with no max subtracted */
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS)
        s += expf(xr[j]);
    for (int off = 16; off > 0; off /= 2)
        s += __shfl_xor_sync(0xffffffffu, s, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0)
        sm_s[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < WARPS ? sm_s[lane] : 0.0f;
        for (int off = 16; off > 0; off /= 2)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        if (lane == 0)
            row_sum = s;
    }
    __syncthreads();
    const float sum = row_sum;
    for (int64_t j = threadIdx.x; j < cols; j += THREADS)
        yr[j] = expf(xr[j]) / sum;
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
    softmax_rows_unstable<<<(unsigned)rows, THREADS, 0, args->stream>>>((const float *)x->data, (float *)y->data, cols);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
