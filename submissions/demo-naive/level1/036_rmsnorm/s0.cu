/*
 * demo-naive, level1/036_rmsnorm, sample s0: y = x / sqrt(mean(x^2, dim=1, keepdim) + 1e-5) for
 * x (B, C, H, W) fp32: the RMS is over the C channels at each (b, h, w) position.
 *
 * One thread per (b, position): it walks its C values at stride H*W (a warp covers 32
 * consecutive positions, so every load is coalesced), sums the squares in fp32 in channel order,
 * computes rms = sqrtf(sum / C + eps), then walks the C values again writing x / rms. The second
 * read hits L2: a block's 256 positions x 64 channels are 64 KiB, read moments before.
 * 256-thread blocks, grid (ceil(HW / 256), B).
 *
 * Napkin math (112 x 64 x 512 x 512 = 7.5 GB): read x once (+ the L2 re-read) + write y once =
 * 15 GB, ~3.5 ms at ~4.3 TB/s; eager PyTorch's five kernels with a full-size x**2 temporary take
 * 11.59 ms. Accuracy: 64 fp32 adds (relative error <= 64 * 2^-24 = 4e-6 on the sum, half that on
 * the rms), one division.
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
#define EPS 1e-5f

static __global__ void __launch_bounds__(THREADS)
rms_columns(const float *__restrict__ x, int64_t C, int64_t HW, float *__restrict__ y)
{
    const int64_t j = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (j >= HW)
        return;
    const int64_t base = (int64_t)blockIdx.y * C * HW + j;
    float s = 0.0f;
    for (int64_t c = 0; c < C; c++) {
        const float v = x[base + c * HW];
        s += v * v;
    }
    const float rms = sqrtf(s / (float)C + EPS);
    for (int64_t c = 0; c < C; c++)
        y[base + c * HW] = x[base + c * HW] / rms;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 4 || y->ndim != 4)
        return 1;
    for (int d = 0; d < 4; d++)
        if (x->shape[d] != y->shape[d])
            return 1;
    const int64_t B = x->shape[0], C = x->shape[1], HW = x->shape[2] * x->shape[3];
    if (B <= 0 || C <= 0 || HW <= 0)
        return 1;
    const int64_t gx = (HW + THREADS - 1) / THREADS;
    if (B > 65535 || gx > 0x7fffffff)
        return 1;
    rms_columns<<<dim3((unsigned)gx, (unsigned)B), THREADS, 0, args->stream>>>((const float *)x->data, C, HW,
                                                                             (float *)y->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
