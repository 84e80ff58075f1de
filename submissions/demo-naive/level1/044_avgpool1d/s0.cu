/*
 * demo-naive, level1/044_avgpool1d, sample s0: AvgPool1d(kernel_size=8, stride=1, padding=4)
 * (count_include_pad=True), x (N, C, L) -> y (N, C, LO), LO = (L + 2*4 - 8)/1 + 1 = L + 1.
 *
 * One thread per output element (grid-stride loop, 64-bit indices). Output (row, o) sums, in
 * fp32 and in order, the taps w = o - 4 .. o + 3 that fall inside the row and divides by the
 * window clipped to the padded row (count_include_pad: the zero padding counts; with these sizes
 * that is 8 for every output), which is PyTorch's formula and summation order.
 *
 * Napkin math (64 x 128 x 65536 -> 65537): 2.15 GB read + 2.15 GB written = 4.3 GB, 1.0 ms at
 * ~4.3 TB/s; each input is read by 8 neighbouring threads (L1 hits). Expect ~1.5-2 ms (eager
 * PyTorch: 5.55 ms). Accuracy: 8 fp32 adds and one division, as PyTorch (bitwise equal).
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
#include <kb/submission.h>

#define KSIZE 8
#define STRIDE 1
#define PAD 4
#define THREADS 256

static __global__ void __launch_bounds__(THREADS)
avgpool1d(const float *__restrict__ x, int64_t rows, int64_t L, int64_t LO, float *__restrict__ y)
{
    const int64_t total = rows * LO;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < total; i += (int64_t)gridDim.x * THREADS) {
        const int64_t row = i / LO, o = i - row * LO;
        const float *xr = x + row * L;
        int64_t w0 = o * STRIDE - PAD;
        int64_t w1 = w0 + KSIZE < L + PAD ? w0 + KSIZE : L + PAD;
        const float divisor = (float)(w1 - w0); /* count_include_pad */
        if (w0 < 0)
            w0 = 0;
        if (w1 > L)
            w1 = L;
        float s = 0.0f;
        for (int64_t w = w0; w < w1; w++)
            s += xr[w];
        y[i] = w0 < w1 ? s / divisor : 0.0f;
    }
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 3 || y->ndim != 3)
        return 1;
    const int64_t N = x->shape[0], C = x->shape[1], L = x->shape[2];
    const int64_t LO = (L + 2 * PAD - KSIZE) / STRIDE + 1;
    if (N <= 0 || C <= 0 || L <= 0 || LO <= 0 || y->shape[0] != N || y->shape[1] != C || y->shape[2] != LO)
        return 1;
    const int64_t total = N * C * LO;
    int64_t blocks = (total + THREADS - 1) / THREADS;
    if (blocks > 1048576)
        blocks = 1048576; /* grid-stride loop covers the rest */
    avgpool1d<<<(unsigned)blocks, THREADS, 0, args->stream>>>((const float *)x->data, N * C, L, LO, (float *)y->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
