/*
 * demo-tuned, level2/050_convtranspose3d_scaling_avgpool_biasadd_scaling, sample s0:
 *   c = ConvTranspose3d(3, 16, 3, stride=2, padding=1)(x)    x (128, 3, 16, 32, 32) -> (128, 16, 31, 63, 63)
 *   y = (avg_pool3d(c * scale1, 2) + bias) * scale2          -> (128, 16, 15, 31, 31)
 * with scale1, scale2 0-d parameters and bias (16, 1, 1, 1).
 *
 * Design: ONE kernel; the 0.94 GiB convolution output never exists. With 3 input channels a
 * transposed-convolution output is ~10 multiply-adds (stride 2, kernel 3: per dim one tap at an
 * even position, two at an odd one), so computing it where the pool needs it is far cheaper
 * than writing and re-reading it. A thread owns one pooled position (n, pd, ph, pw) and all 16
 * output channels: the 2x2x2 conv outputs under its window are at conv positions 2p + a
 * (a in {0,1} per dim), whose taps read only the input positions p and p + 1 per dim, so the
 * thread loads 3 x 2 x 2 x 2 = 24 input values once and reuses them for 16 channels x 8 conv
 * outputs (1296 FMAs). The weights (5 KB) and the conv bias are copied into __constant__ memory
 * on args->stream at the start of every call (device-to-device; nothing survives into the next
 * call's results), and the loops are fully unrolled, so every weight is an FFMA constant
 * operand: no shared-memory or L1 traffic for the weights at all. The parities of the 8 conv
 * outputs are compile-time, so the tap sets are too.
 *
 * Exactness: each conv output is its 3-27 products summed in a fixed order (input channel, then
 * kd, kh, kw) in float, then the conv bias added as its own rounding (eager adds the bias in a
 * separate kernel), then the multiply by scale1, the pool's float sum in eager's (t, h, w) order
 * divided by 8, the bias add and the multiply by scale2, each rounded as eager's kernels round
 * (add_rn / mul_rn: no contraction across op boundaries). Only the order of the conv's own sum
 * differs from cuDNN's; the strict bound for 24 terms allows ~5e-6 of the summed magnitudes, this
 * order errs by < 1e-6. Deterministic (the problem is flagged nondeterministic for eager's cuDNN
 * backward-data engines; this kernel is not). Against a TF32 reference (PyTorch's defaults allow
 * it in cuDNN) the pool averages TF32's error away: simulated on the CPU it needs tau <= 7e-5 on
 * D2.
 *
 * Napkin math (H200: ~4.3 TB/s HBM, FP32 ~60 TFLOP/s peak):
 *   eager: conv 5.0e9 FLOP; the 0.94 GiB conv output is written, read and written by the bias
 *   add and the scale, read by the pool: ~6.7 GB of traffic plus six launches.
 *   here: x 25 MB read (each value by up to 8 threads, from L1/L2), y 118 MB written; 1.8M
 *   threads x 1296 FMAs = 2.4e9 FMAs = ~0.08 ms at ~60 TFLOP/s; the stores ~0.03 ms.
 *   Expected: ~0.1-0.15 ms against eager FP32 5.39 ms / TF32 5.38 ms
 *   (reference/pytorch-eager-h200.csv): ~40x.
 *
 * Inputs by name (problems/level2/050_convtranspose3d_scaling_avgpool_biasadd_scaling.c
 * KB_INPUTS): x, scale1, bias, scale2, conv_transpose.weight (3, 16, 3, 3, 3),
 * conv_transpose.bias; output y. Any (N, 3, D, H, W) input runs (64-bit indexing).
 *
 * Build (the compile stage's command; it also links cuBLAS, cuBLASLt and cuDNN with
 * --as-needed, none of which this object needs):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I include -o /tmp/x.so s0.cu \
 *        -Xlinker --as-needed -lcublas -lcublasLt -lcudnn
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, names,
 * dtype, shape); 2 a CUDA call failed.
 */
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define THREADS 256
#define CIN 3
#define COUT 16
#define KS 3 /* kernel size; stride 2, padding 1, output_padding 0 are built into the tap sets */
#define NW (CIN * COUT * KS * KS * KS)

__constant__ float c_w[NW];   /* conv_transpose.weight [ci][co][kd][kh][kw], this call's */
__constant__ float c_cb[COUT]; /* conv_transpose.bias, this call's */

