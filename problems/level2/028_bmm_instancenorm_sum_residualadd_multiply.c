/*
 * level2/028_bmm_instancenorm_sum_residualadd_multiply -- KernelBench L2/28: x = bmm(x);
 * x = instance_norm(x.unsqueeze(1).unsqueeze(1)).squeeze(1).squeeze(1); return (x + y) * y,
 * bmm = nn.Linear(8192, 8192) (a plain GEMM despite its name), instance_norm =
 * nn.InstanceNorm2d(8192) (affine=False, no running stats), on x, y (1024, 8192) fp32.
 *
 * The norm sees the (1024, 1, 1, 8192) view: N = 1024, C = 1, H x W = 1 x 8192, so it normalises
 * each row of the GEMM output over its 8192 values (its num_features = 8192 does not match C = 1;
 * PyTorch only warns, as affine=False). Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias
 * epilogue, kb_linear); at::instance_norm reshapes to (1, 1024, 1, 8192) and runs batch_norm in
 * training mode without weight, bias or running stats: not cuDNN but native batch_norm_cuda
 * (statistics one block per row, the invstd kernel, the transform; kb_instance_norm); then the add
 * and the mul with y. Each temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 8192 (row statistics over 8192-term GEMM outputs).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the norm reads the 33.5 MB result twice and writes it, the add and mul 3 passes more
 * (~0.1 ms). Eager: 2.79 ms on an H100 (reference/kernelbench-problems.csv); 2.83 ms FP32,
 * 0.46 ms TF32 on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor y = kb_arg(r, "y");
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "bmm.weight"), kb_arg(r, "bmm.bias"));
    kb_tensor n = kb_instance_norm(r, KB_NEW, kb_unsqueeze(r, kb_unsqueeze(r, l, 1), 1), KB_NEW, KB_NEW, 1e-5);
    kb_drop(r, l);
    kb_tensor a = kb_add(r, KB_NEW, kb_squeeze(r, kb_squeeze(r, n, 1), 1), y);
    kb_drop(r, n);
    kb_mul(r, kb_arg(r, "out"), a, y);
}

KB_PROBLEM(.title = "BMM InstanceNorm Sum ResidualAdd Multiply",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_INPUT("y", KB_F32, KB_DIMS(BATCH, OUT), KB_RAND),
                     KB_PARAM("bmm.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("bmm.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("out", KB_F32, KB_DIMS(BATCH, OUT), .terms = (int64_t)IN * OUT)),
           /* GEMM; bias, the norm (~8), add, mul per element */
           .flops = 2.0 * BATCH * OUT * IN + 11.0 * BATCH * OUT,
           .flags = KB_PROB_CENTERED)
