/*
 * demo-tuned, level2/062_matmul_groupnorm_leakyrelu_sum, sample s0:
 *   g = x @ W^T + b                      (nn.Linear(8192, 8192), x (1024, 8192))
 *   n = GroupNorm(512 groups, 8192)(g)   (16 consecutive features per group, eps 1e-5, affine)
 *   y = leaky_relu(n, 0.01) + leaky_relu(n, 0.01)
 *
 * Design: two calls on args->stream, no intermediate tensor.
 *   1. The GEMM is eager's own call: cublasLtMatmul, CUBLAS_COMPUTE_32F (full FP32, no TF32),
 *      CUBLASLT_EPILOGUE_BIAS, the 1 MiB workspace and the operand alignments eager hands the
 *      heuristic (ops/blas.cu, linear_lt), so the same algorithm writes the same bits into y.
 *   2. One fused epilogue kernel, in place on y: each thread holds one float4 (a quarter of a
 *      16-feature group), the 4 lanes of a group reduce the sum and then the centred sum of
 *      squares with xor shuffles (two-pass statistics from registers: no E[x^2] - mean^2
 *      cancellation, the same bits in every lane), normalise, leaky_relu, x + x, one float4
 *      store. y is read once and written once.
 * Eager runs the GEMM, RowwiseMomentsCUDAKernel (524288 one-warp blocks of 16 values), the
 * GroupNorm1dForward elementwise pass, leaky_relu and the add: 4 passes over the 33.5 MB result
 * after the GEMM, and the tiny moment blocks are what keeps its TF32 time at 0.75 ms against
 * ~0.39 ms for a plain epilogue (problems/level2/062_matmul_groupnorm_leakyrelu_sum.c).
 *
 * Exactness: the GEMM is bitwise eager's. The statistics differ from eager's float Welford only
 * by rounding (here a two-pass sum in float over 16 values); the normalisation is evaluated as
 * GroupNorm1dForward writes it, fmaf((x - mean) * rstd, gamma, beta), and every later op is
 * rounded where eager's kernels round (__fmul_rn / __fadd_rn keep nvcc from contracting across
 * op boundaries). Deterministic: fixed shuffle orders, no atomics.
 *
 * Napkin math (H200: ~4.3 TB/s HBM, FP32 ~60 TFLOP/s peak, cuBLAS SGEMM ~50):
 *   GEMM: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP -> ~2.7 ms at ~50 TFLOP/s (eager's own kernel).
 *   Epilogue: eager ~5 passes x 33.5 MB + 524288 moment blocks (~0.3-0.4 ms in all, FP32 3.13 ms
 *   against ~2.75 ms for GEMM + bias); here 33.5 MB read + 33.5 MB written = 67 MB, ~0.02 ms.
 *   Expected: ~2.75-2.8 ms against eager FP32 3.13 ms / TF32 0.75 ms
 *   (reference/pytorch-eager-h200.csv): ~1.12x over FP32; TF32 eager stays faster (its GEMM is
 *   TF32).
 *
 * Inputs by name (problems/level2/062_matmul_groupnorm_leakyrelu_sum.c KB_INPUTS): x, fc.weight,
 * fc.bias, gn.weight, gn.bias; output y (1024, 8192). Any (M, K) x (N, K) shape with N = 512
 * groups of 16 runs; nothing is kept across calls but the cuBLASLt handle, its 1 MiB
 * workspace and the plan for the last shape.
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
#define GROUPS 512
#define GSIZE 16 /* features per group */
#define EPS 1e-5f
#define SLOPE 0.01f

/* ---- the epilogue ------------------------------------------------------------------------- */

/* Sum over the LANES consecutive lanes of a group (xor butterfly: every lane gets the same bits). */
template <int LANES> static __device__ __forceinline__ float group_sum(float v)
{
#pragma unroll
    for (int off = 1; off < LANES; off <<= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

static __device__ __forceinline__ float epi(float v, float mean, float rstd, float g, float b)
{
    const float n = fmaf(__fmul_rn(__fsub_rn(v, mean), rstd), g, b); /* GroupNorm1dForward */
    const float l = n > 0.0f ? n : __fmul_rn(n, SLOPE);              /* leaky_relu */
    return __fadd_rn(l, l);                                          /* x + x */
}

/* One float4 per thread; total4 is a multiple of THREADS (checked on the host), so every lane of
 * every warp takes part in the shuffles. */
static __global__ void __launch_bounds__(THREADS)
gn_leaky_sum(float4 *__restrict__ y4, const float4 *__restrict__ gamma4, const float4 *__restrict__ beta4,
             int64_t C4)
{
    constexpr int LANES = GSIZE / 4;
    const int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    const int64_t c4 = i % C4;
    const float4 v = y4[i];
    const float mean = __fdiv_rn(group_sum<LANES>((v.x + v.y) + (v.z + v.w)), (float)GSIZE);
    const float dx = v.x - mean, dy = v.y - mean, dz = v.z - mean, dw = v.w - mean;
    const float var = __fdiv_rn(group_sum<LANES>((dx * dx + dy * dy) + (dz * dz + dw * dw)), (float)GSIZE);
    const float rstd = rsqrtf(var + EPS);
    const float4 g = __ldg(gamma4 + c4), b = __ldg(beta4 + c4);
    float4 o;
    o.x = epi(v.x, mean, rstd, g.x, b.x);
    o.y = epi(v.y, mean, rstd, g.y, b.y);
    o.z = epi(v.z, mean, rstd, g.z, b.z);
    o.w = epi(v.w, mean, rstd, g.w, b.w);
    y4[i] = o;
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
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 5 || args->n_outputs != 1)
        return 1;
    const kb_input *x = input(args, "x", 2), *W = input(args, "fc.weight", 2), *b = input(args, "fc.bias", 1),
                   *gw = input(args, "gn.weight", 1), *gb = input(args, "gn.bias", 1);
    const kb_output *y = &args->outputs[0];
    if (!x || !W || !b || !gw || !gb || y->dtype != KB_F32 || y->ndim != 2 || !y->data)
        return 1;
    const int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
    if (W->shape[1] != K || b->shape[0] != N || gw->shape[0] != N || gb->shape[0] != N || y->shape[0] != M ||
        y->shape[1] != N)
        return 1;
    if (M < 2 || K < 2 || N < 2 || M > INT_MAX || N > INT_MAX || K > INT_MAX || N % GROUPS != 0 ||
        N / GROUPS != GSIZE || (M * N / 4) % THREADS != 0 || (M * N / 4) / THREADS > INT_MAX)
        return 1;
    if (!aligned16(y->data) || !aligned16(gw->data) || !aligned16(gb->data))
        return 1;
    cudaStream_t st = args->stream;
    int rc = linear_bias((const float *)x->data, (const float *)W->data, (const float *)b->data, (float *)y->data, M, N,
                         K, st);
    if (rc != 0)
        return rc;
    gn_leaky_sum<<<(unsigned)((M * N / 4) / THREADS), THREADS, 0, st>>>((float4 *)y->data, (const float4 *)gw->data,
                                                                        (const float4 *)gb->data, N / 4);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
