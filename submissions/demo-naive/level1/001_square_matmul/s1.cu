/*
 * demo-naive, level1/001_square_matmul, sample s1: C = A @ B, A (M,K), B (K,N), C (M,N), fp32.
 *
 * The second classic step of an FP32 GEMM: a 128x128 tile of C per block of 256 threads, each
 * thread accumulating an 8x8 micro-tile (4 quadrants of 4x4, so shared-memory reads are
 * conflict-free float4s), K consumed 8 at a time, global loads as float4. Plain FP32 FMAs (no
 * TF32, no tensor cores). To stay simple it has no edge handling: it requires M and N to be
 * multiples of 128, K a multiple of 8 and 16-byte aligned pointers, and returns 1 otherwise
 * (4096^3 qualifies).
 *
 * Napkin math (M = N = K = 4096): 1.37e11 FLOP, compute-bound (0.2 GB compulsory traffic):
 * 2.7 ms at the ~50 TFLOP/s FP32 peak of an H200. Per k step a thread issues 4 LDS.128 for 64
 * FMAs (half the shared-memory traffic per FMA of s0's 4x4) and A/B are re-fetched from L2 32
 * times instead of 64; without double buffering expect ~25-30 TFLOP/s: about 4.5-5.5 ms.
 * Measured on an H200: 3.55 ms = 38.7 TFLOP/s (s0: 6.33 ms; cuBLAS FP32: 2.71 ms).
 *
 * Build (the compile stage's command, hidden visibility so only kb_forward is exported):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s1.cu
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, dtype,
 * shape, divisibility, alignment); 2 a CUDA call failed.
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define BM 128
#define BN 128
#define BK 8
#define THREADS 256

/* Thread (ty, tx) of the 16x16 grid owns rows {ty*4 + i, 64 + ty*4 + i} and columns
 * {tx*4 + j, 64 + tx*4 + j}, i, j in 0..3. */
static __global__ void __launch_bounds__(THREADS)
sgemm_128x128(int64_t N, int64_t K, const float *__restrict__ A, const float *__restrict__ B,
              float *__restrict__ C)
{
    /* As is k-major (transposed); the +4 pad moves the two k halves a thread stores to
     * different banks and keeps every row 16-byte aligned. */
    __shared__ __align__(16) float As[BK][BM + 4];
    __shared__ __align__(16) float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int64_t row0 = (int64_t)blockIdx.y * BM;
    const int64_t col0 = (int64_t)blockIdx.x * BN;

    /* Load assignment: A tile (128 x 8): thread loads row tid/2, k (tid%2)*4 .. +3.
     *                  B tile (8 x 128): thread loads k tid/32, columns (tid%32)*4 .. +3. */
    const int a_m = tid / 2, a_k = (tid % 2) * 4;
    const int b_k = tid / 32, b_n = (tid % 32) * 4;

    float acc[8][8] = {};

    for (int64_t k0 = 0; k0 < K; k0 += BK) {
        float4 av = *reinterpret_cast<const float4 *>(&A[(row0 + a_m) * K + k0 + a_k]);
        As[a_k + 0][a_m] = av.x;
        As[a_k + 1][a_m] = av.y;
        As[a_k + 2][a_m] = av.z;
        As[a_k + 3][a_m] = av.w;
        *reinterpret_cast<float4 *>(&Bs[b_k][b_n]) =
            *reinterpret_cast<const float4 *>(&B[(k0 + b_k) * N + col0 + b_n]);
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[k][64 + ty * 4]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k][64 + tx * 4]);
            float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads(); /* the next iteration overwrites the tiles */
    }

#pragma unroll
    for (int i = 0; i < 8; i++) {
        int64_t r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
        float *crow = C + r * N + col0;
        *reinterpret_cast<float4 *>(&crow[tx * 4]) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4 *>(&crow[64 + tx * 4]) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

static int is_f32_matrix(kb_dtype dt, int32_t ndim) { return dt == KB_F32 && ndim == 2; }
static int aligned16(const void *p) { return ((uintptr_t)p % 16) == 0; }

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
    if (M % BM != 0 || N % BN != 0 || K % BK != 0 || M / BM > 65535)
        return 1;
    if (!aligned16(a->data) || !aligned16(b->data) || !aligned16(c->data))
        return 1;

    dim3 grid((unsigned)(N / BN), (unsigned)(M / BM));
    sgemm_128x128<<<grid, THREADS, 0, args->stream>>>(N, K, (const float *)a->data, (const float *)b->data,
                                                     (float *)c->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
