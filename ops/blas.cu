/*
 * ops/blas.cu -- GEMM ops (kb/ops.h) the way eager PyTorch 2.11 runs them on CUDA.
 *
 * What PyTorch does, and what we do (aten/src/ATen/native/cuda/Blas.cpp, ATen/cuda/CUDABlas.cpp,
 * ATen/cuda/CublasHandlePool.cpp; default settings: TunableOp off, preferred BLAS backend cuBLAS,
 * DISABLE_ADDMM_CUDA_LT unset):
 *   torch.mm / torch.matmul (2-D)  -> at::cuda::blas::gemm<float>  -> cublasSgemm
 *   torch.bmm                      -> at::cuda::blas::bgemm<float> -> cublasSgemmStridedBatched
 *   nn.Linear with bias            -> addmm -> gemm_and_bias<float> -> cublasLtMatmul with
 *                                     CUBLASLT_EPILOGUE_BIAS (the bias is added in the epilogue)
 *   nn.Linear without bias         -> matmul(x, W^T) -> cublasSgemm
 * Before every cuBLAS call PyTorch sets the handle's stream, its workspace and its math mode:
 * CUBLAS_TF32_TENSOR_OP_MATH when torch.backends.cuda.matmul.allow_tf32, else CUBLAS_DEFAULT_MATH.
 * We re-apply the math mode per call from kb_ctx_math(ctx) for the same reason (the mode may
 * change between calls). cuBLASLt takes the TF32 switch as its compute type instead:
 * CUBLAS_COMPUTE_32F_FAST_TF32 or CUBLAS_COMPUTE_32F.
 *
 * Row-major to column-major: row-major C[M,N] is column-major C^T[N,M], and
 * C^T = op(B)^T op(A)^T, so every call passes B first and A second with m = N, n = M; the
 * transposes and leading dimensions below are exactly the ones PyTorch's cublasCommonArgs
 * computes for contiguous operands (checked by hand for mm, bmm and addmm(bias, x, W^T)).
 *
 * Workspaces (what the memory profile sees):
 *   cuBLAS: PyTorch gives each (handle, stream) a workspace from its caching allocator of
 *   CUBLAS_WORKSPACE_CONFIG size, default ":4096:8" = 32 MiB on sm_90, and keeps it. We take the
 *   same 32 MiB from kb_ctx_alloc for the duration of each call and hand it back afterwards: with
 *   KB_CTX_CACHING the block is reused call after call (no cudaMalloc in a timed steady state,
 *   like PyTorch), and the per-call peak is the same. What differs is residency between calls
 *   (PyTorch's buffer stays allocated). A buffer kept per context needs a per-context slot in
 *   kb_ctx (see the note at the end of this comment); a registry keyed by the kb_ctx address
 *   would hand a freed buffer to the next context: on the H200 test machine a destroyed and
 *   re-created kb_ctx got the same address, and so did its library handles, every time.
 *   After the call cublasSetStream() resets the handle to cuBLAS's own default pool, so the
 *   handle never points at memory we gave back.
 *   cuBLASLt: PyTorch tells cublasLtMatmul the workspace is CUBLASLT_WORKSPACE_SIZE, default
 *   1024 KiB (PyTorch 2.11 keeps the 1 MiB Lt default on CUDA; the 32 MiB bump of pytorch#120925
 *   was reverted), and the heuristic only considers algorithms that fit. The size is what selects
 *   the algorithm, so we pass 1 MiB too.
 *
 * Napkin math (H200: FP32 without tensor cores ~67 TFLOP/s peak, cuBLAS reaches ~51; TF32 dense
 * ~495 peak, ~330-390 reached):
 *   4096^3 GEMM: 1.37e11 FLOP -> ~2.7 ms FP32, ~0.36 ms TF32. Measured with this file on an
 *   H200 (cuBLAS 13.1): 2.685 / 0.350 ms; PyTorch 2.11 eager: 2.73 / 0.356 ms.
 *   bmm 128 x (512x1024 @ 1024x2048): 2.75e11 FLOP. Measured 5.37 / 0.840 ms; PyTorch
 *   5.41 / 0.846 ms.
 *
 * Sizes: the 32-bit cuBLAS API is what PyTorch calls (it checks m, n, k, ld* <= INT_MAX and
 * refuses otherwise); we do the same and fail with a message instead of calling the _64 API.
 *
 * Ownership: pointers are the caller's device memory; the ops allocate only the per-call
 * workspace above (and, for the rare unfused addmm fallback, nothing: the bias is broadcast into
 * the output). Not thread-safe per context (one host thread drives a kb_ctx).
 *
 * Proposed for kb/ops.h + ops/ctx.cu (not done here): a per-context slot for op-library state,
 *     void *kb_ctx_state(kb_ctx *ctx, int key);   set with a destructor run by kb_ctx_destroy
 * so that the cuBLAS workspace can be allocated once per context and kept like PyTorch's.
 */
