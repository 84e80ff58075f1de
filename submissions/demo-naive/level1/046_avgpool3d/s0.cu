/*
 * demo-naive, level1/046_avgpool3d, sample s0: AvgPool3d(kernel_size=3, stride=2, padding=1)
 * (count_include_pad=True), x (N, C, D, H, W) -> y (N, C, OD, OH, OW), O = (n + 2 - 3)/2 + 1.
 *
 * One thread per output element (grid-stride loop, 64-bit indices: x has 2.15e9 elements, above
 * 2^31). The thread sums, in fp32 and in PyTorch's (d, h, w) order, the taps of its 3 x 3 x 3
 * window that fall inside the volume and divides by the window clipped to the padded volume
 * (count_include_pad: 27 for every output with these sizes, padded taps counting as zeros).
 *
 * Napkin math (16 x 32 x 128 x 128 x 256 -> 64 x 64 x 128): 8.59 GB read + 0.54 GB written =
 * 9.1 GB, 2.1 ms at ~4.3 TB/s; neighbouring threads read 2 floats apart and each input row is
 * needed by two output rows, so L1/L2 carry the reuse. Expect ~4-6 ms (eager PyTorch: 8.70 ms).
 * Accuracy: 26 fp32 adds and one division, as PyTorch (bitwise equal).
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

#define KSIZE 3
#define STRIDE 2
#define PAD 1
#define THREADS 256

static __global__ void __launch_bounds__(THREADS)
avgpool3d(const float *__restrict__ x, int64_t vols, int64_t D, int64_t H, int64_t W, int64_t OD, int64_t OH,
          int64_t OW, float *__restrict__ y)
{
    const int64_t total = vols * OD * OH * OW;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < total; i += (int64_t)gridDim.x * THREADS) {
        int64_t t = i;
        const int64_t ow = t % OW;
        t /= OW;
        const int64_t oh = t % OH;
        t /= OH;
        const int64_t od = t % OD;
        const int64_t vol = t / OD;
        int64_t d0 = od * STRIDE - PAD, h0 = oh * STRIDE - PAD, w0 = ow * STRIDE - PAD;
        int64_t d1 = d0 + KSIZE < D + PAD ? d0 + KSIZE : D + PAD;
        int64_t h1 = h0 + KSIZE < H + PAD ? h0 + KSIZE : H + PAD;
        int64_t w1 = w0 + KSIZE < W + PAD ? w0 + KSIZE : W + PAD;
        const float divisor = (float)((d1 - d0) * (h1 - h0) * (w1 - w0)); /* count_include_pad */
        d0 = d0 < 0 ? 0 : d0;
        h0 = h0 < 0 ? 0 : h0;
        w0 = w0 < 0 ? 0 : w0;
        d1 = d1 > D ? D : d1;
        h1 = h1 > H ? H : h1;
        w1 = w1 > W ? W : w1;
        const float *xv = x + vol * D * H * W;
        float s = 0.0f;
        for (int64_t d = d0; d < d1; d++)
            for (int64_t h = h0; h < h1; h++)
                for (int64_t w = w0; w < w1; w++)
                    s += xv[(d * H + h) * W + w];
        y[i] = (d0 < d1 && h0 < h1 && w0 < w1) ? s / divisor : 0.0f;
    }
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 5 || y->ndim != 5)
        return 1;
    const int64_t N = x->shape[0], C = x->shape[1], D = x->shape[2], H = x->shape[3], W = x->shape[4];
    if (N <= 0 || C <= 0 || D < KSIZE || H < KSIZE || W < KSIZE)
        return 1;
    const int64_t OD = (D + 2 * PAD - KSIZE) / STRIDE + 1, OH = (H + 2 * PAD - KSIZE) / STRIDE + 1,
                  OW = (W + 2 * PAD - KSIZE) / STRIDE + 1;
    if (y->shape[0] != N || y->shape[1] != C || y->shape[2] != OD || y->shape[3] != OH || y->shape[4] != OW)
        return 1;
    const int64_t total = N * C * OD * OH * OW;
    int64_t blocks = (total + THREADS - 1) / THREADS;
    if (blocks > 1048576)
        blocks = 1048576; /* grid-stride loop covers the rest */
    avgpool3d<<<(unsigned)blocks, THREADS, 0, args->stream>>>((const float *)x->data, N * C, D, H, W, OD, OH, OW,
                                                                (float *)y->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