/* ---- rounded float ops, usable on the host too ------------------------------------------------
 * Device: __fadd_rn and friends, which nvcc never contracts into an FMA, so every op rounds where
 * eager's separate kernels round. Host (x86-64 without -mfma, which never contracts): plain
 * operators, so the per-position functions below can be run by a CPU emulation of the index math. */
static __host__ __device__ __forceinline__ float add_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
static __host__ __device__ __forceinline__ float mul_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
static __host__ __device__ __forceinline__ float div_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}

/* ---- the transposed convolution at one output position -------------------------------------- */

/* Conv position 2p + a along one dim (a = 0 or 1): tap t of its taps. Even positions (a = 0)
 * have one tap, k = 1 reading input p; odd ones two, k = 0 reading input p + 1 and k = 2 reading
 * input p (output index = 2 * input - 1 + k). */
#define NTAPS(a) ((a) ? 2 : 1)
#define TAP_K(a, t) ((a) ? ((t) ? 2 : 0) : 1)
#define TAP_OFF(a, t) ((a) ? ((t) ? 0 : 1) : 0)

/* The convolution (without its bias) at conv position (2pd + AD, 2ph + AH, 2pw + AW), channel co,
 * from xv[ci][dd][hh][ww] = x[ci][pd + dd][ph + hh][pw + ww]; products summed in ci, kd, kh, kw
 * order. P supplies the weights: P::w(index). */
template <int AD, int AH, int AW, class P>
static __host__ __device__ __forceinline__ float conv_at(const float (&xv)[CIN][2][2][2], int co, const P &p)
{
    float acc = 0.0f;
#pragma unroll
    for (int ci = 0; ci < CIN; ci++)
#pragma unroll
        for (int td = 0; td < NTAPS(AD); td++)
#pragma unroll
            for (int th = 0; th < NTAPS(AH); th++)
#pragma unroll
                for (int tw = 0; tw < NTAPS(AW); tw++) {
                    const int widx = (((ci * COUT + co) * KS + TAP_K(AD, td)) * KS + TAP_K(AH, th)) * KS + TAP_K(AW, tw);
                    acc = fmaf(xv[ci][TAP_OFF(AD, td)][TAP_OFF(AH, th)][TAP_OFF(AW, tw)], p.w(widx), acc);
                }
    return acc;
}

/* One pool window's term: (conv + conv bias) * scale1, added to the window sum s in order. */
template <int AD, int AH, int AW, class P>
static __host__ __device__ __forceinline__ float pool_term(float s, const float (&xv)[CIN][2][2][2], int co,
                                                           float cb, float scale1, const P &p)
{
    const float c = add_rn(conv_at<AD, AH, AW>(xv, co, p), cb);
    return add_rn(s, mul_rn(c, scale1));
}

/* Everything for pooled position (n, pd, ph, pw): y[n][co][pd][ph][pw] for all 16 channels.
 * Pooled extents are D - 1, H - 1, W - 1 (conv extents 2D - 1, ...; the pool drops the last). */
template <class P>
static __host__ __device__ __forceinline__ void pooled_point(const float *__restrict__ x, const float *__restrict__ bias,
                                                             float scale1, float scale2, const P &p,
                                                             float *__restrict__ y, int64_t n, int64_t pd, int64_t ph,
                                                             int64_t pw, int64_t D, int64_t H, int64_t W)
{
    float xv[CIN][2][2][2];
#pragma unroll
    for (int ci = 0; ci < CIN; ci++)
#pragma unroll
        for (int dd = 0; dd < 2; dd++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++)
#pragma unroll
                for (int ww = 0; ww < 2; ww++)
                    xv[ci][dd][hh][ww] = x[(((n * CIN + ci) * D + pd + dd) * H + ph + hh) * W + pw + ww];
    const int64_t PD = D - 1, PH = H - 1, PW = W - 1;
#pragma unroll
    for (int co = 0; co < COUT; co++) {
        const float cb = p.cb(co);
        float s = 0.0f; /* avg_pool3d: the window summed in (t, h, w) order, then / 8 */
        s = pool_term<0, 0, 0>(s, xv, co, cb, scale1, p);
        s = pool_term<0, 0, 1>(s, xv, co, cb, scale1, p);
        s = pool_term<0, 1, 0>(s, xv, co, cb, scale1, p);
        s = pool_term<0, 1, 1>(s, xv, co, cb, scale1, p);
        s = pool_term<1, 0, 0>(s, xv, co, cb, scale1, p);
        s = pool_term<1, 0, 1>(s, xv, co, cb, scale1, p);
        s = pool_term<1, 1, 0>(s, xv, co, cb, scale1, p);
        s = pool_term<1, 1, 1>(s, xv, co, cb, scale1, p);
        const float avg = div_rn(s, 8.0f);
        y[(((n * COUT + co) * PD + pd) * PH + ph) * PW + pw] = mul_rn(add_rn(avg, bias[co]), scale2);
    }
}