#include <limits.h>
#include <stdint.h>

#include <cublasLt.h>
#include <cublas_v2.h>

#include "kb/ops.h"

#define KB_BLAS_WORKSPACE_BYTES ((size_t)4096 * 1024 * 8) /* CUBLAS_WORKSPACE_CONFIG ":4096:8" */
#define KB_BLASLT_WORKSPACE_BYTES ((size_t)1024 * 1024)   /* CUBLASLT_WORKSPACE_SIZE 1024 KiB */

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

static int blas_fail(kb_ctx *ctx, const char *file, int line, const char *call, cublasStatus_t s)
{
    return kb_ctx_fail(ctx, "%s:%d: %s: %s (%s)", file, line, call, cublasGetStatusName(s),
                       cublasGetStatusString(s));
}

/* Inside a function with `int rc` and a `done:` label that releases what was acquired. */
#define BLAS_CHECK(ctx, call)                                                                    \
    do {                                                                                         \
        cublasStatus_t kb_s_ = (call);                                                           \
        if (kb_s_ != CUBLAS_STATUS_SUCCESS) {                                                    \
            rc = blas_fail((ctx), __FILE__, __LINE__, #call, kb_s_);                             \
            goto done;                                                                           \
        }                                                                                        \
    } while (0)

static int fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

/* PyTorch's CUDABLAS_NONNEGINT_CHECK / POSINT_CHECK, with our op's name in the message. */
static int check_gemm_sizes(kb_ctx *ctx, const char *op, int64_t m, int64_t n, int64_t k,
                            int64_t lda, int64_t ldb, int64_t ldc, int64_t batch)
{
    if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(batch))
        return kb_ctx_fail(ctx,
                           "%s: m=%lld n=%lld k=%lld batch=%lld: cuBLAS's 32-bit API (which PyTorch "
                           "calls) needs every size <= INT_MAX",
                           op, (long long)m, (long long)n, (long long)k, (long long)batch);
    if (lda < 1 || lda > INT_MAX || ldb < 1 || ldb > INT_MAX || ldc < 1 || ldc > INT_MAX)
        return kb_ctx_fail(ctx,
                           "%s: lda=%lld ldb=%lld ldc=%lld: leading dimensions must be in "
                           "[1, INT_MAX] for cuBLAS's 32-bit API",
                           op, (long long)lda, (long long)ldb, (long long)ldc);
    return 0;
}

/* PyTorch's _cublasAdjustLdLevel3: cuBLAS checks leading dimensions even for degenerate
 * (size <= 1) operands, so they are bumped to the smallest legal value. */
