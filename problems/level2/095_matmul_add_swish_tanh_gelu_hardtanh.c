/*
 * level2/095_matmul_add_swish_tanh_gelu_hardtanh -- KernelBench L2/95: x = matmul(x) + add_value;
 * x = sigmoid(x) * x; return hardtanh(gelu(tanh(x)), -1, 1), matmul = nn.Linear(8192, 8192),
 * add_value (8192,) ~ randn, on x (1024, 8192) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); the broadcast add;
 * sigmoid and the mul (both the sigmoid and the sum freed after it); tanh; GELU (erf);
 * F.hardtanh(-1, 1). Each temporary is freed once the next op has read it.
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; six elementwise kernels make ~12 passes over the 33.5 MB result (~0.1 ms). Eager: 2.85 ms
 * on an H100 (reference/kernelbench-problems.csv); 2.86 ms FP32, 0.49 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "matmul.weight"), kb_arg(r, "matmul.bias"));
    kb_tensor a = kb_add(r, KB_NEW, l, kb_arg(r, "add_value"));
    kb_drop(r, l);
    kb_tensor sg = kb_sigmoid(r, KB_NEW, a);
    kb_tensor sw = kb_mul(r, KB_NEW, sg, a);
    kb_drop(r, sg);
    kb_drop(r, a);
    kb_tensor t = kb_tanh(r, KB_NEW, sw);
    kb_drop(r, sw);
    kb_tensor e = kb_gelu(r, KB_NEW, t);
    kb_drop(r, t);
    kb_hardtanh(r, kb_arg(r, "y"), e, -1.0, 1.0);
}

KB_PROBLEM(.title = "Matmul Add Swish Tanh GELU Hardtanh",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("add_value", KB_F32, KB_DIMS(OUT), KB_RANDN),
                     KB_PARAM("matmul.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("matmul.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           /* GEMM; bias, add, sigmoid (4), mul, tanh (4), gelu, hardtanh (2) */
           .flops = 2.0 * BATCH * OUT * IN + 14.0 * BATCH * OUT)
