/*
 * demo-tuned, level1/026_gelu, sample s0: y = gelu(x), the exact (erf) form of
 * torch.nn.functional.gelu: y = x * 0.5 * (1 + erf(x / sqrt(2))), any shape, fp32.
 *
 * Design: erff() is CUDA's full-precision erf (max 2 ulp; no --use_fast_math), not the tanh
 * approximation (up to 4.7e-4 off); the formula and evaluation order are PyTorch's
 * (approximate='none'), so outputs match torch's to the ulp. A persistent grid sized with the
 * occupancy calculator (erff needs registers: demo-naive measured that a fixed 8 blocks per SM
 * ran in 1.33 waves) runs a grid-stride loop; each trip a thread issues 4 independent 16-byte
 * streaming loads before computing, then 4 streaming 16-byte stores. A scalar tail covers
 * n mod 4, and a fully scalar path unaligned buffers. 64-bit indices. NaN in -> NaN out;
 * +-inf -> +inf / -0 as in torch (erf(+-inf) = +-1).
 *
 * Napkin math (4096 x 393216 = 1.61e9 elements): 6.44 GB read + 6.44 GB written = 12.9 GB, 3.0 ms
 * at ~4.3 TB/s. erff is ~20-40 instructions per element (3-6e10 lane-instructions against
 * ~3.3e13/s: 1-2 ms), hidden behind the memory traffic as long as enough loads are in flight.
 * Expect ~2.9-3.0 ms (demo-naive s0: 3.08 ms; eager PyTorch 3.28 / 3.11 ms): ~1.05-1.1x.
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

#define THREADS 256
#define UNROLL 4 /* independent 16-byte loads in flight per thread */

static __device__ __forceinline__ float op1(float v)
{
    const float kAlpha = 0.70710678118654752440f; /* 1/sqrt(2) */
    return v * 0.5f * (1.0f + erff(v * kAlpha));
}

static __device__ __forceinline__ float4 op4(float4 v)
{
    v.x = op1(v.x);
    v.y = op1(v.y);
    v.z = op1(v.z);
    v.w = op1(v.w);
    return v;
}

/* Grid-stride loop over the n4 float4s (UNROLL of them per thread per trip, each a grid-stride
 * apart so that every load instruction of a warp covers 512 contiguous bytes), then the n - 4*n4
 * trailing floats one per thread. n4 = 0 (unaligned buffers) makes everything scalar. Every
 * element is visited exactly once: float4 q by the thread with q % stride == its id, float
 * 4*n4 + e likewise. */
static __global__ void __launch_bounds__(THREADS)
ew_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t n4, int64_t n)
{
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    const int64_t tid = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float4 *y4 = reinterpret_cast<float4 *>(y);

    int64_t i = tid;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = __ldcs(x4 + i + u * stride); /* streaming: touched once */
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            __stcs(y4 + i + u * stride, op4(v[u]));
    }
    for (; i < n4; i += stride)
        __stcs(y4 + i, op4(__ldcs(x4 + i)));
    for (int64_t j = 4 * n4 + tid; j < n; j += stride)
        y[j] = op1(x[j]);
}

static int same_shape(const kb_input *in, const kb_output *out)
{
    if (in->ndim != out->ndim)
        return 0;
    for (int32_t d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return 0;
    return 1;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || !same_shape(x, y))
        return 1;
    const int64_t n = kb_input_numel(x);
    if (n <= 0)
        return n == 0 ? 0 : 1;

    /* Persistent grid: as many blocks as fit on the GPU at once (the occupancy calculator
     * accounts for this kernel's register count), never more than there is work for. */
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ew_kernel, THREADS, 0) != cudaSuccess)
        return 2;
    if (sms <= 0 || per_sm <= 0)
        return 2;

    const int aligned = ((uintptr_t)x->data % 16 == 0) && ((uintptr_t)y->data % 16 == 0);
    const int64_t n4 = aligned ? n / 4 : 0;
    const int64_t work = n4 + (n - 4 * n4); /* vector items + scalar items */
    int64_t blocks = (int64_t)sms * per_sm;
    const int64_t need = (work + THREADS - 1) / THREADS;
    if (blocks > need)
        blocks = need;

    ew_kernel<<<(unsigned)blocks, THREADS, 0, args->stream>>>((const float *)x->data, (float *)y->data, n4, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
