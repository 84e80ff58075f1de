/*
 * demo-tuned, level2/084_gemm_batchnorm_scaling_softmax, sample s0:
 *   g = x @ W^T + b                      (nn.Linear(8192, 8192), x (1024, 8192))
 *   n = BatchNorm1d(8192)(g)             (training mode: batch statistics over the 1024 rows of
 *                                         each feature, biased variance, eps 1e-5, affine)
 *   y = softmax(scale * n, dim=1)        (scale (1,))
 *
 * Design: four calls on args->stream, no intermediate tensor (the statistics are 1.1 MB of
 * stream-ordered scratch).
 *   1. The GEMM is eager's own call: cublasLtMatmul, CUBLAS_COMPUTE_32F (full FP32, no TF32),
 *      CUBLASLT_EPILOGUE_BIAS, the 1 MiB workspace and the operand alignments eager hands the
 *      heuristic (ops/blas.cu, linear_lt), so the same algorithm writes the same bits into y.
 *   2. col_partials: a block per (128 features, 128-row slice): 8 warps, a lane owns 4 features
 *      (coalesced 512-byte row reads), sum and sum of squares in DOUBLE, combined over the warps
 *      in a fixed order: partial[slice][feature].
 *   3. col_finalize: a thread per feature adds its 8 slices in order: mean, biased variance
 *      (E[x^2] - mean^2 in double), then invstd = rsqrtf(var + eps) in float as eager's
 *      batch_norm_calc_invstd does.
 *   4. bn_scale_softmax: one block per row, the row's 8192 values in registers (8 float4 per
 *      thread): normalise, scale, block max, expf(x - max) kept in registers, block sum, divide,
 *      one float4 store each. y is read once more (from L2: 33.5 MB fits the 50 MB L2) and
 *      written once.
 * Eager: the GEMM, the channels-last statistics kernel, invstd, the transform, the multiply, the
 * softmax (cunn_SoftMaxForward, which reads its row more than once): ~7 passes over the
 * 33.5 MB result.
 *
 * Exactness: the GEMM is bitwise eager's. The statistics differ from eager's float Welford only
 * by rounding (double sums here); the normalisation is eager's
 * batch_norm_transform_input_channels_last expression w * (x - mean) * invstd + b (nvcc makes the
 * last multiply-add one fma, written out here); scale * x one rounding; the softmax is eager's
 * math in float (max, sum of expf(x - max), expf(x - max) / sum), its block sums in a different
 * but fixed order. Deterministic: fixed reduction orders, no atomics.
 *
 * Napkin math (H200: ~4.3 TB/s HBM, FP32 ~60 TFLOP/s peak, cuBLAS SGEMM ~50):
 *   GEMM: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP -> ~2.7 ms (eager's own kernel).
 *   Epilogue: eager ~7 passes (~0.23 GB) and 5 launches, ~0.1 ms (FP32 2.85 ms against
 *   ~2.75 ms for GEMM + bias); here 2 reads + 1 write of 33.5 MB, ~0.03 ms.
 *   Expected: ~2.75-2.8 ms against eager FP32 2.85 ms / TF32 0.47 ms
 *   (reference/pytorch-eager-h200.csv): ~1.03x over FP32, the GEMM being 96% of both.
 *
 * Inputs by name (problems/level2/084_gemm_batchnorm_scaling_softmax.c KB_INPUTS): x, scale,
 * gemm.weight, gemm.bias, bn.weight, bn.bias; output y (1024, 8192). Any (M, K) x (8192, K) shape
 * with M a multiple of 128 runs; the running statistics of nn.BatchNorm1d are module buffers, not
 * outputs (the reference does not update them either). Nothing is kept across calls but the
 * cuBLASLt handle, its 1 MiB workspace and the plan for the last shape.
 *
 * Build (the compile stage's command; it links cuBLAS, cuBLASLt and cuDNN with --as-needed, so
 * this object records libcublasLt only):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I include -o /tmp/x.so s0.cu \
 *        -Xlinker --as-needed -lcublas -lcublasLt -lcudnn
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, names,
 * dtype, shape, alignment); 2 a CUDA or cuBLASLt call failed.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define COLS 128  /* features per statistics block: 32 lanes x float4 */
#define SLICE 128 /* rows per statistics block */
#define FEATURES 8192
#define PER_THREAD (FEATURES / 4 / THREADS) /* float4 per thread in the softmax */
#define EPS 1e-5f

