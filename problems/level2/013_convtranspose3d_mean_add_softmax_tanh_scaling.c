/*
 * level2/013_convtranspose3d_mean_add_softmax_tanh_scaling -- KernelBench L2/13:
 * x = torch.tanh(torch.softmax(conv_transpose(x).mean(dim=2, keepdim=True) + self.bias, dim=1)) * 2.0,
 * with conv_transpose = nn.ConvTranspose3d(16, 64, 3, stride=1, padding=1) and bias (1, 64, 1, 1, 1)
 * ~ randn, on x (16, 16, 32, 128, 128) fp32 -> (16, 64, 1, 128, 128).
 *
 * Eager PyTorch: the cuDNN backward-data convolution (TF32 allowed by cudnn.allow_tf32) with its
 * bias added by a second kernel, the mean over the depth (one reduction kernel), the broadcast
 * add, the softmax over the channels (dim 1 of NCDHW, inner size 128*128: PyTorch's spatial
 * softmax), tanh and the multiply by the Python float: seven kernels, each temporary freed when
 * the next op has read it. Napkin math: 2 * 16*16*64 * (94*382*382 input-tap pairs inside the
 * output) = 4.5e11 FLOP, ~7.5 ms of TF32 at ~60 TFLOP/s; the conv output is 2 GiB, written by
 * cuDNN, read and written by the bias add, read by the mean: ~9.7 GB of traffic, ~2.3 ms at
 * ~4.3 TB/s. Eager: 9.89 ms on an H100 (reference/kernelbench-problems.csv), 8.49 ms on an H200
 * (reference/pytorch-eager-h200.csv).
 * Flagged nondeterministic: cuDNN's backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 16, COUT = 64, D = 32, H = 128, W = 128, K = 3, P = 1 }; /* stride 1: the conv keeps D, H, W */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {1, 1, 1}, .padding = {P, P, P}));
    kb_tensor m = kb_mean(r, KB_NEW, c, 2, /*keepdim=*/1);
    kb_drop(r, c);
    kb_tensor b = kb_add(r, KB_NEW, m, kb_arg(r, "bias"));
    kb_drop(r, m);
    kb_tensor s = kb_softmax(r, KB_NEW, b, 1);
    kb_drop(r, b);
    kb_tensor t = kb_tanh(r, KB_NEW, s);
    kb_drop(r, s);
    kb_muls(r, kb_arg(r, "y"), t, 2.0); /* self.scaling_factor */
}

KB_PROBLEM(.title = "ConvTranspose3d Mean Add Softmax Tanh Scaling",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("bias", KB_F32, KB_DIMS(1, COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K, K), KB_KAIMING(COUT * K * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K * K))),
           /* terms: the conv's 432 products (C_in * 3*3*3 taps), the mean over 32, the softmax's
            * sum over 64 channels */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, 1, H, W), .terms = CIN * K * K * K * D * COUT)),
           .flags = KB_PROB_NONDETERMINISTIC | KB_PROB_CENTERED,
           /* one multiply-add per (input position, tap) pair inside the output (per dim 94, 382, 382),
            * the bias add and one add per conv element for the mean, then per mean element: the
            * add, 5 for the softmax, tanh 4, the multiply */
           .flops = 2.0 * BATCH * CIN * COUT * 94.0 * 382.0 * 382.0 + 2.0 * BATCH * COUT * D * H * W +
                    11.0 * BATCH * COUT * H * W)
