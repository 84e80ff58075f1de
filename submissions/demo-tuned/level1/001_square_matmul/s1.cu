/*
 * demo-tuned, level1/001_square_matmul, sample s1: C = A @ B, A (4096,4096), B (4096,4096), fp32 in
 * and out, computed on the tensor cores in TF32 (10-bit mantissa inputs, fp32 accumulation).
 * A legitimate but lower-precision kernel: it is what PyTorch does with
 * torch.backends.cuda.matmul.allow_tf32 = True (the verified protocol's baseline), not what the
 * default-flags FP32 reference does.
 *
 * Variant of s0 with twice the work per warp: a 128x256 tile of C per block of 256 threads (8 warps
 * as 2 (M) x 4 (N), a 64x64 warp tile = 4 x 8 mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
 * per k8 step, 128 fp32 accumulators per thread, 194 registers, so 1 block (8 warps) per SM; the
 * 32 independent mma per k8 step supply the latency hiding that occupancy does not). Per k8 step
 * a warp reads 4 KB of shared memory for 64 KFLOP, 2/3 of s0's traffic per FLOP, which is s0's
 * limiter. 3 stages of 52 KB (156 KB of dynamic shared memory). K is consumed 32 at a time through
 * a 3-stage cp.async.cg pipeline
 * (16-byte copies, one commit group per k tile, cp.async.wait_group 1 + __syncthreads before a
 * stage is read; the stage refilled at iteration kt is the one every thread finished reading at
 * iteration kt-1, behind that same barrier). Shared tiles are padded (A rows 36 floats, B rows 264
 * floats) so that the fragment reads (A: lane (g,t) reads row g col t; B: row t col g) hit 32
 * distinct banks. Operands are rounded to TF32 with cvt.rna.tf32.f32 (round to nearest, ties
 * away: unbiased, unlike the truncation the tensor core applies to raw fp32 bits).
 * Fragment layouts (PTX ISA, m16n8k8 .tf32; g = lane/4, t = lane%4):
 *   A a0 (g, t)  a1 (g+8, t)  a2 (g, t+4)  a3 (g+8, t+4);  B b0 (k=t, n=g)  b1 (k=t+4, n=g);
 *   C c0 (g, 2t) c1 (g, 2t+1) c2 (g+8, 2t) c3 (g+8, 2t+1).
 * Every load is predicated on the matrix bounds (zero-fill) and every store on the bounds of C,
 * although the host accepts only the problem's shape (multiples of the tile). Deterministic: each
 * C element is one thread's fixed sequence of mma accumulations.
 *
 * Napkin math: 2 * 4096^3 = 1.37e11 FLOP. Compulsory traffic 0.2 GB (A, B read, C written; the
 * per-wave re-reads of A/B tiles come from L2, ~0.3 GB of DRAM in all): ~0.05-0.1 ms, so
 * compute-bound. The H200's dense TF32 peak (~400-495 TFLOP/s) is reached only with wgmma;
 * mma.sync with a 64x64 warp tile (4 KB of shared memory per 64 KFLOP) can reach ~250-350
 * TFLOP/s: expect 0.4-0.55 ms (grid 16 x 32 = 512 blocks = 3.9 waves of 132), i.e. ~5-7x the FP32
 * eager baseline (2.73 ms) and ~0.65-0.9x the TF32 eager baseline (cuBLAS, 0.357 ms).
 * Error: TF32 rounding (2^-11 relative per operand, unbiased) over K = 4096 products of U[0,1)
 * values gives ~1e-5 relative error on C, well inside tau = 1e-3.
 *
 * Build (the compile stage's command, hidden visibility so only kb_forward is exported):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s0.cu
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, dtype,
 * shape, alignment); 2 a CUDA call failed.
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define BM 128
#define BN 256
#define BK 32
#define STAGES 3
#define THREADS 256
#define SA (BK + 4)  /* A tile row stride in floats (m-major rows of k) */
#define SB (BN + 8)  /* B tile row stride in floats (k-major rows of n) */
#define A_STAGE (BM * SA)
#define B_STAGE (BK * SB)
#define SMEM_BYTES (STAGES * (A_STAGE + B_STAGE) * 4)

