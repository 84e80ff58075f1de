/*
 * level2/034_convtranspose3d_layernorm_gelu_scaling -- KernelBench L2/34:
 * x = F.gelu(layer_norm(conv_transpose(x))) * 1.0, with conv_transpose = nn.ConvTranspose3d(32, 64,
 * 4, stride=2, padding=1) and layer_norm = nn.LayerNorm(64, eps=1e-5), on x (32, 32, 16, 32, 32)
 * fp32 -> (32, 64, 32, 64, 64).
 *
 * LayerNorm(64) normalises the LAST axis, W = 64 (which only coincides with C = 64), as the module
 * does. The multiply by scaling_factor = 1.0 changes no value but is still a kernel in eager,
 * and so here.
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, native_layer_norm (one block per 64-element row), gelu (erf) and
 * the multiply by the Python float: five kernels, each temporary freed when the next op has read
 * it. Napkin math: 2 * 32*32*64 * (62*126*126 input-tap pairs inside the output) = 1.3e11 FLOP,
 * ~2.2 ms of TF32 at ~60 TFLOP/s; y is 1 GiB, written by the conv, read and written by the bias
 * add, the LayerNorm, gelu and the multiply: ~9.8 GB of traffic, ~2.3 ms at ~4.3 TB/s. Eager:
 * 10.0 ms on an H100 (reference/kernelbench-problems.csv), 9.49 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 32, CIN = 32, COUT = 64, D = 16, H = 32, W = 32, K = 4, S = 2, P = 1 };
enum { OD = (D - 1) * S - 2 * P + K, OH = (H - 1) * S - 2 * P + K, OW = (W - 1) * S - 2 * P + K }; /* 32, 64, 64 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S, S}, .padding = {P, P, P}));
    kb_tensor n = kb_layer_norm(r, KB_NEW, c, 1, kb_arg(r, "layer_norm.weight"), kb_arg(r, "layer_norm.bias"), 1e-5);
    kb_drop(r, c);
    kb_tensor g = kb_gelu(r, KB_NEW, n);
    kb_drop(r, n);
    kb_muls(r, kb_arg(r, "y"), g, 1.0); /* self.scaling_factor */
}

KB_PROBLEM(.title = "ConvTranspose3d LayerNorm GELU Scaling",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("layer_norm.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("layer_norm.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS)),
           /* terms: the 256 products that reach a conv output (C_in * 2*2*2 taps), the row
            * statistics over 64 values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * 8 * OW)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 62, 126, 126),
            * then per element: the bias add, 8 for the LayerNorm, gelu, the multiply */
           .flops = 2.0 * BATCH * CIN * COUT * 62.0 * 126.0 * 126.0 + 11.0 * BATCH * COUT * OD * OH * OW)
