/*
 * demo-tuned, level2/072_convtranspose3d_batchnorm_avgpool_avgpool, sample s0:
 *   c = ConvTranspose3d(3, 16, 3, stride=2, padding=1)(x)    x (64, 3, 32, 32, 32) -> (64, 16, 63, 63, 63)
 *   b = BatchNorm3d(16)(c)                                   (training mode: batch statistics over
 *                                                             N x 63^3 per channel, biased
 *                                                             variance, eps 1e-5, affine)
 *   y = avg_pool3d(avg_pool3d(b, 2), 2)                      -> (64, 16, 15, 15, 15)
 *
 * Design: the 0.95 GiB convolution output is never stored; with 3 input channels a
 * transposed-convolution output is ~10 multiply-adds (stride 2, kernel 3: per dim one tap at an
 * even position, two at an odd one), cheaper to compute twice than to write and read back.
 * Three kernels and a 256-byte constant upload on args->stream:
 *   1. bn_partials: a thread owns a 2x2x2 block of conv positions (2i + a, a in {0,1} per dim)
 *      and all 16 channels: their taps read only inputs i and i + 1 per dim, 24 values loaded
 *      once. It accumulates per channel the sum and sum of squares of its conv outputs in
 *      DOUBLE; the block reduces them in a fixed order into partial[n][block][channel].
 *   2. bn_finalize: a block per channel adds all its partials in a fixed order: mean, biased
 *      variance, invstd; with the affine weight and bias the 64 values go to __constant__ memory.
 *   3. bn_pool_pool: a thread per output (n, o): the second pool's 8 windows of the first pool,
 *      each the 2x2x2 conv block at first-pool position q = 2o + a, recomputed from its 24
 *      inputs, normalised, summed in eager's (t, h, w) order, / 8, then the second pool's sum
 *      in the same order, / 8. Only the 60^3 of the 63^3 conv positions that the pools read are
 *      computed here. y (13.8 MB) is written once.
 * The conv weights (5 KB) and bias are copied into __constant__ memory at the start of every call
 * (device-to-device; nothing survives into the next call's results); the channel loops are
 * unrolled, so every weight is an FFMA constant operand.
 *
 * Exactness: each conv output is its products summed in a fixed order (input channel, then kd,
 * kh, kw) in float, then the conv bias added as its own rounding (eager adds it in a separate
 * kernel). The statistics are double sums (cuDNN's batch norm: its own float reduction), the
 * normalisation (x - mean) * invstd * w + b in float (one fma at the end), the pools' sums in
 * eager's order and divisions by 8 (avg_pool3d's sum / divide_factor). Deterministic (the problem
 * is flagged nondeterministic for eager's cuDNN backward-data engines; this code is not). Against
 * a TF32 reference (PyTorch's defaults allow it in cuDNN) the 64-value pools average TF32's
 * error: simulated on the CPU it needs tau <= 1.6e-4 on D1 and D2.
 *
 * Napkin math (H200: ~4.3 TB/s HBM, FP32 ~60 TFLOP/s, ~29 T lane-instructions/s):
 *   eager: conv 5.1e9 FLOP; the conv output (0.95 GiB) is written by cuDNN, read and written by
 *   the bias add, read twice and written by the batch norm, read by the first pool: ~6.6 GB plus
 *   the second pool and the launches.
 *   here: pass 1 computes 2.6e8 conv outputs (~10 FMAs each) plus 2 double adds, pass 2 the
 *   2.2e8 that the pools read plus the normalisation: ~2e10 lane-instructions in all, ~0.5 ms;
 *   memory is x (25 MB, read twice, mostly from L2) and y (13.8 MB).
 *   Expected: ~0.4-0.6 ms against eager FP32 12.27 ms / TF32 12.12 ms
 *   (reference/pytorch-eager-h200.csv): ~20x.
 *
 * Inputs by name (problems/level2/072_convtranspose3d_batchnorm_avgpool_avgpool.c KB_INPUTS): x,
 * conv_transpose.weight (3, 16, 3, 3, 3), conv_transpose.bias, batch_norm.weight,
 * batch_norm.bias; output y. Any (N, 3, D, H, W) input with D, H, W >= 3 runs (64-bit
 * indexing). The running statistics of nn.BatchNorm3d are module buffers, not outputs (the
 * reference does not update them either).
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
#define KS 3 /* kernel size; stride 2, padding 1, output_padding 0 are built into the tap sets */
#define NW (CIN * COUT * KS * KS * KS)
#define EPS 1e-5

