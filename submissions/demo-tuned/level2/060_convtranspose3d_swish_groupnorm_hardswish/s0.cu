/*
 * demo-tuned, level2/060_convtranspose3d_swish_groupnorm_hardswish, sample s0:
 *   c = ConvTranspose3d(3, 16, 3, stride=2, padding=1)(x)    x (128, 3, 16, 32, 32) -> (128, 16, 31, 63, 63)
 *   s = sigmoid(c) * c
 *   y = hardswish(GroupNorm(4 groups, 16)(s))                (4 channels per group, eps 1e-5, affine)
 *
 * Design: the 0.94 GiB convolution output is never stored; with 3 input channels a
 * transposed-convolution output is ~10 multiply-adds (stride 2, kernel 3: per dim one tap at an
 * even position, two at an odd one), cheaper to compute twice than to write and read back.
 * Three kernels on args->stream:
 *   1. gn_partials: a thread owns a 2x2x2 block of conv positions (2i + a, a in {0,1} per dim)
 *      and all 16 channels: their taps read only inputs i and i + 1 per dim, 24 values loaded
 *      once. It computes c and s for its 128 outputs and accumulates, per group, the sum and the
 *      sum of squares in DOUBLE; the block (256 threads of one sample) reduces them in a fixed
 *      order into partial[n][block][group].
 *   2. gn_params: per (n, channel), its group's partials added in order: mean, biased variance,
 *      rstd = rsqrtf(var + eps) as eager, then eager's fused parameters a = rstd * gamma,
 *      b = -a * mean + beta.
 *   3. gn_apply: the same 2x2x2 blocks again: recompute c and s, y = a * s + b, hardswish, store.
 *      y is written once; x (25 MB) is read twice, mostly from L2.
 * The weights (5 KB) and the conv bias are copied into __constant__ memory on args->stream at the
 * start of every call (device-to-device; nothing survives into the next call's results); the
 * loops are fully unrolled, so every weight is an FFMA constant operand. The parities of the 8
 * positions of a block are compile-time, so their tap sets are too.
 *
 * Exactness: each conv output is its products summed in a fixed order (input channel, then kd,
 * kh, kw) in float, then the conv bias added as its own rounding (eager adds it in a separate
 * kernel); sigmoid is 1 / (1 + expf(-x)) as eager's functor, then one rounded multiply; the
 * statistics are double sums (eager: float Welford), the normalisation eager's a * x + b with its
 * fused parameters; hardswish is eager's functor (x * min(max(x + 3, 0), 6) * (1/6), NaN kept).
 * Both passes compute bit-identical s. Deterministic (the problem is flagged nondeterministic for
 * eager's cuDNN backward-data engines; this code is not). Against the standard check's reference
 * (PyTorch's defaults: cuDNN TF32 on): if cuDNN's backward-data engines run this 3-channel
 * convolution in TF32, the GroupNorm magnifies TF32's error (the group standard deviation is
 * ~0.03-0.1): simulated on the CPU (0.46M outputs) that needs tau 1.0e-3 to 1.2e-3 on D1, so the
 * standard check would fail; with FMA engines (likely for 3 channels, which tensor-core kernels
 * do not take unpadded) the two agree to FP32 rounding.
 *
 * Napkin math (H200: ~4.3 TB/s HBM, FP32 ~60 TFLOP/s, ~29 T lane-instructions/s):
 *   eager: conv 5.0e9 FLOP; the conv output (0.94 GiB) is written, read and written by the bias
 *   add and sigmoid, read twice by the multiply, read twice and written by the GroupNorm, read
 *   and written by hardswish: ~13 GB of traffic plus the launches.
 *   here: 1.0 GB written once, x read twice from L2; the compute is what costs: per output and
 *   pass ~10 FMAs of conv plus ~25 instructions of sigmoid (expf, the IEEE division), 2.5e8
 *   outputs x 2 passes x ~40 instructions = 2e10 lane-instructions, ~0.7 ms, over the 0.25 ms of
 *   stores.
 *   Expected: ~0.7-0.9 ms against eager FP32 6.69 ms / TF32 6.68 ms
 *   (reference/pytorch-eager-h200.csv): ~8x.
 *
 * Inputs by name (problems/level2/060_convtranspose3d_swish_groupnorm_hardswish.c KB_INPUTS): x,
 * conv_transpose.weight (3, 16, 3, 3, 3), conv_transpose.bias, group_norm.weight,
 * group_norm.bias; output y. Any (N, 3, D, H, W) input runs (64-bit indexing).
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
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define CIN 3
#define COUT 16
#define GROUPS 4
#define CPG (COUT / GROUPS) /* channels per group */
#define KS 3 /* kernel size; stride 2, padding 1, output_padding 0 are built into the tap sets */
#define NW (CIN * COUT * KS * KS * KS)
#define EPS 1e-5f

