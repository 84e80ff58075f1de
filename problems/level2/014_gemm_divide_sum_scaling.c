/*
 * level2/014_gemm_divide_sum_scaling -- KernelBench L2/14: x = torch.matmul(x, weight.T) / 2;
 * x = torch.sum(x, dim=1, keepdim=True) * 1.5, weight (8192, 8192) ~ randn (a plain parameter),
 * on x (1024, 8192) fp32 -> (1024, 1).
 *
 * Eager PyTorch: torch.matmul of two 2-D tensors is at::mm; weight.T is a transposed view, which
 * cuBLAS takes as a transpose flag (cublasSgemm, no copy; kb_matmul of the kb_transpose view).
 * Then div by a Python scalar (x * (1/2), div_true_kernel_cuda), the row sum (gpu_reduce_kernel,
 * float accumulation) and mul by a Python scalar on 1024 values.
 * Accuracy: each output sums 8192 GEMM outputs, each a sum of 8192 products of randn weights:
 * terms = 8192 * 8192, the flattened sum's length.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the 268 MB weight is read in ~0.06 ms: compute-bound. A submission may fold the sum into
 * the GEMM (x @ weight.sum(0)), which eager does not. Eager: 2.75 ms on an H100
 * (reference/kernelbench-problems.csv); 2.80 ms FP32, 0.41 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, HIDDEN = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_matmul(r, KB_NEW, kb_arg(r, "x"), kb_transpose(r, kb_arg(r, "weight"), 0, 1));
    kb_tensor d = kb_divs(r, KB_NEW, g, 2.0);
    kb_drop(r, g);
    kb_tensor s = kb_sum(r, KB_NEW, d, 1, 1);
    kb_drop(r, d);
    kb_muls(r, kb_arg(r, "y"), s, 1.5); /* scaling_factor */
}

KB_PROBLEM(.title = "Gemm Divide Sum Scaling",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("weight", KB_F32, KB_DIMS(HIDDEN, IN), KB_RANDN)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1), .terms = (int64_t)IN * HIDDEN)),
           .flops = 2.0 * BATCH * HIDDEN * IN + 2.0 * BATCH * HIDDEN + BATCH) /* GEMM; div, sum; mul */