__constant__ float c_w[NW];        /* conv_transpose.weight [ci][co][kd][kh][kw], this call's */
__constant__ float c_cb[COUT];     /* conv_transpose.bias, this call's */
__constant__ float c_bn[4][COUT];  /* mean, invstd, weight, bias of this call's batch norm */

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
static __host__ __device__ __forceinline__ float sub_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
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

/* ---- the transposed convolution --------------------------------------------------------------- */

/* Conv position 2i + a along one dim (a = 0 or 1): tap t of its taps. Even positions (a = 0)
 * have one tap, k = 1 reading input i; odd ones two, k = 0 reading input i + 1 and k = 2 reading
 * input i (output index = 2 * input - 1 + k). */
#define NTAPS(a) ((a) ? 2 : 1)
#define TAP_K(a, t) ((a) ? ((t) ? 2 : 0) : 1)
#define TAP_OFF(a, t) ((a) ? ((t) ? 0 : 1) : 0)

typedef float XBlock[CIN][2][2][2]; /* x[ci][i + dd][j + hh][k + ww] */

/* c = conv + conv bias at position (2i + AD, 2j + AH, 2k + AW), channel co; products summed in
 * ci, kd, kh, kw order. P supplies the parameters: P::w(index), P::cb(channel), P::bn(row, c). */
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

/* The input block of conv block (i, j, k) of sample n. Indices past the input's end are
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

/* ---- pass 1: the batch statistics -------------------------------------------------------------- */

template <int AD, int AH, int AW, class P>
static __host__ __device__ __forceinline__ void stats_at(const XBlock &xv, bool inside, const P &p,
                                                         double (&s)[COUT], double (&q)[COUT])
{
    if (!inside)
        return;
#pragma unroll
    for (int co = 0; co < COUT; co++) {
        const double v = conv_at<AD, AH, AW>(xv, co, p);
        s[co] += v;
        q[co] += v * v;
    }
}

/* Block (i, j, k): the channel sums of its (up to) 8 positions (conv extents 2D - 1, ...). */
template <class P>
static __host__ __device__ __forceinline__ void block_stats(const float *__restrict__ x, const P &p, int64_t n,
                                                            int64_t i, int64_t j, int64_t k, int64_t D, int64_t H,
                                                            int64_t W, double (&s)[COUT], double (&q)[COUT])
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

/* ---- pass 2: normalise and both pools ----------------------------------------------------------- */

/* The first pool's window at conv block q: its 8 normalised conv outputs summed in (t, h, w)
 * order, / 8. */
template <class P>
static __host__ __device__ __forceinline__ float pool1_at(const XBlock &xv, int co, const P &p)
{
    const float mean = p.bn(0, co), invstd = p.bn(1, co), w = p.bn(2, co), b = p.bn(3, co);
#define BN(c) fmaf(mul_rn(sub_rn((c), mean), invstd), w, b)
    float s = 0.0f;
    s = add_rn(s, BN((conv_at<0, 0, 0>(xv, co, p))));
    s = add_rn(s, BN((conv_at<0, 0, 1>(xv, co, p))));
    s = add_rn(s, BN((conv_at<0, 1, 0>(xv, co, p))));
    s = add_rn(s, BN((conv_at<0, 1, 1>(xv, co, p))));
    s = add_rn(s, BN((conv_at<1, 0, 0>(xv, co, p))));
    s = add_rn(s, BN((conv_at<1, 0, 1>(xv, co, p))));
    s = add_rn(s, BN((conv_at<1, 1, 0>(xv, co, p))));
    s = add_rn(s, BN((conv_at<1, 1, 1>(xv, co, p))));
#undef BN
    return div_rn(s, 8.0f);
}

/* Output (n, o1, o2, o3) for all 16 channels. Second-pool extents P2 = (D - 1) / 2 etc.; the first
 * pool's positions q = 2o + a <= D - 2, so the inputs q + 1 it reads exist. */