static __device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
static __device__ __forceinline__ void cp_async_wait1() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
static __device__ __forceinline__ void cp_async_wait0() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

static __device__ __forceinline__ void mma_tf32(float *c, const uint32_t *a, const uint32_t *b)
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Per-thread copy plan for one k tile. A tile: 128 rows x 8 chunks of 16 bytes; this thread copies
 * rows ar + 32i (i < 4) at column chunk ak. B tile: 32 rows x 64 chunks; rows br + 4i (i < 8) at column
 * chunk bn. The host guarantees K % 4 == 0, N % 4 == 0 and 16-byte aligned A and B, so a chunk is
 * either wholly inside or wholly outside the matrix; outside chunks are zero-filled (src-size 0,
 * nothing is read). */
struct copy_plan {
    const float *a;  /* &A[m0 + ar][ak] (row clamped to 0 when outside) */
    const float *b;  /* &B[br][n0 + bn] */
    uint32_t a_s, b_s; /* shared byte offsets of this thread's first A / B chunk in stage 0 */
    int64_t ak, br;
    unsigned a_rows_ok; /* bit i: row m0 + ar + 32i < M */
    bool b_col_ok;      /* n0 + bn < N */
};

static __device__ __forceinline__ void load_tile(const copy_plan &cp, uint32_t stage_a, uint32_t stage_b,
                                                 int64_t K, int64_t N, int64_t k0)
{
    const bool a_k_ok = k0 + cp.ak < K;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const bool ok = a_k_ok && ((cp.a_rows_ok >> i) & 1u);
        const float *src = ok ? cp.a + (int64_t)i * 32 * K + k0 : cp.a;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(stage_a + cp.a_s + i * 32 * SA * 4),
                     "l"(src), "r"(ok ? 16 : 0)
                     : "memory");
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const bool ok = cp.b_col_ok && k0 + cp.br + 4 * i < K;
        const float *src = ok ? cp.b + (k0 + 4 * i) * N : cp.b;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(stage_b + cp.b_s + i * 4 * SB * 4),
                     "l"(src), "r"(ok ? 16 : 0)
                     : "memory");
    }
}

