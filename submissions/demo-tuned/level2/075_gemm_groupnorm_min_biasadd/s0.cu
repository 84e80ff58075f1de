/*
 * demo-tuned, level2/075_gemm_groupnorm_min_biasadd, sample s0:
 *   g = x @ W^T + b                      (nn.Linear(8192, 8192), x (1024, 8192))
 *   n = GroupNorm(512 groups, 8192)(g)   (16 consecutive features per group, eps 1e-5, affine)
 *   m = min(n, dim=1, keepdim=True)      (1024, 1)
 *   y = m + bias                         (bias (1, 8192, 1, 1): y (1, 8192, 1024, 1),
 *                                         y[0, c, r, 0] = m[r] + bias[c])
 *
 * Design: three calls on args->stream; the GEMM result lives in y until it is overwritten.
 *   1. The GEMM is eager's own call: cublasLtMatmul, CUBLAS_COMPUTE_32F (full FP32, no TF32),
 *      CUBLASLT_EPILOGUE_BIAS, the 1 MiB workspace and the operand alignments eager hands the
 *      heuristic (ops/blas.cu, linear_lt), into y (y has the GEMM result's 1024 * 8192 elements).
 *   2. gn_rowmin: one block per row, 8 float4 per thread (float4 t + 256 k), the 4 lanes of a
 *      16-feature group reduce sum and centred sum of squares with xor shuffles, normalise in
 *      registers, and the block reduces the NaN-propagating minimum of the row in a fixed order
 *      into a 4 KB scratch vector. The normalised tensor is never stored.
 *   3. bias_broadcast: y[c, r] = m[r] + bias[c], float4 along r (32 MB written once).
 * Eager: the GEMM, RowwiseMomentsCUDAKernel (524288 one-warp blocks), GroupNorm1dForward, the
 * min reduction (values and int64 indices), the broadcast add: ~4 passes over 33.5 MB plus the
 * tiny moment blocks, after the GEMM.
 *
 * Exactness: the GEMM is bitwise eager's. The statistics differ from eager's float Welford only
 * by rounding (two-pass float sums over 16 values); the normalisation is GroupNorm1dForward's
 * fmaf((x - mean) * rstd, gamma, beta); the minimum is MinNanFunctor's (a NaN anywhere in the row
 * gives NaN), exact for any order; the add is one rounding. Deterministic.
 *
 * Napkin math (H200: ~4.3 TB/s HBM, FP32 ~60 TFLOP/s peak, cuBLAS SGEMM ~50):
 *   GEMM: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP -> ~2.7 ms (eager's own kernel).
 *   Epilogue: eager ~0.35 ms (FP32 3.13 ms against ~2.75 ms for GEMM + bias, the moment blocks
 *   dominating); here 33.5 MB read + 33.5 MB written, ~0.02 ms.
 *   Expected: ~2.75-2.8 ms against eager FP32 3.13 ms / TF32 0.76 ms
 *   (reference/pytorch-eager-h200.csv): ~1.13x over FP32.
 *
 * Inputs by name (problems/level2/075_gemm_groupnorm_min_biasadd.c KB_INPUTS): x, bias,
 * gemm.weight, gemm.bias, group_norm.weight, group_norm.bias; output y (1, 8192, 1024, 1). Any
 * (M, K) x (8192, K) shape with M a multiple of 4 runs; nothing is kept across calls but the
 * cuBLASLt handle, its 1 MiB workspace and the plan for the last shape (the 4 KB row-minimum
 * vector is stream-ordered scratch, freed on the stream).
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
#define GROUPS 512
#define GSIZE 16                         /* features per group */
#define FEATURES (GROUPS * GSIZE)        /* 8192 */
#define PER_THREAD (FEATURES / 4 / THREADS) /* float4 per thread in gn_rowmin */
#define EPS 1e-5f

/* ---- the epilogue ------------------------------------------------------------------------- */