template <class P>
static __host__ __device__ __forceinline__ void output_point(const float *__restrict__ x, const P &p,
                                                             float *__restrict__ y, int64_t n, int64_t o1, int64_t o2,
                                                             int64_t o3, int64_t D, int64_t H, int64_t W)
{
    const int64_t P1 = (D - 1) / 2, P2 = (H - 1) / 2, P3 = (W - 1) / 2;
    float acc[COUT];
#pragma unroll
    for (int co = 0; co < COUT; co++)
        acc[co] = 0.0f;
#pragma unroll 1
    for (int a = 0; a < 8; a++) { /* (t, h, w) order of the second pool's window */
        XBlock xv;
        load_block(xv, x, n, 2 * o1 + (a >> 2), 2 * o2 + ((a >> 1) & 1), 2 * o3 + (a & 1), D, H, W);
#pragma unroll
        for (int co = 0; co < COUT; co++)
            acc[co] = add_rn(acc[co], pool1_at(xv, co, p));
    }
#pragma unroll
    for (int co = 0; co < COUT; co++)
        y[(((n * COUT + co) * P1 + o1) * P2 + o2) * P3 + o3] = div_rn(acc[co], 8.0f);
}

/* ---- the kernels ------------------------------------------------------------------------------ */

struct ConstParams {
    __device__ __forceinline__ float w(int i) const { return c_w[i]; }
    __device__ __forceinline__ float cb(int c) const { return c_cb[c]; }
    __device__ __forceinline__ float bn(int r, int c) const { return c_bn[r][c]; }
};

/* grid (blocks per sample, N): thread t of block b of sample n owns conv block
 * (i, j, k) = t + b * THREADS of D x H x W (k fastest); threads past the end add nothing.
 * partial[(n * gridDim.x + b) * COUT + c] = (sum, sum of squares) of channel c. */
static __global__ void __launch_bounds__(THREADS)
bn_partials(const float *__restrict__ x, int64_t D, int64_t H, int64_t W, double2 *__restrict__ partial)
{
    __shared__ double2 sm[WARPS][COUT];
    const int64_t n = blockIdx.y, blk = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    double s[COUT], q[COUT];
#pragma unroll
    for (int c = 0; c < COUT; c++)
        s[c] = q[c] = 0.0;
    if (blk < D * H * W)
        block_stats(x, ConstParams(), n, blk / (H * W), (blk / W) % H, blk % W, D, H, W, s, q);
#pragma unroll
    for (int c = 0; c < COUT; c++)
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            s[c] += __shfl_xor_sync(0xffffffffu, s[c], off);
            q[c] += __shfl_xor_sync(0xffffffffu, q[c], off);
        }
    if (threadIdx.x % 32 == 0)
#pragma unroll
        for (int c = 0; c < COUT; c++)
            sm[threadIdx.x / 32][c] = make_double2(s[c], q[c]);
    __syncthreads();
    if (threadIdx.x < COUT) {
        double ts = 0.0, tq = 0.0;
        for (int w = 0; w < WARPS; w++) {
            ts += sm[w][threadIdx.x].x;
            tq += sm[w][threadIdx.x].y;
        }
        partial[((int64_t)blockIdx.y * gridDim.x + blockIdx.x) * COUT + threadIdx.x] = make_double2(ts, tq);
    }
}

/* Block c: channel c's partials (nparts of them, stride COUT) in a fixed order ->
 * params[0..3][c] = mean, invstd, weight, bias. */
static __global__ void __launch_bounds__(THREADS)
bn_finalize(const double2 *__restrict__ partial, int64_t nparts, double count, const float *__restrict__ weight,
            const float *__restrict__ bias, float *__restrict__ params)
{
    __shared__ double2 sm[THREADS];
    const int c = blockIdx.x;
    double s = 0.0, q = 0.0;
    for (int64_t i = threadIdx.x; i < nparts; i += THREADS) {
        const double2 v = partial[i * COUT + c];
        s += v.x;
        q += v.y;
    }
    sm[threadIdx.x] = make_double2(s, q);
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if ((int)threadIdx.x < half) {
            sm[threadIdx.x].x += sm[threadIdx.x + half].x;
            sm[threadIdx.x].y += sm[threadIdx.x + half].y;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const double mean = sm[0].x / count;
        double var = sm[0].y / count - mean * mean;
        if (var < 0.0)
            var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative; NaN stays NaN */
        params[0 * COUT + c] = (float)mean;
        params[1 * COUT + c] = (float)(1.0 / sqrt(var + EPS));
        params[2 * COUT + c] = weight[c];
        params[3 * COUT + c] = bias[c];
    }
}

