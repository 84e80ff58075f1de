/*
 * level2/075_gemm_groupnorm_min_biasadd -- KernelBench L2/75: x = group_norm(gemm(x));
 * x = torch.min(x, 1, keepdim=True)[0]; return x + bias, gemm = nn.Linear(8192, 8192),
 * group_norm = nn.GroupNorm(512, 8192) (eps 1e-5, weight = ones, bias = zeros at initialisation),
 * bias (1, 8192, 1, 1) ~ randn, on x (1024, 8192) fp32 -> (1, 8192, 1024, 1).
 *
 * The row minimum is (1024, 1); broadcast against the 4-D bias (1, 8192, 1, 1) it gives
 * (1, 8192, 1024, 1): out[0, c, b, 0] = min_b + bias[c] (the csv's note), 32 MB written.
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); native_group_norm
 * on the 2-D input, H x W = 1: RowwiseMomentsCUDAKernel, one block per (row, group) = 524288
 * blocks of 16 values (a 32-thread warp each), then GroupNorm1dForward's (x - mean) * rstd *
 * gamma + beta (kb_group_norm); min.dim (values and int64 indices, the indices freed with the
 * tuple); the broadcast add. Each temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 16 (group statistics over 16 GEMM outputs of 8192 terms; the min is exact).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the norm makes ~3 passes over the 33.5 MB result, the min one read, the add one 33.5 MB
 * write (~0.08 ms). Eager: 3.09 ms on an H100 (reference/kernelbench-problems.csv); 3.13 ms FP32,
 * 0.76 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192, GROUPS = 512 };

static void reference(kb_ref *r)
{
    kb_tensor g = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "gemm.weight"), kb_arg(r, "gemm.bias"));
    kb_tensor n = kb_group_norm(r, KB_NEW, g, GROUPS, kb_arg(r, "group_norm.weight"), kb_arg(r, "group_norm.bias"),
                                1e-5);
    kb_drop(r, g);
    /* torch.min(x, 1, keepdim=True) returns (values, indices); [0] keeps the values */
    kb_tensor idx = KB_EMPTY(r, KB_I64, BATCH, 1);
    kb_tensor m = kb_min_dim(r, KB_NEW, idx, n, 1, 1);
    kb_drop(r, idx);
    kb_drop(r, n);
    kb_add(r, kb_arg(r, "y"), m, kb_arg(r, "bias"));
}

KB_PROBLEM(.title = "Gemm GroupNorm Min BiasAdd",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(1, OUT, 1, 1), KB_RANDN),
                     KB_PARAM("gemm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("gemm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN)),
                     KB_PARAM("group_norm.weight", KB_F32, KB_DIMS(OUT), KB_ONES),
                     KB_PARAM("group_norm.bias", KB_F32, KB_DIMS(OUT), KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(1, OUT, BATCH, 1), .terms = (int64_t)IN * (OUT / GROUPS))),
           /* GEMM; bias, the norm (~8), min per GEMM output; the add per output */
           .flops = 2.0 * BATCH * OUT * IN + 10.0 * BATCH * OUT + 1.0 * OUT * BATCH,
           .flags = KB_PROB_CENTERED)
