/*
 * level1/044_avgpool1d -- KernelBench L1/44: nn.AvgPool1d(kernel_size=8, stride=1, padding=4)
 * (ceil_mode=False, count_include_pad=True) on x (64, 128, 65536) fp32 -> (64, 128, 65537)
 * (L_out = (65536 + 2*4 - 8) / 1 + 1 = 65537).
 *
 * Eager PyTorch: avg_pool1d -> avg_pool2d on the (64, 128, 1, 65536) view with window (1, 8),
 * stride (1, 1), padding (0, 4): avg_pool2d_out_cuda_frame, one thread per output (537 M
 * threads, 1024 per block), a float sum of the window clipped to the row, divided by the window
 * clipped to the padded row (count_include_pad: 8 everywhere here, so the 4 edge outputs of a
 * row average over zeros too).
 * Napkin math: 2.15 GB read + 2.15 GB written = 4.3 GB, ~1.0 ms at ~4.3 TB/s, but the 64-bit
 * index decode and 8 loads per output make the kernel issue-bound: eager takes 5.55 ms on the
 * H200 (reference/pytorch-eager-h200.csv). .terms = 8 (a float sum of 8 terms per output).
 */
#include "kb/ref.h"

enum { N = 64, C = 128, L = 65536, K = 8, S = 1, P = 4 };
enum { LOUT = (L + 2 * P - K) / S + 1 }; /* 65537 */

static void reference(kb_ref *r) /* return self.avg_pool(x) */
{
    kb_avg_pool1d(r, kb_arg(r, "y"), kb_arg(r, "x"), K, S, P, /*ceil_mode=*/0, /*count_include_pad=*/1);
}

KB_PROBLEM(.title = "Average Pooling 1D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(N, C, L), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(N, C, LOUT), .terms = K)),
           .flops = 1.0 * K * N * C * LOUT) /* K adds (K-1) + one division per output */