/* ---- the kernel ------------------------------------------------------------------------------ */

struct ConstParams {
    __device__ __forceinline__ float w(int i) const { return c_w[i]; }
    __device__ __forceinline__ float cb(int c) const { return c_cb[c]; }
};

/* Thread i: pooled position i of (N, PD, PH, PW), pw fastest (coalesced stores per channel). */
static __global__ void __launch_bounds__(THREADS)
convt_scale_pool(const float *__restrict__ x, const float *__restrict__ bias, const float *__restrict__ scale1,
                 const float *__restrict__ scale2, float *__restrict__ y, int64_t D, int64_t H, int64_t W, int64_t total)
{
    const int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (i >= total)
        return;
    const int64_t PW = W - 1, PH = H - 1, PD = D - 1;
    const int64_t pw = i % PW, ph = (i / PW) % PH, pd = (i / (PW * PH)) % PD, n = i / (PW * PH * PD);
    pooled_point(x, bias, __ldg(scale1), __ldg(scale2), ConstParams(), y, n, pd, ph, pw, D, H, W);
}

/* ---- the dispatcher --------------------------------------------------------------------------- */

static const kb_input *input(const kb_args *a, const char *name, int ndim)
{
    for (uint32_t i = 0; i < a->n_inputs; i++)
        if (a->inputs[i].name && strcmp(a->inputs[i].name, name) == 0)
            return a->inputs[i].dtype == KB_F32 && a->inputs[i].ndim == ndim && a->inputs[i].data ? &a->inputs[i]
                                                                                                   : NULL;
    return NULL;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 6 || args->n_outputs != 1)
        return 1;
    const kb_input *x = input(args, "x", 5), *s1 = input(args, "scale1", 0), *bias = input(args, "bias", 4),
                   *s2 = input(args, "scale2", 0), *w = input(args, "conv_transpose.weight", 5),
                   *cb = input(args, "conv_transpose.bias", 1);
    const kb_output *y = &args->outputs[0];
    if (!x || !s1 || !bias || !s2 || !w || !cb || y->dtype != KB_F32 || y->ndim != 5 || !y->data)
        return 1;
    const int64_t N = x->shape[0], D = x->shape[2], H = x->shape[3], W = x->shape[4];
    if (x->shape[1] != CIN || w->shape[0] != CIN || w->shape[1] != COUT || w->shape[2] != KS || w->shape[3] != KS ||
        w->shape[4] != KS || cb->shape[0] != COUT || bias->shape[0] != COUT || bias->shape[1] != 1 ||
        bias->shape[2] != 1 || bias->shape[3] != 1)
        return 1;
    if (N < 1 || D < 2 || H < 2 || W < 2 || y->shape[0] != N || y->shape[1] != COUT || y->shape[2] != D - 1 ||
        y->shape[3] != H - 1 || y->shape[4] != W - 1)
        return 1;
    const int64_t total = N * (D - 1) * (H - 1) * (W - 1);
    if ((total + THREADS - 1) / THREADS > 0x7fffffff)
        return 1;
    cudaStream_t st = args->stream;
    if (cudaMemcpyToSymbolAsync(c_w, w->data, sizeof(float) * NW, 0, cudaMemcpyDeviceToDevice, st) != cudaSuccess ||
        cudaMemcpyToSymbolAsync(c_cb, cb->data, sizeof(float) * COUT, 0, cudaMemcpyDeviceToDevice, st) != cudaSuccess)
        return 2;
    convt_scale_pool<<<(unsigned)((total + THREADS - 1) / THREADS), THREADS, 0, st>>>(
        (const float *)x->data, (const float *)bias->data, (const float *)s1->data, (const float *)s2->data,
        (float *)y->data, D, H, W, total);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