__constant__ float c_w[NW];    /* conv_transpose.weight [ci][co][kd][kh][kw], this call's */
__constant__ float c_cb[COUT]; /* conv_transpose.bias, this call's */

/* ---- rounded float ops, usable on the host too ------------------------------------------------
 * Device: __fadd_rn and friends, which nvcc never contracts into an FMA, so every op rounds where
 * eager's separate kernels round. Host (x86-64 without -mfma, which never contracts): plain
 * operators, so the per-block functions below can be run by a CPU emulation of the index math. */
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

/* ---- the transposed convolution and the elementwise ops --------------------------------------- */

/* Conv position 2i + a along one dim (a = 0 or 1): tap t of its taps. Even positions (a = 0)
 * have one tap, k = 1 reading input i; odd ones two, k = 0 reading input i + 1 and k = 2 reading
 * input i (output index = 2 * input - 1 + k). */
#define NTAPS(a) ((a) ? 2 : 1)
#define TAP_K(a, t) ((a) ? ((t) ? 2 : 0) : 1)
#define TAP_OFF(a, t) ((a) ? ((t) ? 0 : 1) : 0)

typedef float XBlock[CIN][2][2][2]; /* x[ci][i + dd][j + hh][k + ww] */

/* c = conv + conv bias at position (2i + AD, 2j + AH, 2k + AW), channel co; products summed in
 * ci, kd, kh, kw order. P supplies the weights: P::w(index), P::cb(channel). */
template <int AD, int AH, int AW, class P>
static __host__ __device__ __forceinline__ float conv_at(const XBlock &xv, int co, const P &p)
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
    return add_rn(acc, p.cb(co));
}

/* sigmoid(c) * c, eager's two kernels */
static __host__ __device__ __forceinline__ float swish(float c) { return mul_rn(1.0f / (1.0f + expf(-c)), c); }

/* hardswish_kernel: x * min(max(x + 3, 0), 6) * (1/6), comparisons as std::max / std::min */
static __host__ __device__ __forceinline__ float hardswish(float x)
{
    const float t = add_rn(x, 3.0f);
    const float lo = (t < 0.0f) ? 0.0f : t;
    const float c = (6.0f < lo) ? 6.0f : lo;
    return mul_rn(mul_rn(x, c), 1.0f / 6.0f);
}

/* The input block of 2x2x2 conv block (i, j, k) of sample n. Indices past the input's end are
 * clamped: they feed only odd positions past the output's end, which are never used. */
static __host__ __device__ __forceinline__ void load_block(XBlock &xv, const float *__restrict__ x, int64_t n,
                                                           int64_t i, int64_t j, int64_t k, int64_t D, int64_t H,
                                                           int64_t W)
{
#pragma unroll
    for (int ci = 0; ci < CIN; ci++)
#pragma unroll
        for (int dd = 0; dd < 2; dd++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++)
#pragma unroll
                for (int ww = 0; ww < 2; ww++) {
                    const int64_t id = i + dd < D ? i + dd : D - 1, ih = j + hh < H ? j + hh : H - 1,
                                  iw = k + ww < W ? k + ww : W - 1;
                    xv[ci][dd][hh][ww] = x[(((n * CIN + ci) * D + id) * H + ih) * W + iw];
                }
}

/* Per-group sums of s over one position of the block (skipped if outside the output). */
template <int AD, int AH, int AW, class P>
static __host__ __device__ __forceinline__ void stats_at(const XBlock &xv, bool inside, const P &p,
                                                         double (&s)[GROUPS], double (&q)[GROUPS])
{
    if (!inside)
        return;
#pragma unroll
    for (int co = 0; co < COUT; co++) {
        const double v = swish(conv_at<AD, AH, AW>(xv, co, p));
        s[co / CPG] += v;
        q[co / CPG] += v * v;
    }
}

/* Block (i, j, k): the group sums of its (up to) 8 positions. OD = 2D - 1 etc. */
template <class P>
static __host__ __device__ __forceinline__ void block_stats(const float *__restrict__ x, const P &p, int64_t n,
                                                            int64_t i, int64_t j, int64_t k, int64_t D, int64_t H,
                                                            int64_t W, double (&s)[GROUPS], double (&q)[GROUPS])
{
    XBlock xv;
    load_block(xv, x, n, i, j, k, D, H, W);
    const bool d1 = 2 * i + 1 < 2 * D - 1, h1 = 2 * j + 1 < 2 * H - 1, w1 = 2 * k + 1 < 2 * W - 1;
    stats_at<0, 0, 0>(xv, true, p, s, q);
    stats_at<0, 0, 1>(xv, w1, p, s, q);
    stats_at<0, 1, 0>(xv, h1, p, s, q);
    stats_at<0, 1, 1>(xv, h1 && w1, p, s, q);
    stats_at<1, 0, 0>(xv, d1, p, s, q);
    stats_at<1, 0, 1>(xv, d1 && w1, p, s, q);
    stats_at<1, 1, 0>(xv, d1 && h1, p, s, q);
    stats_at<1, 1, 1>(xv, d1 && h1 && w1, p, s, q);
}

