/*
 * level2/010_convtranspose2d_maxpool_hardtanh_mean_tanh -- KernelBench L2/10:
 * x = conv_transpose(x); x = self.maxpool(x); x = self.hardtanh(x);
 * x = torch.mean(x, dim=(2, 3), keepdim=True); x = tanh(x), with
 * conv_transpose = nn.ConvTranspose2d(64, 64, 3, stride=1, padding=1),
 * maxpool = nn.MaxPool2d(kernel_size=2, stride=2) and hardtanh = nn.Hardtanh(-1, 1), on
 * x (128, 64, 256, 256) fp32 -> (128, 64, 1, 1).
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel, max_pool2d_with_indices (the int64
 * indices written, then freed), hardtanh (clamp), one mean reduction over H and W together, then
 * tanh on the 8192 means: six kernels, each temporary freed when the next op has read it.
 * PyTorch's kaiming init of a transposed weight takes fan_in from weight.size(1) * 3 * 3 = 576.
 * Napkin math: 2 * 128*64*64 * 766*766 = 6.2e11 FLOP (766 of the 256 * 3 (input, tap) pairs per
 * dim land inside the output), ~1.5 ms at ~400 TFLOP/s TF32 (9.2 ms at 67 TFLOP/s FP32); the
 * conv output is 2.1 GB, written, read and written by the bias add, read by the pool; the pooled
 * 0.54 GB (+ 1.07 GB of indices) is read and written by hardtanh and read by the mean: ~14 GB of
 * traffic, ~3.3 ms at ~4.3 TB/s. Eager: 9.68 ms on an H100 (reference/kernelbench-problems.csv),
 * 8.44 ms on the H200 (reference/pytorch-eager-h200.csv). .terms: each conv output sums at most
 * 64 input channels x 3 x 3 taps, and the mean sums 128*128 of them (a max adds none).
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 64, H = 256, W = 256, K = 3, S = 1, P = 1,
       OH = (H - 1) * S - 2 * P + K, OW = (W - 1) * S - 2 * P + K, /* 256 */
       PAIRS = 766, TAPS = 3, /* (input, tap) pairs per dim inside the output; taps reaching an output per dim */
       POOL = 2, PH = (OH - POOL) / POOL + 1, PW = (OW - POOL) / POOL + 1 }; /* 128 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"),
                                    KB_CONV_PARAMS(.stride = {S, S}, .padding = {P, P}));
    kb_tensor p = kb_max_pool2d(r, KB_NEW, c, POOL, POOL, /*padding=*/0, /*dilation=*/1, /*ceil_mode=*/0);
    kb_drop(r, c);
    kb_tensor h = kb_hardtanh(r, KB_NEW, p, -1.0, 1.0);
    kb_drop(r, p);
    kb_tensor m = kb_mean_dims(r, KB_NEW, h, (const int[]){2, 3}, 2, /*keepdim=*/1);
    kb_drop(r, h);
    kb_tanh(r, kb_arg(r, "y"), m);
}

KB_PROBLEM(.title = "ConvTranspose2d MaxPool Hardtanh Mean Tanh",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, 1, 1), .terms = (int64_t)CIN * TAPS * TAPS * PH * PW)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* the transposed convolution, its bias, the pool's comparisons, hardtanh and the mean's
            * add per pooled element, tanh per mean */
           .flops = 2.0 * BATCH * CIN * COUT * PAIRS * PAIRS + 1.0 * BATCH * COUT * OH * OW +
                    (POOL * POOL + 2.0) * BATCH * COUT * PH * PW + 1.0 * BATCH * COUT)
