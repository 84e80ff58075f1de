/*
 * level1/041_maxpool1d -- KernelBench L1/41: nn.MaxPool1d(kernel_size=8, stride=1, padding=4,
 * dilation=3, return_indices=False) on x (64, 192, 65536) fp32 -> (64, 192, 65523)
 * (L_out = (65536 + 2*4 - 3*(8-1) - 1) / 1 + 1 = 65523).
 *
 * Eager PyTorch on CUDA: F.max_pool1d -> max_pool1d_with_indices -> max_pool2d_with_indices on
 * the (64, 192, 1, 65536) view with window (1, 8), stride (1, 1), padding (0, 4), dilation (1, 3):
 * max_pool_forward_nchw, one thread per output (805 M threads, 256 per block), each scanning its
 * 8 dilated taps (window clipped to the row, NaN wins) and writing the value and its int64 index.
 * The module drops the 6.44 GB of indices; eager still stores them, so the reference does too
 * (counted scratch, freed after the call; eager's peak memory, 13.2 GB, includes them).
 * Napkin math: 3.22 GB read + 3.22 GB written + 6.44 GB of indices = 12.9 GB, ~3.0 ms at
 * ~4.3 TB/s; 8 loads (7/8 of them L1 hits) plus the index decode per output make it issue-bound:
 * eager takes 10.93 ms on the H200 (reference/pytorch-eager-h200.csv). Max is exact: .terms 0.
 */
#include "kb/ref.h"

enum { N = 64, C = 192, L = 65536, K = 8, S = 1, P = 4, DIL = 3 };
enum { LOUT = (L + 2 * P - DIL * (K - 1) - 1) / S + 1 }; /* 65523 */

static void reference(kb_ref *r) /* return self.maxpool(x) */
{
    kb_max_pool1d(r, kb_arg(r, "y"), kb_arg(r, "x"), K, S, P, DIL, /*ceil_mode=*/0);
}

KB_PROBLEM(.title = "Max Pooling 1D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(N, C, L), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(N, C, LOUT))),
           .flops = 1.0 * K * N * C * LOUT) /* one comparison per tap */
