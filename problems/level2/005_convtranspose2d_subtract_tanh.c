/*
 * level2/005_convtranspose2d_subtract_tanh -- KernelBench L2/5: x = conv_transpose(x);
 * x = x - self.bias; x = tanh(x), with conv_transpose = nn.ConvTranspose2d(64, 64, 4, stride=2,
 * padding=1, output_padding=1) and bias (64, 1, 1) ~ randn, on x (32, 64, 256, 256) fp32
 * -> (32, 64, 513, 513).
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel, then the broadcast subtraction and
 * tanh: four kernels, each temporary freed when the next op has read it. PyTorch's kaiming init
 * of a transposed weight takes fan_in from weight.size(1) * 4 * 4 = 1024.
 * Napkin math: 2 * 32*64*64 * 1023*1023 = 2.7e11 FLOP (1023 of the 256 * 4 (input, tap) pairs
 * per dim land inside the output), ~0.69 ms at ~400 TFLOP/s TF32 (4.1 ms at 67 TFLOP/s FP32);
 * y is 2.16 GB, written by the conv, read and written by the bias add, the subtraction and tanh:
 * ~15.6 GB of traffic, ~3.6 ms at ~4.3 TB/s. Eager: 9.22 ms on an H100
 * (reference/kernelbench-problems.csv), 7.76 ms on the H200 (reference/pytorch-eager-h200.csv).
 * .terms: each output sums at most 64 input channels x 2 x 2 taps.
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 32, CIN = 64, COUT = 64, H = 256, W = 256, K = 4, S = 2, P = 1, OP = 1,
       OH = (H - 1) * S - 2 * P + K + OP, OW = (W - 1) * S - 2 * P + K + OP, /* 513 */
       PAIRS = 1023, TAPS = 2 }; /* (input, tap) pairs per dim inside the output; taps reaching an output per dim */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S}, .padding = {P, P}, .output_padding = {OP, OP}));
    kb_tensor s = kb_sub(r, KB_NEW, c, kb_arg(r, "bias"));
    kb_drop(r, c);
    kb_tanh(r, kb_arg(r, "y"), s);
}

KB_PROBLEM(.title = "ConvTranspose2d Subtract Tanh",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * TAPS * TAPS)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* the transposed convolution, then one per element for its bias, the subtraction and tanh */
           .flops = 2.0 * BATCH * CIN * COUT * PAIRS * PAIRS + 3.0 * BATCH * COUT * OH * OW)