/* Sum over the LANES consecutive lanes of a group (xor butterfly: every lane gets the same bits). */
template <int LANES> static __device__ __forceinline__ float group_sum(float v)
{
#pragma unroll
    for (int off = 1; off < LANES; off <<= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* MinNanFunctor: a NaN wins. */
static __device__ __forceinline__ float min_nan(float a, float b) { return (isnan(a) || a < b) ? a : b; }

static __device__ __forceinline__ float gn(float v, float mean, float rstd, float g, float b)
{
    return fmaf(__fmul_rn(__fsub_rn(v, mean), rstd), g, b); /* GroupNorm1dForward */
}

/* Block r: row r of g (FEATURES columns) -> rowmin[r]. */
static __global__ void __launch_bounds__(THREADS)
gn_rowmin(const float4 *__restrict__ g4, const float4 *__restrict__ gamma4, const float4 *__restrict__ beta4,
          float *__restrict__ rowmin)
{
    constexpr int LANES = GSIZE / 4;
    __shared__ float sm[WARPS];
    const float4 *row = g4 + (int64_t)blockIdx.x * (FEATURES / 4);
    float4 v[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++)
        v[k] = row[threadIdx.x + THREADS * k];
    float m = INFINITY;
#pragma unroll
    for (int k = 0; k < PER_THREAD; k++) {
        const int c4 = threadIdx.x + THREADS * k;
        const float mean = __fdiv_rn(group_sum<LANES>((v[k].x + v[k].y) + (v[k].z + v[k].w)), (float)GSIZE);
        const float dx = v[k].x - mean, dy = v[k].y - mean, dz = v[k].z - mean, dw = v[k].w - mean;
        const float var = __fdiv_rn(group_sum<LANES>((dx * dx + dy * dy) + (dz * dz + dw * dw)), (float)GSIZE);
        const float rstd = rsqrtf(var + EPS);
        const float4 ga = __ldg(gamma4 + c4), be = __ldg(beta4 + c4);
        m = min_nan(m, gn(v[k].x, mean, rstd, ga.x, be.x));
        m = min_nan(m, gn(v[k].y, mean, rstd, ga.y, be.y));
        m = min_nan(m, gn(v[k].z, mean, rstd, ga.z, be.z));
        m = min_nan(m, gn(v[k].w, mean, rstd, ga.w, be.w));
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        m = min_nan(m, __shfl_xor_sync(0xffffffffu, m, off));
    if (threadIdx.x % 32 == 0)
        sm[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        float r = sm[0];
        for (int w = 1; w < WARPS; w++)
            r = min_nan(r, sm[w]);
        rowmin[blockIdx.x] = r;
    }
}

/* y[c, r] = rowmin[r] + bias[c]: one float4 of r per thread, R4 = rows / 4. */
static __global__ void __launch_bounds__(THREADS)
bias_broadcast(const float4 *__restrict__ rowmin4, const float *__restrict__ bias, float4 *__restrict__ y4, int64_t R4,
               int64_t total4)
{
    const int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (i >= total4)
        return;
    const int64_t c = i / R4;
    const float4 m = __ldg(rowmin4 + i % R4);
    const float b = __ldg(bias + c);
    y4[i] = make_float4(__fadd_rn(m.x, b), __fadd_rn(m.y, b), __fadd_rn(m.z, b), __fadd_rn(m.w, b));
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
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 6 || args->n_outputs != 1)
        return 1;
    const kb_input *x = input(args, "x", 2), *bias = input(args, "bias", 4), *W = input(args, "gemm.weight", 2),
                   *b = input(args, "gemm.bias", 1), *gw = input(args, "group_norm.weight", 1),
                   *gb = input(args, "group_norm.bias", 1);
    const kb_output *y = &args->outputs[0];
    if (!x || !bias || !W || !b || !gw || !gb || y->dtype != KB_F32 || y->ndim != 4 || !y->data)
        return 1;
    const int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
    if (W->shape[1] != K || b->shape[0] != N || gw->shape[0] != N || gb->shape[0] != N)
        return 1;
    if (bias->shape[0] != 1 || bias->shape[1] != N || bias->shape[2] != 1 || bias->shape[3] != 1 || y->shape[0] != 1 ||
        y->shape[1] != N || y->shape[2] != M || y->shape[3] != 1)
        return 1;
    if (M < 4 || K < 2 || N != FEATURES || M % 4 != 0 || M > INT_MAX || K > INT_MAX ||
        (M * N / 4 + THREADS - 1) / THREADS > INT_MAX)
        return 1;
    if (!aligned16(y->data) || !aligned16(gw->data) || !aligned16(gb->data))
        return 1;
    cudaStream_t st = args->stream;
    /* the GEMM result (M x N, row-major) is written into y's M * N elements */
    int rc = linear_bias((const float *)x->data, (const float *)W->data, (const float *)b->data, (float *)y->data, M, N,
                         K, st);
    if (rc != 0)
        return rc;
    float *rowmin = NULL;
    if (cudaMallocAsync((void **)&rowmin, (size_t)M * sizeof(float), st) != cudaSuccess)
        return 2;
    gn_rowmin<<<(unsigned)M, THREADS, 0, st>>>((const float4 *)y->data, (const float4 *)gw->data,
                                               (const float4 *)gb->data, rowmin);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
    if (rc == 0) {
        const int64_t total4 = M * N / 4;
        bias_broadcast<<<(unsigned)((total4 + THREADS - 1) / THREADS), THREADS, 0, st>>>(
            (const float4 *)rowmin, (const float *)bias->data, (float4 *)y->data, M / 4, total4);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(rowmin, st) != cudaSuccess)
        rc = 2;
    return rc;
}
