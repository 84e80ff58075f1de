/*
 * tools/demo-l2/kit/gemm.cuh -- the naive kit's matrix products: nn.Linear (y = x W^T + b) and
 * torch.matmul of two matrices, on one shared-memory tiled SGEMM.
 *
 * The kernel is the textbook first version (the same scheme as demo-naive's level1/001 s0): a
 * 64x64 tile of C per block of 256 threads, each thread a 4x4 micro-tile in registers, K consumed
 * 16 at a time through shared memory. Both operands are read k-contiguous (A [M, K] and B [N, K],
 * i.e. C = A B^T, nn.Linear's layout) and stored k-major in shared memory, so each k step is two
 * float4 reads per 16 FMAs. Plain FP32 FMAs (no TF32, no tensor cores). Shapes need not be
 * multiples of the tile: loads outside read 0, stores are guarded.
 * Accuracy: each thread's running sums restart every 256 products and are added into a second
 * set of accumulators, so a K-term dot product is a sum of K/256 partial sums of 256 terms each:
 * error ~ (256 + K/256) 2^-24 sum|terms| at worst instead of K 2^-24 (K = 32768: 384 vs 32768).
 * Napkin math: 2 M N K FLOP at the ~20 TFLOP/s this scheme reaches on an H200 (level1/001 s0:
 * 21.7 TFLOP/s), e.g. 1024 x 8192 x 8192 = 1.4e11 FLOP in ~7 ms; the operands (0.3 GB) cost
 * < 0.1 ms of bandwidth, so it is compute-bound (cuBLAS without TF32: ~2.5x faster).
 */

/*@section gemm*/
#define NK_GEMM_BM 64
#define NK_GEMM_BN 64
#define NK_GEMM_BK 16
#define NK_GEMM_FOLD 16 /* k tiles (of 16) per partial sum: 256 products */

/* C[M, N] = A[M, K] B[N, K]^T (+ bias[N]); A and B with row strides lda, ldb; C contiguous. */
static __global__ void __launch_bounds__(256, 2) /* <= 128 registers: two blocks per SM */
nk_sgemm_nt(int64_t M, int64_t N, int64_t K, const float *__restrict__ A, int64_t lda, const float *__restrict__ B,
            int64_t ldb, const float *__restrict__ bias, float *__restrict__ C)
{
    /* k-major tiles; the +4 pad keeps float4 rows aligned and spreads the transposing stores */
    __shared__ __align__(16) float As[NK_GEMM_BK][NK_GEMM_BM + 4];
    __shared__ __align__(16) float Bs[NK_GEMM_BK][NK_GEMM_BN + 4];

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16; /* columns tx*4 .. +3, rows ty*4 .. +3 of the tile */
    const int64_t row0 = (int64_t)blockIdx.y * NK_GEMM_BM, col0 = (int64_t)blockIdx.x * NK_GEMM_BN;

    float acc[4][4], tot[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            acc[i][j] = tot[i][j] = 0.0f;

    int tile = 0;
    for (int64_t k0 = 0; k0 < K; k0 += NK_GEMM_BK, tile++) {
        /* 64 rows x 16 k of each operand, 4 elements per thread; 16 consecutive threads read 16
         * consecutive k of one row (64 bytes) */
#pragma unroll
        for (int i = 0; i < (NK_GEMM_BM * NK_GEMM_BK) / 256; i++) {
            const int idx = tid + i * 256, m = idx / NK_GEMM_BK, k = idx % NK_GEMM_BK;
            const int64_t gk = k0 + k, gr = row0 + m, gc = col0 + m;
            As[k][m] = (gr < M && gk < K) ? A[gr * lda + gk] : 0.0f;
            Bs[k][m] = (gc < N && gk < K) ? B[gc * ldb + gk] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < NK_GEMM_BK; k++) {
            const float4 a = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
            const float4 b = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
            const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads(); /* the next slice overwrites the tiles */
        if (tile % NK_GEMM_FOLD == NK_GEMM_FOLD - 1) {
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    tot[i][j] += acc[i][j];
                    acc[i][j] = 0.0f;
                }
        }
    }

#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int64_t row = row0 + ty * 4 + i;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int64_t col = col0 + tx * 4 + j;
            if (row < M && col < N)
                C[row * N + col] = (tot[i][j] + acc[i][j]) + (bias ? __ldg(bias + col) : 0.0f);
        }
    }
}

