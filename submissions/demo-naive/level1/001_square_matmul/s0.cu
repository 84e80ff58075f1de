/*
 * demo-naive, level1/001_square_matmul, sample s0: C = A @ B, A (M,K), B (K,N), C (M,N), fp32.
 *
 * A shared-memory tiled FP32 GEMM, the textbook first version: a 64x64 tile of C per block of
 * 256 threads, each thread accumulating a 4x4 micro-tile in registers, K consumed 16 at a time.
 * Plain FP32 FMAs throughout (no TF32, no tensor cores). Shapes need not be multiples of the
 * tile: loads outside the matrices read as zero and stores are guarded.
 *
 * Napkin math (M = N = K = 4096): 2*M*N*K = 1.37e11 FLOP; compulsory traffic 3 * 64 MiB = 0.2 GB
 * (0.05 ms at 4.3 TB/s), so it is compute-bound: 2.7 ms at the ~50 TFLOP/s FP32 peak of an H200.
 * Each k step costs 2 LDS.128 per 16 FMAs and each element of A and B is fetched from L2 64 times
 * (once per tile row/column), so expect ~15-20 TFLOP/s: about 7-9 ms. Measured on an H200:
 * 6.33 ms = 21.7 TFLOP/s (eager PyTorch, cuBLAS FP32 without TF32: 2.71 ms).
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

#define BM 64
#define BN 64
#define BK 16
#define THREADS 256

/* As is stored k-major (transposed) so that a thread reads its 4 rows as one float4; the +4 pad
 * keeps rows 16-byte aligned and spreads the transposing stores over more banks. */
static __global__ void __launch_bounds__(THREADS, 2) /* cap 128 regs: 2+ blocks per SM */
sgemm_64x64(int64_t M, int64_t N, int64_t K, const float *__restrict__ A, const float *__restrict__ B,
            float *__restrict__ C)
{
    __shared__ __align__(16) float As[BK][BM + 4];
    __shared__ __align__(16) float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % 16; /* column group: columns tx*4 .. tx*4+3 of the tile */
    const int ty = tid / 16; /* row group: rows ty*4 .. ty*4+3 */
    const int64_t row0 = (int64_t)blockIdx.y * BM;
    const int64_t col0 = (int64_t)blockIdx.x * BN;

    float acc[4][4] = {};

    for (int64_t k0 = 0; k0 < K; k0 += BK) {
        /* A tile: 64 rows x 16 k, 4 elements per thread; consecutive threads read along k. */
        for (int i = 0; i < (BM * BK) / THREADS; i++) {
            int idx = tid + i * THREADS;
            int m = idx / BK, k = idx % BK;
            int64_t gr = row0 + m, gk = k0 + k;
            As[k][m] = (gr < M && gk < K) ? A[gr * K + gk] : 0.0f;
        }
        /* B tile: 16 k x 64 columns; consecutive threads read along a row of B. */
        for (int i = 0; i < (BK * BN) / THREADS; i++) {
            int idx = tid + i * THREADS;
            int k = idx / BN, n = idx % BN;
            int64_t gk = k0 + k, gc = col0 + n;
            Bs[k][n] = (gk < K && gc < N) ? B[gk * N + gc] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
            float4 b = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
            float av[4] = {a.x, a.y, a.z, a.w};
            float bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads(); /* the next iteration overwrites the tiles */
    }

#pragma unroll
    for (int i = 0; i < 4; i++) {
        int64_t r = row0 + ty * 4 + i;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int64_t c = col0 + tx * 4 + j;
            if (r < M && c < N)
                C[r * N + c] = acc[i][j];
        }
    }
}

static int is_f32_matrix(kb_dtype dt, int32_t ndim) { return dt == KB_F32 && ndim == 2; }

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 2 || args->n_outputs != 1)
        return 1;
    const kb_input *a = &args->inputs[0], *b = &args->inputs[1];
    const kb_output *c = &args->outputs[0];
    if (!is_f32_matrix(a->dtype, a->ndim) || !is_f32_matrix(b->dtype, b->ndim) ||
        !is_f32_matrix(c->dtype, c->ndim))
        return 1;
    const int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    if (b->shape[0] != K || c->shape[0] != M || c->shape[1] != N || M <= 0 || N <= 0 || K <= 0)
        return 1;
    if ((M + BM - 1) / BM > 65535) /* gridDim.y limit */
        return 1;

    dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));
    sgemm_64x64<<<grid, THREADS, 0, args->stream>>>(M, N, K, (const float *)a->data, (const float *)b->data,
                                                   (float *)c->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