/* y = hardswish(a * s + b) at one position of the block (skipped if outside the output); ab holds
 * sample n's fused parameters, a and b of channel c at 2c and 2c + 1. */
template <int AD, int AH, int AW, class P>
static __host__ __device__ __forceinline__ void apply_at(const XBlock &xv, bool inside, const P &p,
                                                         const float *__restrict__ ab, float *__restrict__ y,
                                                         int64_t n, int64_t od, int64_t oh, int64_t ow, int64_t OD,
                                                         int64_t OH, int64_t OW)
{
    if (!inside)
        return;
#pragma unroll
    for (int co = 0; co < COUT; co++) {
        const float v = swish(conv_at<AD, AH, AW>(xv, co, p));
        const float a = ab[co * 2], b = ab[co * 2 + 1];
        y[(((n * COUT + co) * OD + od + AD) * OH + oh + AH) * OW + ow + AW] = hardswish(fmaf(a, v, b));
    }
}

template <class P>
static __host__ __device__ __forceinline__ void block_apply(const float *__restrict__ x, const P &p,
                                                            const float *__restrict__ ab, float *__restrict__ y,
                                                            int64_t n, int64_t i, int64_t j, int64_t k, int64_t D,
                                                            int64_t H, int64_t W)
{
    XBlock xv;
    load_block(xv, x, n, i, j, k, D, H, W);
    const int64_t OD = 2 * D - 1, OH = 2 * H - 1, OW = 2 * W - 1, od = 2 * i, oh = 2 * j, ow = 2 * k;
    const bool d1 = od + 1 < OD, h1 = oh + 1 < OH, w1 = ow + 1 < OW;
    apply_at<0, 0, 0>(xv, true, p, ab, y, n, od, oh, ow, OD, OH, OW);
    apply_at<0, 0, 1>(xv, w1, p, ab, y, n, od, oh, ow, OD, OH, OW);
    apply_at<0, 1, 0>(xv, h1, p, ab, y, n, od, oh, ow, OD, OH, OW);
    apply_at<0, 1, 1>(xv, h1 && w1, p, ab, y, n, od, oh, ow, OD, OH, OW);
    apply_at<1, 0, 0>(xv, d1, p, ab, y, n, od, oh, ow, OD, OH, OW);
    apply_at<1, 0, 1>(xv, d1 && w1, p, ab, y, n, od, oh, ow, OD, OH, OW);
    apply_at<1, 1, 0>(xv, d1 && h1, p, ab, y, n, od, oh, ow, OD, OH, OW);
    apply_at<1, 1, 1>(xv, d1 && h1 && w1, p, ab, y, n, od, oh, ow, OD, OH, OW);
}

/* ---- the kernels ------------------------------------------------------------------------------ */

struct ConstParams {
    __device__ __forceinline__ float w(int i) const { return c_w[i]; }
    __device__ __forceinline__ float cb(int c) const { return c_cb[c]; }
};

/* grid (blocks per sample, N): thread t of block b of sample n owns conv block
 * (i, j, k) = t + b * THREADS of D x H x W (k fastest); threads past the end add nothing.
 * partial[(n * gridDim.x + b) * GROUPS + g] = (sum, sum of squares) of group g. */
static __global__ void __launch_bounds__(THREADS)
gn_partials(const float *__restrict__ x, int64_t D, int64_t H, int64_t W, double2 *__restrict__ partial)
{
    __shared__ double2 sm[WARPS][GROUPS];
    const int64_t n = blockIdx.y, blk = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    double s[GROUPS] = {0.0, 0.0, 0.0, 0.0}, q[GROUPS] = {0.0, 0.0, 0.0, 0.0};
    if (blk < D * H * W)
        block_stats(x, ConstParams(), n, blk / (H * W), (blk / W) % H, blk % W, D, H, W, s, q);
#pragma unroll
    for (int g = 0; g < GROUPS; g++)
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            s[g] += __shfl_xor_sync(0xffffffffu, s[g], off);
            q[g] += __shfl_xor_sync(0xffffffffu, q[g], off);
        }
    if (threadIdx.x % 32 == 0)
#pragma unroll
        for (int g = 0; g < GROUPS; g++)
            sm[threadIdx.x / 32][g] = make_double2(s[g], q[g]);
    __syncthreads();
    if (threadIdx.x < GROUPS) {
        double ts = 0.0, tq = 0.0;
        for (int w = 0; w < WARPS; w++) {
            ts += sm[w][threadIdx.x].x;
            tq += sm[w][threadIdx.x].y;
        }
        partial[((int64_t)blockIdx.y * gridDim.x + blockIdx.x) * GROUPS + threadIdx.x] = make_double2(ts, tq);
    }
}

