# demo-kernelbench, level1/001_square_matmul, sample s0 (KernelBench format: ModelNew + load_inline).
# C = A @ B on the tensor cores in TF32 (mma.sync m16n8k8, 128x128x32 tiles, 3-stage cp.async).
# PORT of submissions/demo-tuned/level1/001_square_matmul/s0.cu: the same __global__ kernel code (copied verbatim, with
# its helpers and constants) and the same launch configuration (grid, block, dynamic shared
# memory, kernel attributes); only the torch::Tensor launcher around it is new (it replaces
# kb_forward: TORCH_CHECKs instead of return 1, torch::empty* instead of harness outputs and
# cudaMallocAsync scratch). The same kernel is timed through both submission kinds; the two
# times must agree within 2%.
# Stream: like most real files, every launch uses <<<grid, block>>> on the legacy default stream
# (stream 0); scratch and outputs come from torch's caching allocator.
# Expected: standard pass, paper pass (TF32 error ~1e-5 relative, inside tau = 1e-3), strict fail
# (TF32 tensor cores: a precision downgrade against the FP32 reference; demo-hacks' TF32 GEMMs fail
# the strict S2 distribution: 'fails S2').
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <cuda_runtime.h>

#define BM 128
#define BN 128
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
 * rows ar + 32i (i < 4) at column chunk ak. B tile: 32 rows x 32 chunks; rows br + 8i at column
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
    for (int i = 0; i < 4; i++) {
        const bool ok = cp.b_col_ok && k0 + cp.br + 8 * i < K;
        const float *src = ok ? cp.b + (k0 + 8 * i) * N : cp.b;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(stage_b + cp.b_s + i * 8 * SB * 4),
                     "l"(src), "r"(ok ? 16 : 0)
                     : "memory");
    }
}

/* C[z] = A[z] @ B[z]; batch z = blockIdx.z with element strides sA, sB, sC. */
static __global__ void __launch_bounds__(THREADS, 2)
gemm_tf32(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int64_t M, int64_t N,
          int64_t K, int64_t sA, int64_t sB, int64_t sC)
{
    extern __shared__ __align__(16) float smem[];
    float *As = smem;                    /* STAGES x [BM][SA] */
    float *Bs = smem + STAGES * A_STAGE; /* STAGES x [BK][SB] */

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp >> 2) * 64, wn = (warp & 3) * 32;
    const int64_t m0 = (int64_t)blockIdx.y * BM, n0 = (int64_t)blockIdx.x * BN;
    A += (int64_t)blockIdx.z * sA;
    B += (int64_t)blockIdx.z * sB;
    C += (int64_t)blockIdx.z * sC;

    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    copy_plan cp;
    {
        const int ar = tid >> 3, br = tid >> 5;
        const int ak = (tid & 7) * 4, bn = (tid & 31) * 4;
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
            uint32_t a[4][4], b[4][2];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const float *p = as + i * 16 * SA + kk;
                a[i][0] = to_tf32(p[0]);
                a[i][1] = to_tf32(p[8 * SA]);
                a[i][2] = to_tf32(p[4]);
                a[i][3] = to_tf32(p[8 * SA + 4]);
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const float *p = bs + kk * SB + j * 8;
                b[j][0] = to_tf32(p[0]);
                b[j][1] = to_tf32(p[4 * SB]);
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    mma_tf32(acc[i][j], a[i], b[j]);
        }
    }
    cp_async_wait0(); /* nothing real is pending (trailing groups are empty); leave no copy behind */

#pragma unroll
    for (int i = 0; i < 4; i++) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
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

torch::Tensor matmul_forward(torch::Tensor A, torch::Tensor B)
{
    TORCH_CHECK(A.is_cuda(), "A must be a CUDA tensor");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32, "A must be float32");
    TORCH_CHECK(A.is_contiguous(), "A must be contiguous");
    TORCH_CHECK(B.is_cuda(), "B must be a CUDA tensor");
    TORCH_CHECK(B.scalar_type() == torch::kFloat32, "B must be float32");
    TORCH_CHECK(B.is_contiguous(), "B must be contiguous");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2, "A and B must be 2-D");
    const int64_t M = A.size(0), K = A.size(1), N = B.size(1);
    /* Only the problem's shape (tuned for it); the kernel itself is bounds-checked. */
    TORCH_CHECK(M == 4096 && K == 4096 && N == 4096 && B.size(0) == K, "only 4096 x 4096 @ 4096 x 4096");
    auto C = torch::empty({M, N}, A.options());
    TORCH_CHECK(aligned16(A.data_ptr<float>()) && aligned16(B.data_ptr<float>()) && aligned16(C.data_ptr<float>()),
                "A, B and C must be 16-byte aligned");

    TORCH_CHECK(cudaFuncSetAttribute(gemm_tf32, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES) == cudaSuccess,
                "cudaFuncSetAttribute failed");
    dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM), 1);
    gemm_tf32<<<grid, THREADS, SMEM_BYTES>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, N, K,
                                             0, 0, 0);
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "gemm_tf32 launch failed: ", cudaGetErrorString(err));
    }
    return C;
}
"""

cpp_source = "torch::Tensor matmul_forward(torch::Tensor A, torch::Tensor B);"

ext = load_inline(
    name="kb_demo_square_matmul_s0",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["matmul_forward"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return ext.matmul_forward(A, B)
