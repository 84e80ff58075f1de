/*
 * level2/016_convtranspose2d_mish_add_hardtanh_scaling -- KernelBench L2/16:
 * x = mish(conv_transpose(x)); x = x + 0.5; x = hardtanh(x, -1, 1); x = x * 2, with
 * conv_transpose = nn.ConvTranspose2d(64, 64, 3, 2, 1, 1) (stride 2, padding 1, output_padding
 * 1), on x (128, 64, 128, 128) fp32 -> (128, 64, 256, 256).
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel, then F.mish, the scalar add,
 * F.hardtanh (at::hardtanh runs clamp) and the multiply by the Python int 2: six kernels, each
 * temporary freed when the next op has read it. PyTorch's kaiming init of a transposed weight
 * takes fan_in from weight.size(1) * 3 * 3 = 576.
 * Napkin math: 2 * 128*64*64 * 383*383 = 1.5e11 FLOP (383 of the 128 * 3 (input, tap) pairs per
 * dim land inside the output), ~0.38 ms at ~400 TFLOP/s TF32 (2.3 ms at 67 TFLOP/s FP32); y is
 * 2.1 GB, written by the conv, read and written by the bias add and the four elementwise
 * kernels: ~24 GB of traffic, ~5.6 ms at ~4.3 TB/s: memory-bound. Eager: 10.9 ms on an H100
 * (reference/kernelbench-problems.csv), 8.47 ms on the H200 (reference/pytorch-eager-h200.csv).
 * .terms: each output sums at most 64 input channels x 2 x 2 taps.
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 64, H = 128, W = 128, K = 3, S = 2, P = 1, OP = 1,
       OH = (H - 1) * S - 2 * P + K + OP, OW = (W - 1) * S - 2 * P + K + OP, /* 256 */
       PAIRS = 383, TAPS = 2 }; /* (input, tap) pairs per dim inside the output; taps reaching an output per dim */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S}, .padding = {P, P}, .output_padding = {OP, OP}));
    kb_tensor m = kb_mish(r, KB_NEW, c);
    kb_drop(r, c);
    kb_tensor a = kb_adds(r, KB_NEW, m, 0.5);
    kb_drop(r, m);
    kb_tensor h = kb_hardtanh(r, KB_NEW, a, -1.0, 1.0);
    kb_drop(r, a);
    kb_muls(r, kb_arg(r, "y"), h, 2.0);
}

KB_PROBLEM(.title = "ConvTranspose2d Mish Add Hardtanh Scaling",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * TAPS * TAPS)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* the transposed convolution, then one per element for its bias, mish, add, hardtanh, multiply */
           .flops = 2.0 * BATCH * CIN * COUT * PAIRS * PAIRS + 5.0 * BATCH * COUT * OH * OW)
