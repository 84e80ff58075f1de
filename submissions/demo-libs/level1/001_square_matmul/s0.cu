/*
 * demo-libs, level1/001_square_matmul, sample s0 -- a library call instead of a kernel (test
 * fixture, not an LLM): C = A @ B through cublasSgemm, full FP32 (CUBLAS_DEFAULT_MATH, no TF32),
 * which is what eager PyTorch runs for torch.matmul with allow_tf32 off.
 *
 * Row-major A (M x K), B (K x N), C (M x N) are column-major A^T, B^T, C^T, so
 * C^T = B^T A^T is one column-major GEMM with the operands swapped and no transposes.
 * The handle is created once (its one-time set-up is not per call), bound to args->stream on
 * every call; cuBLAS's workspace comes from its own allocation and is counted by the memory
 * profile like any other. Why it exists: cuBLAS inside the sandbox must keep working
 * (the object is loaded inside it), and library calls are legal (docs/threat-model.md).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

static cublasHandle_t handle;

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 2 || args->n_outputs != 1)
        return 1;
    const kb_input *a = &args->inputs[0], *b = &args->inputs[1];
    const kb_output *c = &args->outputs[0];
    if (a->ndim != 2 || b->ndim != 2 || c->ndim != 2 || a->dtype != KB_F32 || b->dtype != KB_F32 ||
        a->shape[1] != b->shape[0] || c->shape[0] != a->shape[0] || c->shape[1] != b->shape[1])
        return 1;
    const int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    if (M > 0x7fffffff || N > 0x7fffffff || K > 0x7fffffff)
        return 1;
    if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        return 2;
    if (cublasSetStream(handle, args->stream) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS)
        return 2;
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one,
                                    (const float *)b->data, (int)N, (const float *)a->data, (int)K, &zero,
                                    (float *)c->data, (int)N);
    return st == CUBLAS_STATUS_SUCCESS && cudaGetLastError() == cudaSuccess ? 0 : 2;
}