/* Thread i: output position i of (N, P1, P2, P3), o3 fastest (coalesced stores per channel). */
static __global__ void __launch_bounds__(THREADS)
bn_pool_pool(const float *__restrict__ x, float *__restrict__ y, int64_t D, int64_t H, int64_t W, int64_t total)
{
    const int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (i >= total)
        return;
    const int64_t P1 = (D - 1) / 2, P2 = (H - 1) / 2, P3 = (W - 1) / 2;
    const int64_t o3 = i % P3, o2 = (i / P3) % P2, o1 = (i / (P3 * P2)) % P1, n = i / (P3 * P2 * P1);
    output_point(x, ConstParams(), y, n, o1, o2, o3, D, H, W);
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
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 8 || args->n_outputs != 1) /* x, 4 parameters, the batch norm's 3 buffers */
        return 1;
    const kb_input *x = input(args, "x", 5), *w = input(args, "conv_transpose.weight", 5),
                   *cb = input(args, "conv_transpose.bias", 1), *bw = input(args, "batch_norm.weight", 1),
                   *bb = input(args, "batch_norm.bias", 1);
    const kb_output *y = &args->outputs[0];
    if (!x || !w || !cb || !bw || !bb || y->dtype != KB_F32 || y->ndim != 5 || !y->data)
        return 1;
    const int64_t N = x->shape[0], D = x->shape[2], H = x->shape[3], W = x->shape[4];
    if (x->shape[1] != CIN || w->shape[0] != CIN || w->shape[1] != COUT || w->shape[2] != KS || w->shape[3] != KS ||
        w->shape[4] != KS || cb->shape[0] != COUT || bw->shape[0] != COUT || bb->shape[0] != COUT)
        return 1;
    if (N < 1 || N > 65535 || D < 3 || H < 3 || W < 3 || y->shape[0] != N || y->shape[1] != COUT ||
        y->shape[2] != (D - 1) / 2 || y->shape[3] != (H - 1) / 2 || y->shape[4] != (W - 1) / 2)
        return 1;
    const int64_t blocks = (D * H * W + THREADS - 1) / THREADS;
    const int64_t total = N * ((D - 1) / 2) * ((H - 1) / 2) * ((W - 1) / 2);
    if (blocks > 0x7fffffff || (total + THREADS - 1) / THREADS > 0x7fffffff)
        return 1;
    const double count = (double)N * (double)(2 * D - 1) * (double)(2 * H - 1) * (double)(2 * W - 1);
    cudaStream_t st = args->stream;
    if (cudaMemcpyToSymbolAsync(c_w, w->data, sizeof(float) * NW, 0, cudaMemcpyDeviceToDevice, st) != cudaSuccess ||
        cudaMemcpyToSymbolAsync(c_cb, cb->data, sizeof(float) * COUT, 0, cudaMemcpyDeviceToDevice, st) != cudaSuccess)
        return 2;
    const size_t part_bytes = (size_t)(N * blocks * COUT) * sizeof(double2);
    void *scratch = NULL;
    if (cudaMallocAsync(&scratch, part_bytes + 4 * COUT * sizeof(float), st) != cudaSuccess)
        return 2;
    double2 *partial = (double2 *)scratch;
    float *params = (float *)((char *)scratch + part_bytes);
    int rc = 0;
    bn_partials<<<dim3((unsigned)blocks, (unsigned)N), THREADS, 0, st>>>((const float *)x->data, D, H, W, partial);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
    if (rc == 0) {
        bn_finalize<<<COUT, THREADS, 0, st>>>(partial, N * blocks, count, (const float *)bw->data,
                                              (const float *)bb->data, params);
        if (cudaGetLastError() != cudaSuccess ||
            cudaMemcpyToSymbolAsync(c_bn, params, sizeof(float) * 4 * COUT, 0, cudaMemcpyDeviceToDevice, st) !=
                cudaSuccess)
            rc = 2;
    }
    if (rc == 0) {
        bn_pool_pool<<<(unsigned)((total + THREADS - 1) / THREADS), THREADS, 0, st>>>((const float *)x->data,
                                                                                       (float *)y->data, D, H, W,
                                                                                       total);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(scratch, st) != cudaSuccess)
        rc = 2;
    return rc;
}
