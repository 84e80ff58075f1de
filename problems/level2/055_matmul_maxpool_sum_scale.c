/*
 * level2/055_matmul_maxpool_sum_scale -- KernelBench L2/55: x = matmul(x);
 * x = max_pool(x.unsqueeze(1)).squeeze(1); return torch.sum(x, dim=1) * 0.5, matmul =
 * nn.Linear(32768, 32768), max_pool = nn.MaxPool1d(2) (stride 2), on x (128, 32768) fp32 -> (128,).
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); F.max_pool1d on
 * CUDA is max_pool1d_with_indices, i.e. max_pool2d_with_indices on the (128, 1, 1, 32768) view
 * (values (128, 1, 16384) and int64 indices, the indices freed at once: kb_max_pool1d); the row
 * sum of the squeezed (128, 16384) view; the mul by a Python scalar on 128 values.
 * Accuracy: terms = 32768 * 16384 (the row sum of 16384 pooled GEMM outputs of 32768 terms; the
 * max is exact).
 * Napkin math: 2 * 128 * 32768 * 32768 = 2.75e11 FLOP: ~5.5 ms of FP32 (~50 TFLOP/s), ~0.8 ms of
 * TF32; the weight is 4 GiB (2^30 floats; the csv's largest_tensor_GiB counts inputs only), read
 * once in ~1.0 ms: in TF32 the problem is weight-bandwidth-bound. Eager: 5.27 ms on an H100
 * (reference/kernelbench-problems.csv); 5.39 ms FP32, 1.17 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, IN = 32768, OUT = 32768, POOL = 2, POOLED = OUT / POOL };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "matmul.weight"), kb_arg(r, "matmul.bias"));
    kb_tensor p = kb_max_pool1d(r, KB_NEW, kb_unsqueeze(r, l, 1), POOL, 0 /* stride=None */, 0, 1, 0);
    kb_drop(r, l);
    kb_tensor s = kb_sum(r, KB_NEW, kb_squeeze(r, p, 1), 1, 0);
    kb_drop(r, p);
    kb_muls(r, kb_arg(r, "y"), s, 0.5); /* scale_factor */
}

KB_PROBLEM(.title = "Matmul MaxPool Sum Scale",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("matmul.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("matmul.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH), .terms = (int64_t)IN * POOLED)),
           /* GEMM; bias, the pool's compare per GEMM output; the sum per pooled value */
           .flops = 2.0 * BATCH * OUT * IN + 2.0 * BATCH * OUT + 1.0 * BATCH * POOLED)
