/*
 * demo-naive, level1/003_batched_matmul, sample s0: C[b] = A[b] @ B[b], A (Bt,M,K), B (Bt,K,N),
 * C (Bt,M,N), fp32 (torch.bmm).
 *
 * The shared-memory tiled FP32 GEMM of 001 s0 with the batch in blockIdx.z: a 64x64 tile of C per
 * block of 256 threads, 4x4 micro-tile per thread, K consumed 16 at a time, plain FP32 FMAs (no
 * TF32, no tensor cores). Edges are handled (zero-filled loads, guarded stores).
 *
 * Napkin math (Bt = 128, M = 512, K = 1024, N = 2048): 2*Bt*M*N*K = 2.75e11 FLOP; compulsory
 * traffic 0.27 + 1.07 + 0.54 GB = 1.9 GB (0.44 ms at 4.3 TB/s), so compute-bound: 5.5 ms at the
 * ~50 TFLOP/s FP32 peak of an H200. At the ~15-20 TFLOP/s a 4x4 micro-tile reaches, expect about
 * 14-18 ms. Measured on an H200: 12.1 ms = 22.8 TFLOP/s (eager PyTorch, cuBLAS strided-batched
 * FP32 without TF32: 5.36 ms).
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
    /* One matrix of the batch per blockIdx.z; offsets are 64-bit (Bt*M*K may exceed 2^31). */
    A += (int64_t)blockIdx.z * M * K;
    B += (int64_t)blockIdx.z * K * N;
    C += (int64_t)blockIdx.z * M * N;

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

static int is_f32_batch(kb_dtype dt, int32_t ndim) { return dt == KB_F32 && ndim == 3; }

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 2 || args->n_outputs != 1)
        return 1;
    const kb_input *a = &args->inputs[0], *b = &args->inputs[1];
    const kb_output *c = &args->outputs[0];
    if (!is_f32_batch(a->dtype, a->ndim) || !is_f32_batch(b->dtype, b->ndim) ||
        !is_f32_batch(c->dtype, c->ndim))
        return 1;
    const int64_t Bt = a->shape[0], M = a->shape[1], K = a->shape[2], N = b->shape[2];
    if (b->shape[0] != Bt || b->shape[1] != K || c->shape[0] != Bt || c->shape[1] != M || c->shape[2] != N ||
        Bt <= 0 || M <= 0 || N <= 0 || K <= 0)
        return 1;
    if ((M + BM - 1) / BM > 65535 || Bt > 65535) /* gridDim.y and gridDim.z limits */
        return 1;

    dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM), (unsigned)Bt);
    sgemm_64x64<<<grid, THREADS, 0, args->stream>>>(M, N, K, (const float *)a->data, (const float *)b->data,
                                                   (float *)c->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
