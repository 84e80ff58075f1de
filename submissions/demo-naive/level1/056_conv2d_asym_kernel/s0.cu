/*
 * demo-naive, level1/056_conv2d_asym_kernel, sample s0: y = nn.Conv2d(64, 128, (5, 7), bias=False)(x) (KernelBench L1/56),
 * x (8, 64, 512, 256) -> y (8, 128, 508, 250), fp32.
 *
 * Design: one generic implicit-GEMM kernel (the same template in every conv sample of this model,
 * only the constants below differ). Rows m = (n, output position): M = 1016000; columns = the output
 * channels of one group (128, blockIdx.z = group); reduction kg = (input channel, tap): K = 2240.
 * A 64x64 output tile per 256-thread block, 4x4 outputs per thread, the reduction in 16-wide slices
 * staged in shared memory: each thread gathers 4 x values for its fixed output position (0 outside
 * the input / in the padding) and 4 weights; the (channel, tap) decode of a slice is done once per block into shared.
 * Every x value is reused 64 times from shared memory, every weight 64 times. Exact FP32 (fmaf, no TF32,
 * no tensor cores), no atomics: deterministic. 64-bit offsets throughout (x, y index math in int64).
 *
 * Napkin math: useful 5.83e+11 FLOP; the kernel issues 5.83e+11 (padded tiles: 100% useful). At ~5
 * TFLOP/s (FP32 CUDA cores, gather-limited, no tensor cores) that is ~117 ms; x 0.25 GiB + y 0.48 GiB of
 * traffic (0.18 ms at 4.3 TB/s) is minor. Eager PyTorch (cuDNN, TF32) takes ~2.77 ms: this sample is the
 * careful first version, not a fast one.
 * Accuracy: each output sums 2240 fp32 products in a fixed order (relative error ~ sqrt(K) 2^-24
 * typical); against eager PyTorch (TF32 inside cuDNN) the difference is dominated by PyTorch's TF32.
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

/* The layer (nn.Conv2d(64, 128, (5, 7), bias=False)), as 3-D geometry: missing leading spatial dims have size 1, kernel 1,
 * stride 1, padding 0, dilation 1. */
#define TRANSPOSED 0
#define HAS_BIAS 0
static const int64_t NB = 8, CIN = 64, COUT = 128, GROUPS = 1;
static const int64_t I0 = 1, I1 = 512, I2 = 256; /* input spatial extent (D, H, W) */
static const int64_t K0 = 1, K1 = 5, K2 = 7; /* kernel */
static const int64_t O0 = 1, O1 = 508, O2 = 250; /* output spatial extent */
static const int S0 = 1, S1 = 1, S2 = 1, P0 = 0, P1 = 0, P2 = 0, D0 = 1, D1 = 1, D2 = 1;

#define BM 64 /* output positions per block */
#define BN 64 /* output channels (of one group) per block */
#define BK 16 /* reduction slice: (input channel, tap) pairs */

struct geo {
    int64_t i0, i1, i2, k0, k1, k2, o0, o1, o2;
    int s0, s1, s2, p0, p1, p2, d0, d1, d2;
};

/* Implicit GEMM, one group per blockIdx.z: y[n, g*Cg + co, o] = sum_kg A[m, kg] * B[kg, co] with
 * m = (n, o), kg = (ci, tap) over the group's C_in/groups input channels (forward) or input
 * channels (transposed). A is gathered from x on the fly (0 outside the input, and, transposed,
 * where the tap does not hit a stride point), B from w. */
