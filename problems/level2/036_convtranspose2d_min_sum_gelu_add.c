/*
 * level2/036_convtranspose2d_min_sum_gelu_add -- KernelBench L2/36: x = conv_transpose(x);
 * x = torch.min(x, dim=1, keepdim=True)[0]; x = torch.sum(x, dim=2, keepdim=True); x = gelu(x);
 * x = x + self.bias, with conv_transpose = nn.ConvTranspose2d(64, 128, 3, 2, 1, 1) (stride 2,
 * padding 1, output_padding 1) and bias (1, 1, 1) ~ randn, on x (16, 64, 128, 128) fp32
 * -> (16, 1, 1, 256): the min over the channels, then the sum over the height.
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel; torch.min(x, dim) is one reduction
 * over the 128 channels writing the values and int64 indices (the tuple's indices freed at once,
 * [0] keeps the values); the sum over dim 2, F.gelu (erf), then the add of the one-element
 * bias, a stride-0 broadcast: six kernels, each temporary freed when the next op has read it.
 * PyTorch's kaiming init of a transposed weight takes fan_in from weight.size(1) * 3 * 3 = 1152.
 * Napkin math: 2 * 16*64*128 * 383*383 = 3.8e10 FLOP (383 of the 128 * 3 (input, tap) pairs per
 * dim land inside the output), ~0.10 ms at ~400 TFLOP/s TF32 (0.57 ms at 67 TFLOP/s FP32); the
 * conv output is 0.54 GB, written, read and written by the bias add, read by the min; the
 * (16, 1, 256, 256) values are 4 MB: ~2.2 GB of traffic, ~0.5 ms at ~4.3 TB/s. Eager: 1.46 ms
 * on an H100 (reference/kernelbench-problems.csv), 1.25 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: each conv output sums at most 64 input channels
 * x 2 x 2 taps, and the sum adds 256 of the minima (a min adds none).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 64, COUT = 128, H = 128, W = 128, K = 3, S = 2, P = 1, OP = 1,
       OH = (H - 1) * S - 2 * P + K + OP, OW = (W - 1) * S - 2 * P + K + OP, /* 256 */
       PAIRS = 383, TAPS = 2 }; /* (input, tap) pairs per dim inside the output; taps reaching an output per dim */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S}, .padding = {P, P}, .output_padding = {OP, OP}));
    kb_tensor idx = KB_EMPTY(r, KB_I64, BATCH, 1, OH, OW); /* torch.min's indices, dropped with the tuple */
    kb_tensor m = kb_min_dim(r, KB_NEW, idx, c, 1, 1);
    kb_drop(r, idx);
    kb_drop(r, c);
    kb_tensor s = kb_sum(r, KB_NEW, m, 2, 1);
    kb_drop(r, m);
    kb_tensor g = kb_gelu(r, KB_NEW, s);
    kb_drop(r, s);
    kb_add(r, kb_arg(r, "y"), g, kb_arg(r, "bias"));
}

KB_PROBLEM(.title = "ConvTranspose2d Min Sum GELU Add",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(1, 1, 1), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1, 1, OW), .terms = (int64_t)CIN * TAPS * TAPS * OH)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* the transposed convolution, its bias and the min's comparison per conv output, the
            * sum's add per minimum, gelu and the add per output */
           .flops = 2.0 * BATCH * CIN * COUT * PAIRS * PAIRS + 2.0 * BATCH * COUT * OH * OW + 1.0 * BATCH * OH * OW +
                    2.0 * BATCH * OW)
