/*
 * level2/050_convtranspose3d_scaling_avgpool_biasadd_scaling -- KernelBench L2/50:
 * x = (avg_pool(conv_transpose(x) * self.scale1) + self.bias) * self.scale2, with conv_transpose =
 * nn.ConvTranspose3d(3, 16, 3, stride=2, padding=1), avg_pool = nn.AvgPool3d(2), scale1 and scale2
 * 0-d parameters (torch.tensor(0.5), torch.tensor(1.0)) and bias (16, 1, 1, 1) ~ randn, on
 * x (128, 3, 16, 32, 32) fp32 -> (128, 16, 15, 31, 31).
 *
 * scale1 and scale2 are 0-d CUDA tensors: each multiply broadcasts one as a tensor operand (not a
 * CPU scalar), so they are passed as they are, not through kb_number.
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, the multiply, avg_pool3d, the broadcast add, the multiply: six
 * kernels, each temporary freed when the next op has read it. Napkin math: 2 * 128*3*16 *
 * (46*94*94 input-tap pairs inside the output) = 5.0e9 FLOP, ~0.08 ms of TF32 at ~60 TFLOP/s; the
 * conv output is 0.94 GiB, written by cuDNN, read and written by the bias add and the multiply,
 * read by the pool: ~6.7 GB of traffic, ~1.55 ms at ~4.3 TB/s: memory bound. Eager: 5.71 ms on an
 * H100 (reference/kernelbench-problems.csv), 5.39 ms on an H200 (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 16, D = 16, H = 32, W = 32, K = 3, S = 2, P = 1, POOL = 2 };
enum { CD = (D - 1) * S - 2 * P + K, CH = (H - 1) * S - 2 * P + K, CW = (W - 1) * S - 2 * P + K }; /* 31, 63, 63 */
enum { OD = CD / POOL, OH = CH / POOL, OW = CW / POOL };                                            /* 15, 31, 31 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}));
    kb_tensor a = kb_mul(r, KB_NEW, c, kb_arg(r, "scale1"));
    kb_drop(r, c);
    kb_tensor p = kb_avg_pool3d(r, KB_NEW, a, POOL, /*stride=None*/ 0, 0, /*ceil_mode=*/0, /*count_include_pad=*/1,
                                /*divisor_override=None*/ 0);
    kb_drop(r, a);
    kb_tensor b = kb_add(r, KB_NEW, p, kb_arg(r, "bias"));
    kb_drop(r, p);
    kb_mul(r, kb_arg(r, "y"), b, kb_arg(r, "scale2"));
}

KB_PROBLEM(.title = "ConvTranspose3d Scaling AvgPool BiasAdd Scaling",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("scale1", KB_F32, KB_SCALAR_DIMS, KB_CONST(0.5)),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("scale2", KB_F32, KB_SCALAR_DIMS, KB_CONST(1.0)),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the 24 products that reach a conv output (C_in * 2*2*2 taps), the pool's 8 */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * 8 * POOL * POOL * POOL)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 46, 94, 94),
            * the bias add and the multiply per conv element, one add per pool tap, then the add and
            * the multiply per pooled element */
           .flops = 2.0 * BATCH * CIN * COUT * 46.0 * 94.0 * 94.0 + 2.0 * BATCH * COUT * CD * CH * CW +
                    10.0 * BATCH * COUT * OD * OH * OW)