/* Thread (n, c): ab[(n * COUT + c) * 2 + {0, 1}] = eager's fused a, b. */
static __global__ void __launch_bounds__(THREADS)
gn_params(const double2 *__restrict__ partial, int64_t blocks, int64_t N, double count, const float *__restrict__ gamma,
          const float *__restrict__ beta, float *__restrict__ ab)
{
    const int64_t t = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (t >= N * COUT)
        return;
    const int64_t n = t / COUT, c = t % COUT, g = c / CPG;
    double s = 0.0, q = 0.0;
    for (int64_t b = 0; b < blocks; b++) {
        const double2 v = partial[(n * blocks + b) * GROUPS + g];
        s += v.x;
        q += v.y;
    }
    const double mean = s / count;
    double var = q / count - mean * mean;
    if (var < 0.0)
        var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative; NaN stays NaN */
    const float mean_f = (float)mean, rstd = rsqrtf((float)var + EPS);
    const float a = rstd * gamma[c];
    ab[t * 2] = a;
    ab[t * 2 + 1] = fmaf(-a, mean_f, beta[c]); /* -scale * mean + beta */
}

static __global__ void __launch_bounds__(THREADS)
gn_apply(const float *__restrict__ x, const float *__restrict__ ab, float *__restrict__ y, int64_t D, int64_t H,
         int64_t W)
{
    const int64_t n = blockIdx.y, blk = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (blk < D * H * W)
        block_apply(x, ConstParams(), ab + n * COUT * 2, y, n, blk / (H * W), (blk / W) % H, blk % W, D, H, W);
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
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 5 || args->n_outputs != 1)
        return 1;
    const kb_input *x = input(args, "x", 5), *w = input(args, "conv_transpose.weight", 5),
                   *cb = input(args, "conv_transpose.bias", 1), *gw = input(args, "group_norm.weight", 1),
                   *gb = input(args, "group_norm.bias", 1);
    const kb_output *y = &args->outputs[0];
    if (!x || !w || !cb || !gw || !gb || y->dtype != KB_F32 || y->ndim != 5 || !y->data)
        return 1;
    const int64_t N = x->shape[0], D = x->shape[2], H = x->shape[3], W = x->shape[4];
    if (x->shape[1] != CIN || w->shape[0] != CIN || w->shape[1] != COUT || w->shape[2] != KS || w->shape[3] != KS ||
        w->shape[4] != KS || cb->shape[0] != COUT || gw->shape[0] != COUT || gb->shape[0] != COUT)
        return 1;
    if (N < 1 || N > 65535 || D < 1 || H < 1 || W < 1 || y->shape[0] != N || y->shape[1] != COUT ||
        y->shape[2] != 2 * D - 1 || y->shape[3] != 2 * H - 1 || y->shape[4] != 2 * W - 1)
        return 1;
    const int64_t blocks = (D * H * W + THREADS - 1) / THREADS;
    if (blocks > 0x7fffffff)
        return 1;
    const double count = (double)CPG * (double)(2 * D - 1) * (double)(2 * H - 1) * (double)(2 * W - 1);
    cudaStream_t st = args->stream;
    if (cudaMemcpyToSymbolAsync(c_w, w->data, sizeof(float) * NW, 0, cudaMemcpyDeviceToDevice, st) != cudaSuccess ||
        cudaMemcpyToSymbolAsync(c_cb, cb->data, sizeof(float) * COUT, 0, cudaMemcpyDeviceToDevice, st) != cudaSuccess)
        return 2;
    const size_t part_bytes = (size_t)(N * blocks * GROUPS) * sizeof(double2);
    void *scratch = NULL;
    if (cudaMallocAsync(&scratch, part_bytes + (size_t)(N * COUT * 2) * sizeof(float), st) != cudaSuccess)
        return 2;
    double2 *partial = (double2 *)scratch;
    float *ab = (float *)((char *)scratch + part_bytes);
    int rc = 0;
    gn_partials<<<dim3((unsigned)blocks, (unsigned)N), THREADS, 0, st>>>((const float *)x->data, D, H, W, partial);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
    if (rc == 0) {
        gn_params<<<(unsigned)((N * COUT + THREADS - 1) / THREADS), THREADS, 0, st>>>(
            partial, blocks, N, count, (const float *)gw->data, (const float *)gb->data, ab);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (rc == 0) {
        gn_apply<<<dim3((unsigned)blocks, (unsigned)N), THREADS, 0, st>>>((const float *)x->data, ab,
                                                                          (float *)y->data, D, H, W);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(scratch, st) != cudaSuccess)
        rc = 2;
    return rc;
}
