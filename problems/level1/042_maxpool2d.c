/*
 * level1/042_maxpool2d -- KernelBench L1/42: nn.MaxPool2d(kernel_size=4, stride=1, padding=1,
 * dilation=1) on x (32, 64, 512, 512) fp32 -> (32, 64, 511, 511).
 *
 * Eager PyTorch: max_pool2d_with_indices, max_pool_forward_nchw with one thread per output
 * (535 M threads, 256 per block, int index arithmetic with 64-bit channel/plane offsets), each
 * scanning its 4 x 4 window and writing the value AND its int64 index; nn.MaxPool2d drops the
 * 4.28 GB of indices, but eager computes and stores them, so the reference does too (counted
 * scratch, freed after the call: eager's peak memory includes them).
 * Napkin math: 2.15 GB read + 2.14 GB written (+ 4.28 GB of indices) = 8.6 GB, ~2 ms of traffic,
 * but 16 loads (mostly L1/L2 hits) and the runtime integer divisions per output make the kernel
 * issue-bound: eager takes 10.98 ms on the H200 (reference/pytorch-eager-h200.csv); the op measured
 * 10.93 ms. Max is exact (no rounding), so .terms is 0.
 */
#include "kb/ref.h"

enum { N = 32, C = 64, H = 512, W = 512, K = 4, S = 1, P = 1, DIL = 1 };
enum { OH = (H + 2 * P - DIL * (K - 1) - 1) / S + 1, OW = (W + 2 * P - DIL * (K - 1) - 1) / S + 1 }; /* 511 */

static void reference(kb_ref *r) /* return self.maxpool(x) */
{
    kb_max_pool2d(r, kb_arg(r, "y"), kb_arg(r, "x"), K, S, P, DIL, /*ceil_mode=*/0);
}

KB_PROBLEM(.title = "Max Pooling 2D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(N, C, H, W), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(N, C, OH, OW))),
           .flops = 1.0 * K * K * N * C * OH * OW) /* one comparison per window element */