/* ---- batch statistics ------------------------------------------------------------------------ */

/* Block (bx, s): features [bx*COLS, +COLS), rows [s*SLICE, +SLICE); warp w takes rows w, w+8, ...
 * partial[s * N + f] = (sum, sum of squares) over the slice. */
static __global__ void __launch_bounds__(THREADS)
col_partials(const float4 *__restrict__ y4, int64_t N4, double2 *__restrict__ partial)
{
    __shared__ double2 sm[WARPS][COLS];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int64_t c4 = (int64_t)blockIdx.x * (COLS / 4) + lane;
    const int64_t r0 = (int64_t)blockIdx.y * SLICE;
    double s[4] = {0.0, 0.0, 0.0, 0.0}, q[4] = {0.0, 0.0, 0.0, 0.0};
#pragma unroll 4
    for (int r = warp; r < SLICE; r += WARPS) {
        const float4 v = y4[(r0 + r) * N4 + c4];
        const double a[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            s[k] += a[k];
            q[k] += a[k] * a[k];
        }
    }
#pragma unroll
    for (int k = 0; k < 4; k++)
        sm[warp][lane * 4 + k] = make_double2(s[k], q[k]);
    __syncthreads();
    if (threadIdx.x < COLS) {
        double ts = 0.0, tq = 0.0;
        for (int w = 0; w < WARPS; w++) {
            ts += sm[w][threadIdx.x].x;
            tq += sm[w][threadIdx.x].y;
        }
        partial[(int64_t)blockIdx.y * (N4 * 4) + (int64_t)blockIdx.x * COLS + threadIdx.x] = make_double2(ts, tq);
    }
}

/* One thread per feature: mean[f], invstd[f] from the slices' partials, in slice order. */
static __global__ void __launch_bounds__(THREADS)
col_finalize(const double2 *__restrict__ partial, int64_t N, int64_t slices, int64_t M, float *__restrict__ mean,
             float *__restrict__ invstd)
{
    const int64_t f = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (f >= N)
        return;
    double s = 0.0, q = 0.0;
    for (int64_t k = 0; k < slices; k++) {
        const double2 p = partial[k * N + f];
        s += p.x;
        q += p.y;
    }
    const double m = s / (double)M;
    double var = q / (double)M - m * m;
    if (var < 0.0)
        var = 0.0; /* rounding can make E[x^2] - mean^2 slightly negative; NaN stays NaN */
    mean[f] = (float)m;
    invstd[f] = rsqrtf((float)var + EPS);
}

/* ---- the fused normalise + scale + softmax pass ---------------------------------------------- */

static __device__ __forceinline__ float max_op(float a, float b) { return a < b ? b : a; } /* softmax's MaxOp */

/* Reduce over the block with op (xor shuffles, then the warps in order); every thread gets it. */
template <bool MAX> static __device__ __forceinline__ float block_reduce(float v, float *sm)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = MAX ? max_op(v, o) : v + o;
    }
    __syncthreads(); /* sm may still be read from the previous reduction */
    if (threadIdx.x % 32 == 0)
        sm[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float r = sm[0];
        for (int w = 1; w < WARPS; w++)
            r = MAX ? max_op(r, sm[w]) : r + sm[w];
        sm[WARPS] = r;
    }
    __syncthreads();
    return sm[WARPS];
}

static __device__ __forceinline__ float bn_scale(float v, float m, float inv, float w, float b, float scale)
{
    return __fmul_rn(scale, fmaf(__fmul_rn(w, __fsub_rn(v, m)), inv, b)); /* scale * (w (x - mean) invstd + b) */
}

