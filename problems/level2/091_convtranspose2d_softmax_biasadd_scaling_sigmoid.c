/*
 * level2/091_convtranspose2d_softmax_biasadd_scaling_sigmoid -- KernelBench L2/91:
 * x = conv_transpose(x); x = torch.softmax(x, dim=1); x = x + self.bias; x = x * 2.0;
 * x = sigmoid(x), with conv_transpose = nn.ConvTranspose2d(64, 128, 4, stride=2, padding=1,
 * output_padding=1) and bias (128, 1, 1) ~ randn, on x (128, 64, 64, 64) fp32
 * -> (128, 128, 129, 129).
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel; softmax over the channels of NCHW,
 * a middle dim with inner size 129*129, is host_softmax's spatial kernel
 * (cunn_SpatialSoftMaxForward: max, sum of exp and the normalised write per (n, h, w) over the
 * 128 channels); then the broadcast add, the scalar multiply and sigmoid: six kernels, each
 * temporary freed when the next op has read it. PyTorch's kaiming init of a transposed weight
 * takes fan_in from weight.size(1) * 4 * 4 = 2048.
 * Napkin math: 2 * 128*64*128 * 255*255 = 1.4e11 FLOP (255 of the 64 * 4 (input, tap) pairs per
 * dim land inside the output), ~0.34 ms at ~400 TFLOP/s TF32 (2.0 ms at 67 TFLOP/s FP32); y is
 * 1.09 GB, written by the conv, read and written by the bias add, read up to three times and
 * written by the softmax, read and written by the add, the multiply and sigmoid: ~14 GB of
 * traffic, ~3.3 ms at ~4.3 TB/s. Eager: 9.28 ms on an H100 (reference/kernelbench-problems.csv),
 * 8.18 ms on the H200 (reference/pytorch-eager-h200.csv). .terms: each conv output sums at most
 * 64 input channels x 2 x 2 taps, and the softmax's denominator 128 of them.
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 128, H = 64, W = 64, K = 4, S = 2, P = 1, OP = 1,
       OH = (H - 1) * S - 2 * P + K + OP, OW = (W - 1) * S - 2 * P + K + OP, /* 129 */
       PAIRS = 255, TAPS = 2 }; /* (input, tap) pairs per dim inside the output; taps reaching an output per dim */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S}, .padding = {P, P}, .output_padding = {OP, OP}));
    kb_tensor sm = kb_softmax(r, KB_NEW, c, 1);
    kb_drop(r, c);
    kb_tensor a = kb_add(r, KB_NEW, sm, kb_arg(r, "bias"));
    kb_drop(r, sm);
    kb_tensor m = kb_muls(r, KB_NEW, a, 2.0);
    kb_drop(r, a);
    kb_sigmoid(r, kb_arg(r, "y"), m);
}

KB_PROBLEM(.title = "ConvTranspose2d Softmax BiasAdd Scaling Sigmoid",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(COUT, 1, 1), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * TAPS * TAPS * COUT)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* the transposed convolution, its bias, the softmax (5), add, multiply, sigmoid per element */
           .flops = 2.0 * BATCH * CIN * COUT * PAIRS * PAIRS + 9.0 * BATCH * COUT * OH * OW)
