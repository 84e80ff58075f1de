/*
 * demo-naive, level1/045_avgpool2d, sample s0: AvgPool2d(kernel_size=11) (stride 11, padding 0),
 * x (N, C, H, W) -> y (N, C, OH, OW), OH = (H - 11)/11 + 1 (186 for 2048).
 *
 * One thread per output element (grid-stride loop, 64-bit indices: x has 4.29e9 elements, so
 * plane offsets exceed 2^31). The thread sums its 11 x 11 window in fp32, row by row (PyTorch's
 * order), and divides by 121: with no padding every window is full.
 *
 * Napkin math (16 x 64 x 2048 x 2048 -> 186 x 186): 17.1 GB read + 0.14 GB written, 4.0 ms at
 * ~4.3 TB/s. A warp's 32 threads read 32 adjacent 11-float row segments (1408 bytes) per window
 * row, each thread one float per load: the lines come through L1 and every byte is used, so
 * expect ~5-7 ms (eager PyTorch, the same scheme with 1024-thread blocks: 4.13 ms).
 * Accuracy: 120 fp32 adds and one division, as PyTorch (bitwise equal).
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

#define KSIZE 11
#define STRIDE 11
#define THREADS 256

static __global__ void __launch_bounds__(THREADS)
avgpool2d(const float *__restrict__ x, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW,
          float *__restrict__ y)
{
    const int64_t total = planes * OH * OW;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < total; i += (int64_t)gridDim.x * THREADS) {
        const int64_t ow = i % OW, t = i / OW, oh = t % OH, plane = t / OH;
        const float *xp = x + plane * H * W + (oh * STRIDE) * W + ow * STRIDE;
        float s = 0.0f;
        for (int kh = 0; kh < KSIZE; kh++) {
#pragma unroll
            for (int kw = 0; kw < KSIZE; kw++)
                s += xp[(int64_t)kh * W + kw];
        }
        y[i] = s / (float)(KSIZE * KSIZE);
    }
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 4 || y->ndim != 4)
        return 1;
    const int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    if (N <= 0 || C <= 0 || H < KSIZE || W < KSIZE)
        return 1;
    const int64_t OH = (H - KSIZE) / STRIDE + 1, OW = (W - KSIZE) / STRIDE + 1;
    if (y->shape[0] != N || y->shape[1] != C || y->shape[2] != OH || y->shape[3] != OW)
        return 1;
    const int64_t total = N * C * OH * OW;
    int64_t blocks = (total + THREADS - 1) / THREADS;
    if (blocks > 1048576)
        blocks = 1048576; /* grid-stride loop covers the rest */
    avgpool2d<<<(unsigned)blocks, THREADS, 0, args->stream>>>((const float *)x->data, N * C, H, W, OH, OW,
                                                                (float *)y->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