/* Block r: row r. */
static __global__ void __launch_bounds__(THREADS)
bn_scale_softmax(float4 *__restrict__ y4, const float4 *__restrict__ mean4, const float4 *__restrict__ inv4,
                 const float4 *__restrict__ w4, const float4 *__restrict__ b4, const float *__restrict__ scale)
{
    __shared__ float sm[WARPS + 1];
    float4 *row = y4 + (int64_t)blockIdx.x * (FEATURES / 4);
    const float sc = __ldg(scale);
    float4 v[PER_THREAD];
    float mx = -INFINITY;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        const int c4 = threadIdx.x + THREADS * k;
        const float4 g = row[c4], m = __ldg(mean4 + c4), iv = __ldg(inv4 + c4), w = __ldg(w4 + c4), b = __ldg(b4 + c4);
        v[k].x = bn_scale(g.x, m.x, iv.x, w.x, b.x, sc);
        v[k].y = bn_scale(g.y, m.y, iv.y, w.y, b.y, sc);
        v[k].z = bn_scale(g.z, m.z, iv.z, w.z, b.z, sc);
        v[k].w = bn_scale(g.w, m.w, iv.w, w.w, b.w, sc);
        mx = max_op(max_op(max_op(max_op(mx, v[k].x), v[k].y), v[k].z), v[k].w);
    }
    mx = block_reduce<true>(mx, sm);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        v[k].x = expf(v[k].x - mx);
        v[k].y = expf(v[k].y - mx);
        v[k].z = expf(v[k].z - mx);
        v[k].w = expf(v[k].w - mx);
        s += v[k].x;
        s += v[k].y;
        s += v[k].z;
        s += v[k].w;
    }
    s = block_reduce<false>(s, sm);
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++)
        row[threadIdx.x + THREADS * k] = make_float4(v[k].x / s, v[k].y / s, v[k].z / s, v[k].w / s);
}

/* ---- the GEMM: eager's addmm, call for call ------------------------------------------------ */

#define LT_WS_BYTES ((size_t)1024 * 1024) /* CUBLASLT_WORKSPACE_SIZE: the size selects eager's algorithm */

static cublasLtHandle_t g_lt;
static void *g_ws;
static struct {
    int valid;
    int64_t M, N, K;
    uint32_t al[4];
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
} g_gemm;

/* PyTorch's _getAlignment: the largest power of two <= 256 dividing the address. */
static uint32_t ptr_alignment(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    uint32_t al = 256;
    while (al > 1 && a % al)
        al /= 2;
    return al;
}

static void gemm_release(void)
{
    if (g_gemm.lc)
        cublasLtMatrixLayoutDestroy(g_gemm.lc);
    if (g_gemm.lb)
        cublasLtMatrixLayoutDestroy(g_gemm.lb);
    if (g_gemm.la)
        cublasLtMatrixLayoutDestroy(g_gemm.la);
    if (g_gemm.desc)
        cublasLtMatmulDescDestroy(g_gemm.desc);
    memset(&g_gemm, 0, sizeof g_gemm);
}

#define LT_OK(call)                                                                              \
    do {                                                                                         \
        if ((call) != CUBLAS_STATUS_SUCCESS)                                                     \
            return 2;                                                                            \
    } while (0)

/* The descriptors and the heuristic's first algorithm for y^T[N,M] = W[N,K] x^T[K,M] + bias
 * (column-major), as linear_lt builds them. */