static void adjust_ld(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, int64_t *lda,
                      int64_t *ldb, int64_t *ldc)
{
    if (n <= 1)
        *ldc = m > 1 ? m : 1;
    if (trans_a) {
        if (m <= 1)
            *lda = k > 1 ? k : 1;
    } else if (k <= 1) {
        *lda = m > 1 ? m : 1;
    }
    if (trans_b) {
        if (k <= 1)
            *ldb = n > 1 ? n : 1;
    } else if (n <= 1) {
        *ldb = k > 1 ? k : 1;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Handle setup, as at::cuda::getCurrentCUDABlasHandle(): stream, workspace, math mode.        */

typedef struct blas_call {
    cublasHandle_t handle;
    void *workspace;
} blas_call;

static int blas_begin(kb_ctx *ctx, blas_call *bc)
{
    int rc = 0;
    bc->workspace = NULL;
    bc->handle = (cublasHandle_t)kb_ctx_cublas(ctx);
    if (!bc->handle)
        return -1;
    BLAS_CHECK(ctx, cublasSetStream(bc->handle, kb_ctx_stream(ctx)));
    bc->workspace = kb_ctx_alloc(ctx, KB_BLAS_WORKSPACE_BYTES);
    if (!bc->workspace)
        return -1;
    BLAS_CHECK(ctx, cublasSetWorkspace(bc->handle, bc->workspace, KB_BLAS_WORKSPACE_BYTES));
    BLAS_CHECK(ctx, cublasSetMathMode(bc->handle, kb_ctx_math(ctx).matmul_tf32
                                                      ? CUBLAS_TF32_TENSOR_OP_MATH
                                                      : CUBLAS_DEFAULT_MATH));
    return 0;
done:
    if (bc->workspace) {
        cublasSetStream(bc->handle, kb_ctx_stream(ctx)); /* already failing: best effort */
        kb_ctx_free(ctx, bc->workspace);
        bc->workspace = NULL;
    }
    return rc;
}

/* Detaches the workspace from the handle (cublasSetStream resets it to cuBLAS's default pool)
 * and gives it back. Returns rc, or -1 if the reset itself failed. */
static int blas_end(kb_ctx *ctx, blas_call *bc, int rc)
{
    cublasStatus_t s = cublasSetStream(bc->handle, kb_ctx_stream(ctx));
    if (s != CUBLAS_STATUS_SUCCESS && rc == 0)
        rc = blas_fail(ctx, __FILE__, __LINE__, "cublasSetStream (workspace reset)", s);
    kb_ctx_free(ctx, bc->workspace);
    bc->workspace = NULL;
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Small kernel for the unfused addmm fallback: y[i, j] = bias[j] (PyTorch copies the expanded
 * bias into the result, then runs the GEMM with beta = 1).                                    */

static __global__ void broadcast_rows_kernel(const float *__restrict__ bias, float *__restrict__ y, int64_t rows,
                                      int64_t cols)
{
    int64_t n = rows * cols;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = bias[i % cols];
}

/* ------------------------------------------------------------------------------------------ */
/* The ops                                                                                     */

/* One GEMM or strided-batched GEMM on row-major operands (batch == 0 means plain cublasSgemm).
 * beta is 0 except for the unfused addmm fallback. */
static int gemm_rowmajor(kb_ctx *ctx, const char *op, const float *A, const float *B, float *C,
                         int64_t batch, int64_t M, int64_t N, int64_t K, int trans_a, int trans_b,
                         int64_t stride_a, int64_t stride_b, int64_t stride_c, float beta)
{
    /* Column-major view: C^T[N,M] = op(B)^T[N,K] op(A)^T[K,M]. */
    int64_t m = N, n = M, k = K;
    int op_first = trans_b, op_second = trans_a; /* cuBLAS transa applies to B, transb to A */
    int64_t ld_first = trans_b ? K : N;
    int64_t ld_second = trans_a ? M : K;
    int64_t ldc = N;
    adjust_ld(op_first, op_second, m, n, k, &ld_first, &ld_second, &ldc);
    if (check_gemm_sizes(ctx, op, m, n, k, ld_first, ld_second, ldc, batch))
        return -1;

    blas_call bc;
    if (blas_begin(ctx, &bc))
        return -1;
    int rc = 0;
    const float alpha = 1.0f;
    cublasOperation_t ta = op_first ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t tb = op_second ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (batch == 0) {
        BLAS_CHECK(ctx, cublasSgemm(bc.handle, ta, tb, (int)m, (int)n, (int)k, &alpha, B, (int)ld_first, A,
                                    (int)ld_second, &beta, C, (int)ldc));
    } else {
        BLAS_CHECK(ctx, cublasSgemmStridedBatched(bc.handle, ta, tb, (int)m, (int)n, (int)k, &alpha, B,
                                                  (int)ld_first, (long long)stride_b, A, (int)ld_second,
                                                  (long long)stride_a, &beta, C, (int)ldc,
                                                  (long long)stride_c, (int)batch));
    }
done:
    return blas_end(ctx, &bc, rc);
}

/* Degenerate shapes, as addmm/baddbmm handle them: an empty result is nothing to do; K == 0
 * gives zeros (PyTorch's result.zero_()). Returns 1 when handled. */
static int gemm_degenerate(kb_ctx *ctx, float *C, int64_t rows, int64_t cols, int64_t K, int *rc)
{
    *rc = 0;
    if (rows == 0 || cols == 0)
        return 1;
    if (K == 0) {
        cudaError_t e = cudaMemsetAsync(C, 0, (size_t)rows * (size_t)cols * sizeof(float), kb_ctx_stream(ctx));
        if (e != cudaSuccess)
            *rc = kb_ctx_fail(ctx, "%s:%d: cudaMemsetAsync (K == 0 GEMM): %s (%s)", __FILE__, __LINE__,
                              cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

static int check_args(kb_ctx *ctx, const char *op, const void *A, const void *B, const void *C, int64_t M,
                      int64_t N, int64_t K)
{
    if (M < 0 || N < 0 || K < 0)
        return kb_ctx_fail(ctx, "%s: negative size M=%lld N=%lld K=%lld", op, (long long)M, (long long)N,
                           (long long)K);
    if ((M && N && K && (!A || !B)) || (M && N && !C))
        return kb_ctx_fail(ctx, "%s: NULL tensor pointer", op);
    return 0;
}

extern "C" int kb_op_matmul(kb_ctx *ctx, const float *A, const float *B, float *C, int64_t M, int64_t N,
                            int64_t K, int trans_a, int trans_b)
{
    int rc;
    if (check_args(ctx, "kb_op_matmul", A, B, C, M, N, K))
        return -1;
    if (gemm_degenerate(ctx, C, M, N, K, &rc))
        return rc;
    return gemm_rowmajor(ctx, "kb_op_matmul", A, B, C, 0, M, N, K, trans_a, trans_b, 0, 0, 0, 0.0f);
}

extern "C" int kb_op_matmul_batched(kb_ctx *ctx, const float *A, const float *B, float *C, int64_t batch,
                                    int64_t M, int64_t N, int64_t K, int trans_a, int trans_b, int64_t stride_a,
                                    int64_t stride_b, int64_t stride_c)
{
    int rc;
    if (check_args(ctx, "kb_op_matmul_batched", A, B, C, M, N, K))
        return -1;
    if (batch < 0 || stride_a < 0 || stride_b < 0 || stride_c < M * N)
        return kb_ctx_fail(ctx,
                           "kb_op_matmul_batched: batch=%lld stride_a=%lld stride_b=%lld stride_c=%lld "
                           "(strides must be >= 0, stride_c >= M*N)",
                           (long long)batch, (long long)stride_a, (long long)stride_b, (long long)stride_c);
    if (batch == 0)
        return 0;
    if (stride_c != M * N)
        return kb_ctx_fail(ctx, "kb_op_matmul_batched: stride_c=%lld: the output must be contiguous (M*N=%lld)",
                           (long long)stride_c, (long long)(M * N));
    if (gemm_degenerate(ctx, C, batch * M, N, K, &rc))
        return rc;
    return gemm_rowmajor(ctx, "kb_op_matmul_batched", A, B, C, batch, M, N, K, trans_a, trans_b, stride_a,
                         stride_b, stride_c, 0.0f);
}

/* Largest power of two <= 256 dividing the address: PyTorch's _getAlignment, handed to the
 * cuBLASLt heuristic as the operands' minimum alignment. */
static uint32_t ptr_alignment(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    uint32_t al = 256;
    while (al > 1 && a % al)
        al /= 2;
    return al;
}

/* gemm_and_bias: y^T[N,M] = W[N,K] x^T[K,M] + bias[N] (column-major), bias in the epilogue.
 * Returns 0 on success, 1 if cuBLASLt found no algorithm or refused the call (PyTorch then
 * warns and takes the unfused path), -1 on any other error. */
static int linear_lt(kb_ctx *ctx, const float *x, const float *W, const float *bias, float *y, int64_t M,
                     int64_t N, int64_t K)
{
    int rc = 0;
    cublasLtMatmulDesc_t desc = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    void *ws = NULL;

    cublasLtHandle_t lt = (cublasLtHandle_t)kb_ctx_cublaslt(ctx);
    if (!lt)
        return -1;
    const int tf32 = kb_ctx_math(ctx).matmul_tf32;
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const uint64_t ws_bytes = KB_BLASLT_WORKSPACE_BYTES;
    const uint32_t al_a = ptr_alignment(W), al_b = ptr_alignment(x), al_c = ptr_alignment(y),
                   al_d = ptr_alignment(bias);
    const float alpha = 1.0f, beta = 0.0f; /* beta = 0: the bias comes from the epilogue */
    cublasLtMatmulHeuristicResult_t heur;
    int n_results = 0;

    BLAS_CHECK(ctx, cublasLtMatmulDescCreate(&desc, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                                             CUDA_R_32F));
    BLAS_CHECK(ctx, cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
    BLAS_CHECK(ctx, cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
    BLAS_CHECK(ctx, cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    BLAS_CHECK(ctx, cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    /* A = W stored as column-major [K, N] (transposed by TRANSA), B = x as [K, M], C = y as [N, M]. */
    BLAS_CHECK(ctx, cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, (uint64_t)K, (uint64_t)N, K));
    BLAS_CHECK(ctx, cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, (uint64_t)K, (uint64_t)M, K));
    BLAS_CHECK(ctx, cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, (uint64_t)N, (uint64_t)M, N));
    BLAS_CHECK(ctx, cublasLtMatmulPreferenceCreate(&pref));
    BLAS_CHECK(ctx, cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                                         sizeof ws_bytes));
    BLAS_CHECK(ctx, cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al_a,
                                                         sizeof al_a));
    BLAS_CHECK(ctx, cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al_b,
                                                         sizeof al_b));
    BLAS_CHECK(ctx, cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al_c,
                                                         sizeof al_c));
    BLAS_CHECK(ctx, cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al_d,
                                                         sizeof al_d));
    BLAS_CHECK(ctx, cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &heur, &n_results));
    if (n_results == 0) {
        rc = 1;
        goto done;
    }
    ws = kb_ctx_alloc(ctx, KB_BLASLT_WORKSPACE_BYTES);
    if (!ws) {
        rc = -1;
        goto done;
    }
    {
        cublasStatus_t s = cublasLtMatmul(lt, desc, &alpha, W, la, x, lb, &beta, y, lc, y, lc, &heur.algo, ws,
                                          KB_BLASLT_WORKSPACE_BYTES, kb_ctx_stream(ctx));
        if (s == CUBLAS_STATUS_NOT_SUPPORTED)
            rc = 1;
        else if (s != CUBLAS_STATUS_SUCCESS)
            rc = blas_fail(ctx, __FILE__, __LINE__, "cublasLtMatmul (bias epilogue)", s);
    }
done:
    if (ws)
        kb_ctx_free(ctx, ws);
    /* Destroy failures here would only leak host memory; the first error is what matters. */
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (lc)
        cublasLtMatrixLayoutDestroy(lc);
    if (lb)
        cublasLtMatrixLayoutDestroy(lb);
    if (la)
        cublasLtMatrixLayoutDestroy(la);
    if (desc)
        cublasLtMatmulDescDestroy(desc);
    return rc;
}

extern "C" int kb_op_linear(kb_ctx *ctx, const float *x, const float *W, const float *bias, float *y, int64_t M,
                            int64_t N, int64_t K)
{
    int rc;
    if (check_args(ctx, "kb_op_linear", x, W, y, M, N, K))
        return -1;
    /* No bias: F.linear is matmul(x, W^T) -> mm -> cublasSgemm(T, N). */
    if (!bias) {
        if (gemm_degenerate(ctx, y, M, N, K, &rc))
            return rc;
        return gemm_rowmajor(ctx, "kb_op_linear", x, W, y, 0, M, N, K, 0, 1, 0, 0, 0, 0.0f);
    }
    if (M == 0 || N == 0)
        return 0;
    /* addmm's isInputCompliesAddmmCudaLt (CUDA >= 12.1): 1-D contiguous bias, beta == 1, fp32,
     * contiguous 2-D result, and both mat1 = x [M, K] and mat2 = W^T [K, N] with every size > 1
     * (cublasLtMatmulAlgoGetHeuristic rejects single-row/column operands). K == 0 never reaches
     * cuBLAS: addmm returns the broadcast bias. */
    if (M > 1 && K > 1 && N > 1) {
        if (check_gemm_sizes(ctx, "kb_op_linear", N, M, K, K, K, N, 0))
            return -1;
        rc = linear_lt(ctx, x, W, bias, y, M, N, K);
        if (rc <= 0)
            return rc;
        /* rc == 1: cuBLASLt declined; PyTorch warns and recurses into the unfused path. */
    }
    /* Unfused addmm: result.copy_(bias.expand(M, N)), then gemm with beta = 1. */
    {
        int64_t n = M * N;
        int threads = 256;
        int64_t blocks = (n + threads - 1) / threads;
        if (blocks > 65535LL * 8)
            blocks = 65535LL * 8;
        broadcast_rows_kernel<<<(unsigned)blocks, threads, 0, kb_ctx_stream(ctx)>>>(bias, y, M, N);
        KB_OP_LAUNCHED(ctx);
    }
    if (K == 0)
        return 0;
    return gemm_rowmajor(ctx, "kb_op_linear", x, W, y, 0, M, N, K, 0, 1, 0, 0, 0, 1.0f);
}
