/*
 * level2/031_conv2d_min_add_multiply -- KernelBench L2/31: x = conv(x);
 * x = torch.min(x, torch.tensor(0.5)); x = x + self.bias; x = x * 2.0, with
 * conv = nn.Conv2d(64, 128, 3) and bias (128, 1, 1) ~ randn, on x (128, 64, 128, 128) fp32.
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel; torch.tensor(0.5) is a 0-d CPU tensor (no device work), so torch.min(x, it)
 * is at::minimum with a CPU-scalar operand, which gpu_kernel_with_scalars runs as a unary
 * vectorised kernel with 0.5 in a register: the kernel clamp_max(x, 0.5) runs too, with the same
 * result bit for bit (a NaN x stays NaN in both), so the reference calls kb_clamp_max. Then the
 * broadcast add and the scalar multiply: five kernels, each temporary freed when the next op has
 * read it.
 * Napkin math: 2 * 128*128*126*126 * 576 = 3.0e11 FLOP, ~0.75 ms at ~400 TFLOP/s TF32 (4.5 ms
 * at 67 TFLOP/s FP32); y is 1.0 GB, written by the conv, read and written by the four
 * elementwise kernels: ~9.9 GB of traffic, ~2.3 ms at ~4.3 TB/s. Eager: 5.06 ms on an H100
 * (reference/kernelbench-problems.csv), 4.73 ms on the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 128, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor m = kb_clamp_max(r, KB_NEW, c, 0.5); /* torch.min(x, torch.tensor(constant_value)) */
    kb_drop(r, c);
    kb_tensor a = kb_add(r, KB_NEW, m, kb_arg(r, "bias"));
    kb_drop(r, m);
    kb_muls(r, kb_arg(r, "y"), a, 2.0);
}

KB_PROBLEM(.title = "Conv2d Min Add Multiply",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * K * K)),
           /* the convolution, then one per element for its bias, the min, the add and the multiply */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 4.0 * BATCH * COUT * OH * OW)
