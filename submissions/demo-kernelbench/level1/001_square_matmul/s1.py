# demo-kernelbench, level1/001_square_matmul, sample s1 (KernelBench format: ModelNew + load_inline).
# Demonstrates "cublas_cpp": the C++/CUDA source calls cublasSgemm itself, creating (and destroying)
# a cuBLAS handle on every call and leaving it on the legacy default stream (no cublasSetStream), as
# real files often do; linked with extra_ldflags=["-lcublas"]. Row-major C = A @ B is computed as the
# column-major product C^T = B^T A^T. The handle's default math mode is CUBLAS_DEFAULT_MATH: exact
# FP32, no TF32 (benign library use, the same GEMM as the FP32 baseline).
# Expected: correct (standard pass, paper pass, strict pass); slower than the baseline by the
# per-call handle creation (cublasCreate/cublasDestroy inside the timed forward).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

matmul_cublas_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

torch::Tensor matmul_cublas(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "A and B must be float32");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0), "shape mismatch");
    A = A.contiguous();
    B = B.contiguous();
    const int M = (int)A.size(0), K = (int)A.size(1), N = (int)B.size(1);
    auto C = torch::empty({M, N}, A.options());

    cublasHandle_t handle;
    TORCH_CHECK(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate failed");
    const float alpha = 1.0f, beta = 0.0f;
    // Column-major view: C^T (N x M) = B^T (N x K) * A^T (K x M).
    cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha,
                                    B.data_ptr<float>(), N, A.data_ptr<float>(), K, &beta,
                                    C.data_ptr<float>(), N);
    cublasDestroy(handle);
    TORCH_CHECK(st == CUBLAS_STATUS_SUCCESS, "cublasSgemm failed");
    return C;
}
"""

matmul_cublas_cpp_source = "torch::Tensor matmul_cublas(torch::Tensor A, torch::Tensor B);"

matmul_cublas_ext = load_inline(
    name="kb_demo_square_matmul_s1",
    cpp_sources=matmul_cublas_cpp_source,
    cuda_sources=matmul_cublas_source,
    functions=["matmul_cublas"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
    extra_ldflags=["-lcublas"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return matmul_cublas_ext.matmul_cublas(A, B)