static __global__ void __launch_bounds__(256)
conv_igemm(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ bias,
           float *__restrict__ y, int64_t nbatch, int64_t cin, int64_t cout, int64_t groups, geo g)
{
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    __shared__ int tap[BK][4]; /* per slice entry: ci (-1 past the end), k0, k1, k2 */

    const int tid = threadIdx.x;
    const int64_t cin_g = cin / groups, cout_g = cout / groups;
    const int kvol = (int)(g.k0 * g.k1 * g.k2);
    const int kdim = (int)cin_g * kvol; /* <= a few thousand for every KernelBench layer */
    const int64_t osp = g.o0 * g.o1 * g.o2, isp = g.i0 * g.i1 * g.i2;
    const int64_t M = nbatch * osp;
    const int64_t grp = blockIdx.z;
    const int64_t m0 = (int64_t)blockIdx.x * BM, n0 = (int64_t)blockIdx.y * BN;

    /* This thread's A row (fixed for the whole reduction): output position m. */
    const int a_m = tid % BM, a_k = tid / BM; /* a_k in 0..3: rows a_k, a_k+4, a_k+8, a_k+12 */
    const int64_t m = m0 + a_m;
    const bool m_ok = m < M;
    int64_t nb = 0, q0 = 0, q1 = 0, q2 = 0;
    if (m_ok) {
        nb = m / osp;
        int64_t r = m - nb * osp;
        q0 = r / (g.o1 * g.o2);
        r -= q0 * (g.o1 * g.o2);
        q1 = r / g.o2;
        q2 = r - q1 * g.o2;
    }
    const float *xb = x + (nb * cin + grp * cin_g) * isp;
    const int b_k = tid % BK, b_n = tid / BK; /* B: rows b_k, columns b_n + 16 j */
    const int tm = (tid % 16) * 4, tn = (tid / 16) * 4;
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < kdim; k0 += BK) {
        if (tid < BK) {
            const int kg = k0 + tid;
            if (kg < kdim) {
                const int ci = kg / kvol;
                int t = kg - ci * kvol;
                const int t0 = t / (int)(g.k1 * g.k2);
                t -= t0 * (int)(g.k1 * g.k2);
                tap[tid][0] = ci;
                tap[tid][1] = t0;
                tap[tid][2] = t / (int)g.k2;
                tap[tid][3] = t % (int)g.k2;
            } else {
                tap[tid][0] = -1;
            }
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int kk = a_k + 4 * j;
            const int ci = tap[kk][0];
            float v = 0.0f;
            if (m_ok && ci >= 0) {
                int64_t i0, i1, i2;
                bool ok;
#if TRANSPOSED
                /* y[o] gets x[i] * w[k] where o = i*s - p + k*d: i = (o + p - k*d) / s, exact. */
                const int64_t e0 = q0 + g.p0 - (int64_t)tap[kk][1] * g.d0;
                const int64_t e1 = q1 + g.p1 - (int64_t)tap[kk][2] * g.d1;
                const int64_t e2 = q2 + g.p2 - (int64_t)tap[kk][3] * g.d2;
                ok = e0 >= 0 && e1 >= 0 && e2 >= 0 && e0 % g.s0 == 0 && e1 % g.s1 == 0 && e2 % g.s2 == 0;
                i0 = e0 / g.s0, i1 = e1 / g.s1, i2 = e2 / g.s2;
                ok = ok && i0 < g.i0 && i1 < g.i1 && i2 < g.i2;
#else
                i0 = q0 * g.s0 - g.p0 + (int64_t)tap[kk][1] * g.d0;
                i1 = q1 * g.s1 - g.p1 + (int64_t)tap[kk][2] * g.d1;
                i2 = q2 * g.s2 - g.p2 + (int64_t)tap[kk][3] * g.d2;
                ok = i0 >= 0 && i0 < g.i0 && i1 >= 0 && i1 < g.i1 && i2 >= 0 && i2 < g.i2;
#endif
                if (ok)
                    v = __ldg(xb + (int64_t)ci * isp + (i0 * g.i1 + i1) * g.i2 + i2);
            }
            As[kk][a_m] = v;
        }
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int nn = b_n + 16 * j;
            const int64_t co = n0 + nn;
            const int kg = k0 + b_k;
            float v = 0.0f;
            if (co < cout_g && kg < kdim) {
#if TRANSPOSED
                /* w [C_in, C_out/groups, k...] */
                const int ci = tap[b_k][0], t = kg - ci * kvol;
                v = __ldg(w + ((grp * cin_g + ci) * cout_g + co) * kvol + t);
#else
                /* w [C_out, C_in/groups, k...]: row co of the group is kdim contiguous floats */
                v = __ldg(w + (grp * cout_g + co) * kdim + kg);
#endif
            }
            Bs[b_k][nn] = v;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                a[i] = As[kk][tm + i];
                b[i] = Bs[kk][tn + i];
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int64_t mm = m0 + tm + i;
        if (mm >= M)
            continue;
        const int64_t n = mm / osp, r = mm - n * osp;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int64_t co = n0 + tn + j;
            if (co >= cout_g)
                continue;
            const int64_t c = grp * cout_g + co;
            y[(n * cout + c) * osp + r] = acc[i][j] + (bias ? __ldg(bias + c) : 0.0f);
        }
    }
}

static int shape_is(int32_t ndim, const int64_t *shape, int want_ndim, const int64_t *want)
{
    if (ndim != want_ndim)
        return 0;
    for (int i = 0; i < ndim; i++)
        if (shape[i] != want[i])
            return 0;
    return 1;
}

extern "C" int kb_forward(const kb_args *args)
{
    const int nsd = 2;
    const int64_t isz[3] = {I0, I1, I2}, ksz[3] = {K0, K1, K2}, osz[3] = {O0, O1, O2};
    int64_t xs[5] = {NB, CIN}, ws[5], ys[5] = {NB, COUT};
    ws[0] = TRANSPOSED ? CIN : COUT;
    ws[1] = TRANSPOSED ? COUT / GROUPS : CIN / GROUPS;
    for (int i = 0; i < nsd; i++) {
        xs[2 + i] = isz[3 - nsd + i];
        ws[2 + i] = ksz[3 - nsd + i];
        ys[2 + i] = osz[3 - nsd + i];
    }
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 2 + HAS_BIAS || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0], *w = &args->inputs[1];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || w->dtype != KB_F32 || y->dtype != KB_F32)
        return 1;
    if (!shape_is(x->ndim, x->shape, nsd + 2, xs) || !shape_is(w->ndim, w->shape, nsd + 2, ws) ||
        !shape_is(y->ndim, y->shape, nsd + 2, ys))
        return 1;
    const float *bias = NULL;
#if HAS_BIAS
    {
        const kb_input *b = &args->inputs[2];
        const int64_t bs[1] = {COUT};
        if (b->dtype != KB_F32 || !shape_is(b->ndim, b->shape, 1, bs))
            return 1;
        bias = (const float *)b->data;
    }
#endif
    const geo g = {I0, I1, I2, K0, K1, K2, O0, O1, O2, S0, S1, S2, P0, P1, P2, D0, D1, D2};
    const int64_t M = NB * O0 * O1 * O2;
    const int64_t gx = (M + BM - 1) / BM, gy = (COUT / GROUPS + BN - 1) / BN;
    if (gx > 0x7fffffff || gy > 65535 || GROUPS > 65535)
        return 1;
    conv_igemm<<<dim3((unsigned)gx, (unsigned)gy, (unsigned)GROUPS), 256, 0, args->stream>>>(
        (const float *)x->data, (const float *)w->data, bias, (float *)y->data, NB, CIN, COUT, GROUPS, g);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