static int gemm_plan(const float *bias, int64_t M, int64_t N, int64_t K, const uint32_t al[4])
{
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const uint64_t ws = LT_WS_BYTES;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t heur;
    int n_results = 0;
    g_gemm.M = M, g_gemm.N = N, g_gemm.K = K;
    memcpy(g_gemm.al, al, sizeof g_gemm.al);
    LT_OK(cublasLtMatmulDescCreate(&g_gemm.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    LT_OK(cublasLtMatmulDescSetAttribute(g_gemm.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    LT_OK(cublasLtMatmulDescSetAttribute(g_gemm.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    LT_OK(cublasLtMatmulDescSetAttribute(g_gemm.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    LT_OK(cublasLtMatmulDescSetAttribute(g_gemm.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    LT_OK(cublasLtMatrixLayoutCreate(&g_gemm.la, CUDA_R_32F, (uint64_t)K, (uint64_t)N, K));
    LT_OK(cublasLtMatrixLayoutCreate(&g_gemm.lb, CUDA_R_32F, (uint64_t)K, (uint64_t)M, K));
    LT_OK(cublasLtMatrixLayoutCreate(&g_gemm.lc, CUDA_R_32F, (uint64_t)N, (uint64_t)M, N));
    LT_OK(cublasLtMatmulPreferenceCreate(&pref));
    int rc = 2;
    if (cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al[0], sizeof al[0]) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al[1], sizeof al[1]) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al[2], sizeof al[2]) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al[3], sizeof al[3]) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulAlgoGetHeuristic(g_lt, g_gemm.desc, g_gemm.la, g_gemm.lb, g_gemm.lc, g_gemm.lc, pref, 1, &heur,
                                       &n_results) == CUBLAS_STATUS_SUCCESS &&
        n_results > 0) {
        g_gemm.algo = heur.algo;
        g_gemm.valid = 1;
        rc = 0;
    }
    cublasLtMatmulPreferenceDestroy(pref);
    return rc;
}

/* y[M,N] = x[M,K] W[N,K]^T + bias[N] in full FP32 on st. 0 or 2. */
static int linear_bias(const float *x, const float *W, const float *bias, float *y, int64_t M, int64_t N, int64_t K,
                       cudaStream_t st)
{
    if (!g_lt && cublasLtCreate(&g_lt) != CUBLAS_STATUS_SUCCESS) {
        g_lt = NULL;
        return 2;
    }
    if (!g_ws && cudaMalloc(&g_ws, LT_WS_BYTES) != cudaSuccess) {
        g_ws = NULL;
        return 2;
    }
    const uint32_t al[4] = {ptr_alignment(W), ptr_alignment(x), ptr_alignment(y), ptr_alignment(bias)};
    if (!g_gemm.valid || g_gemm.M != M || g_gemm.N != N || g_gemm.K != K || memcmp(g_gemm.al, al, sizeof al) != 0) {
        gemm_release();
        if (gemm_plan(bias, M, N, K, al) != 0) {
            gemm_release();
            return 2;
        }
    }
    LT_OK(cublasLtMatmulDescSetAttribute(g_gemm.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    const float alpha = 1.0f, beta = 0.0f; /* beta = 0: the bias comes from the epilogue */
    LT_OK(cublasLtMatmul(g_lt, g_gemm.desc, &alpha, W, g_gemm.la, x, g_gemm.lb, &beta, y, g_gemm.lc, y, g_gemm.lc,
                         &g_gemm.algo, g_ws, LT_WS_BYTES, st));
    return 0;
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

static int aligned16(const void *p) { return ((uintptr_t)p % 16) == 0; }

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 9 || args->n_outputs != 1) /* then the batch norm's 3 buffers */
        return 1;
    const kb_input *x = input(args, "x", 2), *scale = input(args, "scale", 1), *W = input(args, "gemm.weight", 2),
                   *b = input(args, "gemm.bias", 1), *bw = input(args, "bn.weight", 1),
                   *bb = input(args, "bn.bias", 1);
    const kb_output *y = &args->outputs[0];
    if (!x || !scale || !W || !b || !bw || !bb || y->dtype != KB_F32 || y->ndim != 2 || !y->data)
        return 1;
    const int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
    if (W->shape[1] != K || b->shape[0] != N || scale->shape[0] != 1 || bw->shape[0] != N || bb->shape[0] != N ||
        y->shape[0] != M || y->shape[1] != N)
        return 1;
    if (M < 2 || K < 2 || N != FEATURES || M > INT_MAX || K > INT_MAX || M % SLICE != 0 || M / SLICE > 65535)
        return 1;
    if (!aligned16(y->data) || !aligned16(bw->data) || !aligned16(bb->data))
        return 1;
    cudaStream_t st = args->stream;
    int rc = linear_bias((const float *)x->data, (const float *)W->data, (const float *)b->data, (float *)y->data, M, N,
                         K, st);
    if (rc != 0)
        return rc;
    const int64_t slices = M / SLICE;
    const size_t part_bytes = (size_t)(slices * N) * sizeof(double2);
    void *scratch = NULL;
    if (cudaMallocAsync(&scratch, part_bytes + 2 * (size_t)N * sizeof(float), st) != cudaSuccess)
        return 2;
    double2 *partial = (double2 *)scratch;
    float *mean = (float *)((char *)scratch + part_bytes), *invstd = mean + N;
    col_partials<<<dim3((unsigned)(N / COLS), (unsigned)slices), THREADS, 0, st>>>((const float4 *)y->data, N / 4,
                                                                                    partial);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
    if (rc == 0) {
        col_finalize<<<(unsigned)((N + THREADS - 1) / THREADS), THREADS, 0, st>>>(partial, N, slices, M, mean, invstd);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (rc == 0) {
        bn_scale_softmax<<<(unsigned)M, THREADS, 0, st>>>((float4 *)y->data, (const float4 *)mean,
                                                          (const float4 *)invstd, (const float4 *)bw->data,
                                                          (const float4 *)bb->data, (const float *)scale->data);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(scratch, st) != cudaSuccess)
        rc = 2;
    return rc;
}