static void nk_gemm_nt(nk_ref *r, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
                       int64_t ldb, const float *bias, float *C)
{
    if (r->status != NK_OK || M == 0 || N == 0)
        return;
    const int64_t gx = (N + NK_GEMM_BN - 1) / NK_GEMM_BN, gy = (M + NK_GEMM_BM - 1) / NK_GEMM_BM;
    if (gx > 0x7fffffff || gy > 65535) {
        nk_fail(r, NK_BAD_ARGS, "nk_gemm: M beyond the grid's 65535 row tiles");
        return;
    }
    nk_sgemm_nt<<<dim3((unsigned)gx, (unsigned)gy), 256, 0, r->stream>>>(M, N, K, A, lda, B, ldb, bias, C);
    nk_launched(r, "nk_sgemm_nt");
}

/*@section nk_linear needs=gemm*/
/* F.linear(x, weight, bias): x [..., K] contiguous, weight [N, K] contiguous, bias [N] or
 * NK_NEW (bias=False); the result [..., N]. */
static nk_tensor nk_linear(nk_ref *r, nk_tensor out, nk_tensor x, nk_tensor w, nk_tensor bias)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (x.dtype != KB_F32 || w.dtype != KB_F32 || x.ndim < 1 || w.ndim != 2 || !nk_is_contiguous(x) ||
        !nk_is_contiguous(w) || x.shape[x.ndim - 1] != w.shape[1])
        return nk_fail(r, NK_BAD_ARGS, "nk_linear: shapes");
    const int64_t K = w.shape[1], N = w.shape[0], M = K > 0 ? nk_numel(x) / K : 0;
    if (bias.data && (bias.dtype != KB_F32 || bias.ndim != 1 || bias.shape[0] != N))
        return nk_fail(r, NK_BAD_ARGS, "nk_linear: bias");
    int64_t shape[NK_MAX_DIMS];
    for (int d = 0; d < x.ndim - 1; d++)
        shape[d] = x.shape[d];
    shape[x.ndim - 1] = N;
    nk_tensor y = nk_result(r, out, KB_F32, x.ndim, shape, "nk_linear");
    nk_gemm_nt(r, M, N, K, (const float *)x.data, K, (const float *)w.data, K, (const float *)bias.data,
               (float *)y.data);
    return r->status == NK_OK ? y : NK_NEW;
}

/*@section nk_matmul needs=gemm,nk_copy*/
/* torch.matmul of two matrices, a [M, K] @ b [K, N], any strides: the kernel wants a with unit
 * k-stride and b^T ([N, K]) with unit k-stride; an operand that has neither is first copied
 * contiguous (as PyTorch's clone before cuBLAS). A transposed weight view (x @ W.t()) needs no
 * copy. */
static nk_tensor nk_matmul(nk_ref *r, nk_tensor out, nk_tensor a, nk_tensor b)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (a.dtype != KB_F32 || b.dtype != KB_F32 || a.ndim != 2 || b.ndim != 2 || a.shape[1] != b.shape[0])
        return nk_fail(r, NK_BAD_ARGS, "nk_matmul: only a 2-d @ 2-d product of matching sizes");
    const int64_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
    nk_tensor bt = b; /* b^T: [N, K] */
    bt.shape[0] = N;
    bt.shape[1] = K;
    bt.stride[0] = b.stride[1];
    bt.stride[1] = b.stride[0];
    const bool copy_a = a.stride[1] != 1 && K > 1, copy_b = bt.stride[1] != 1 && K > 1;
    if (copy_a)
        a = nk_copy(r, NK_NEW, a);
    if (copy_b)
        bt = nk_copy(r, NK_NEW, bt);
    const int64_t shape[2] = {M, N};
    nk_tensor y = nk_result(r, out, KB_F32, 2, shape, "nk_matmul");
    nk_gemm_nt(r, M, N, K, (const float *)a.data, a.stride[0], (const float *)bt.data, bt.stride[0], NULL,
               (float *)y.data);
    if (copy_a)
        nk_free(r, a.data);
    if (copy_b)
        nk_free(r, bt.data);
    return r->status == NK_OK ? y : NK_NEW;
}
