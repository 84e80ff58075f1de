/*
 * demo-naive, level1/041_maxpool1d, sample s0: MaxPool1d(kernel_size=8, stride=1, padding=4,
 * dilation=3), x (N, C, L) -> y (N, C, LO), LO = (L + 2*4 - 3*7 - 1)/1 + 1 = L - 13.
 *
 * One thread per output element (grid-stride loop, 64-bit indices: N*C*L is 805 M here, and any
 * shape is accepted). Output (row, o) reads the taps w = o - 4 + 3*k, k = 0..7, that fall inside
 * the row (padding is never selected) and keeps the max; NaN propagates as in PyTorch's
 * max_pool ("val > max || isnan(val)"), so a window holding a NaN gives NaN. No indices are
 * written: nn.MaxPool1d(return_indices=False) returns only the values (eager PyTorch computes
 * and stores int64 indices anyway).
 *
 * Napkin math (64 x 192 x 65536 -> 65523): 3.22 GB read + 3.22 GB written = 6.4 GB, 1.5 ms at
 * ~4.3 TB/s; each input is loaded by 8 threads, but neighbouring threads read neighbouring
 * addresses, so 7 of 8 loads hit L1. Expect ~2-3 ms (eager PyTorch, which also writes 6.4 GB of
 * indices: 10.9 ms). Accuracy: exact (max selects an input value).
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
#define DIL 3
#define THREADS 256

static __global__ void __launch_bounds__(THREADS)
maxpool1d(const float *__restrict__ x, int64_t rows, int64_t L, int64_t LO, float *__restrict__ y)
{
    const int64_t total = rows * LO;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < total; i += (int64_t)gridDim.x * THREADS) {
        const int64_t row = i / LO, o = i - row * LO;
        const float *xr = x + row * L;
        const int64_t w0 = o * STRIDE - PAD;
        float m = -INFINITY;
#pragma unroll
        for (int k = 0; k < KSIZE; k++) {
            const int64_t w = w0 + (int64_t)k * DIL;
            if (w >= 0 && w < L) {
                const float v = xr[w];
                if (v > m || isnan(v))
                    m = v;
            }
        }
        y[i] = m;
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
    const int64_t LO = (L + 2 * PAD - DIL * (KSIZE - 1) - 1) / STRIDE + 1;
    if (N <= 0 || C <= 0 || LO <= 0 || y->shape[0] != N || y->shape[1] != C || y->shape[2] != LO)
        return 1;
    const int64_t total = N * C * LO;
    int64_t blocks = (total + THREADS - 1) / THREADS;
    if (blocks > 1048576)
        blocks = 1048576; /* grid-stride loop covers the rest */
    maxpool1d<<<(unsigned)blocks, THREADS, 0, args->stream>>>((const float *)x->data, N * C, L, LO, (float *)y->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