/* C[z] = A[z] @ B[z]; batch z = blockIdx.z with element strides sA, sB, sC. */
static __global__ void __launch_bounds__(THREADS, 1)
gemm_tf32(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int64_t M, int64_t N,
          int64_t K, int64_t sA, int64_t sB, int64_t sC)
{
    extern __shared__ __align__(16) float smem[];
    float *As = smem;                    /* STAGES x [BM][SA] */
    float *Bs = smem + STAGES * A_STAGE; /* STAGES x [BK][SB] */

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp >> 2) * 64, wn = (warp & 3) * 64;
    const int64_t m0 = (int64_t)blockIdx.y * BM, n0 = (int64_t)blockIdx.x * BN;
    A += (int64_t)blockIdx.z * sA;
    B += (int64_t)blockIdx.z * sB;
    C += (int64_t)blockIdx.z * sC;

    float acc[4][8][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    copy_plan cp;
    {
        const int ar = tid >> 3, br = tid >> 6;
        const int ak = (tid & 7) * 4, bn = (tid & 63) * 4;
        cp.a_rows_ok = 0;
#pragma unroll
        for (int i = 0; i < 4; i++)
            cp.a_rows_ok |= (m0 + ar + 32 * i < M ? 1u : 0u) << i;
        cp.a = A + (m0 + ar < M ? (m0 + ar) * K + ak : 0);
        cp.b_col_ok = n0 + bn < N;
        cp.b = B + (cp.b_col_ok ? (int64_t)br * N + n0 + bn : 0);
        cp.a_s = (uint32_t)((ar * SA + ak) * 4);
        cp.b_s = (uint32_t)((br * SB + bn) * 4);
        cp.ak = ak;
        cp.br = br;
    }
    const uint32_t as0 = (uint32_t)__cvta_generic_to_shared(As), bs0 = (uint32_t)__cvta_generic_to_shared(Bs);

    const int64_t KT = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < KT)
            load_tile(cp, as0 + s * A_STAGE * 4, bs0 + s * B_STAGE * 4, K, N, (int64_t)s * BK);
        cp_async_commit(); /* always commit: group number == tile number */
    }

    for (int64_t kt = 0; kt < KT; kt++) {
        cp_async_wait1(); /* groups 0 .. kt complete (for this thread) */
        __syncthreads();  /* ... for every thread; and everyone is done reading stage (kt-1)%STAGES */
        {
            const int64_t nt = kt + STAGES - 1;
            if (nt < KT) {
                const int s = (int)(nt % STAGES);
                load_tile(cp, as0 + s * A_STAGE * 4, bs0 + s * B_STAGE * 4, K, N, nt * BK);
            }
            cp_async_commit();
        }
        const int s = (int)(kt % STAGES);
        const float *as = As + s * A_STAGE + (wm + g) * SA + t;
        const float *bs = Bs + s * B_STAGE + t * SB + wn + g;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            uint32_t a[4][4], b[8][2];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const float *p = as + i * 16 * SA + kk;
                a[i][0] = to_tf32(p[0]);
                a[i][1] = to_tf32(p[8 * SA]);
                a[i][2] = to_tf32(p[4]);
                a[i][3] = to_tf32(p[8 * SA + 4]);
            }
#pragma unroll
            for (int j = 0; j < 8; j++) {
                const float *p = bs + kk * SB + j * 8;
                b[j][0] = to_tf32(p[0]);
                b[j][1] = to_tf32(p[4 * SB]);
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    mma_tf32(acc[i][j], a[i], b[j]);
        }
    }
    cp_async_wait0(); /* nothing real is pending (trailing groups are empty); leave no copy behind */

#pragma unroll
    for (int i = 0; i < 4; i++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const int64_t r = m0 + wm + i * 16 + g;
            const int64_t c = n0 + wn + j * 8 + 2 * t; /* even; N % 4 == 0 so c+1 < N iff c < N */
            if (c < N) {
                if (r < M)
                    *reinterpret_cast<float2 *>(C + r * N + c) = make_float2(acc[i][j][0], acc[i][j][1]);
                if (r + 8 < M)
                    *reinterpret_cast<float2 *>(C + (r + 8) * N + c) = make_float2(acc[i][j][2], acc[i][j][3]);
            }
        }
    }
}

static int aligned16(const void *p) { return ((uintptr_t)p % 16) == 0; }

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 2 || args->n_outputs != 1)
        return 1;
    const kb_input *a = &args->inputs[0], *b = &args->inputs[1];
    const kb_output *c = &args->outputs[0];
    if (a->dtype != KB_F32 || b->dtype != KB_F32 || c->dtype != KB_F32 || a->ndim != 2 || b->ndim != 2 ||
        c->ndim != 2)
        return 1;
    const int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    /* Only the problem's shape (tuned for it); the kernel itself is bounds-checked. */
    if (M != 4096 || K != 4096 || N != 4096 || b->shape[0] != K || c->shape[0] != M || c->shape[1] != N)
        return 1;
    if (!aligned16(a->data) || !aligned16(b->data) || !aligned16(c->data))
        return 1;

    if (cudaFuncSetAttribute(gemm_tf32, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES) != cudaSuccess)
        return 2;
    dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM), 1);
    gemm_tf32<<<grid, THREADS, SMEM_BYTES, args->stream>>>((const float *)a->data, (const float *)b->data,
                                                           (float *)c->data, M, N, K, 0, 0, 0);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
