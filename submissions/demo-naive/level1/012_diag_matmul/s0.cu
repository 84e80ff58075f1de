/*
 * demo-naive, level1/012_diag_matmul, sample s0: C = diag(A) @ B, A (N,), B (N, M) fp32.
 *
 * Design: diag(A) @ B scales row i of B by A[i] (every other product of the GEMM's sums is an
 * exact zero), so this is a row-broadcast multiply, not a GEMM: one thread per element of C,
 * 256 threads per block, grid-stride loop, 64-bit indices; the row index is i / M.
 * Napkin math (4096 x 4096): 67 MB read + 67 MB written = 134 MB; ~0.04 ms at ~4 TB/s (plus the
 * division), against eager's 2.94 ms (diag_embed + a 137 GFLOP FP32 SGEMM).
 * Accuracy: C[i, j] = A[i] * B[i, j], one rounding: what the FP32 GEMM computes exactly
 * (bitwise equal to eager in FP32 mode; eager's TF32 mode rounds A and B to TF32 first).
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

#define THREADS 256

static __global__ void diag_scale_kernel(const float *__restrict__ a, const float *__restrict__ b,
                                         float *__restrict__ c, int64_t n, int64_t m)
{
    const int64_t total = n * m;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step)
        c[i] = a[i / m] * b[i];
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 2 || args->n_outputs != 1)
        return 1;
    const kb_input *A = &args->inputs[0];
    const kb_input *B = &args->inputs[1];
    const kb_output *C = &args->outputs[0];
    if (A->dtype != KB_F32 || B->dtype != KB_F32 || C->dtype != KB_F32)
        return 1;
    if (A->ndim != 1 || B->ndim != 2 || C->ndim != 2 || B->shape[0] != A->shape[0] || C->shape[0] != A->shape[0] ||
        C->shape[1] != B->shape[1])
        return 1;
    const int64_t n = A->shape[0], m = B->shape[1];
    if (n == 0 || m == 0)
        return 0;
    int64_t blocks = (n * m + THREADS - 1) / THREADS;
    if (blocks > 0x7fffffff)
        blocks = 0x7fffffff;
    diag_scale_kernel<<<(unsigned)blocks, THREADS, 0, args->stream>>>((const float *)A->data, (const float *)B->data,
                                                                     (float *)C->data, n, m);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
