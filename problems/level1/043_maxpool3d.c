/*
 * level1/043_maxpool3d -- KernelBench L1/43: nn.MaxPool3d(kernel_size=3, stride=2, padding=1,
 * dilation=3) on x (16, 32, 128, 128, 128) fp32 (4 GiB) -> (16, 32, 62, 62, 62)
 * (out = (128 + 2*1 - 3*(3-1) - 1) / 2 + 1 = 62).
 *
 * Eager PyTorch: max_pool3d_with_indices_out_cuda, max_pool3d_with_indices_single_out_frame with
 * blocks of 32 x 8 threads over (out_w, out_h) and blockIdx.z over the 16*32*62 = 31744 output
 * frames (one launch: < 65535), grid (2, 8, 31744), 1 of 32 columns idle in the second x-block;
 * each thread scans 27 dilated taps (NaN wins) and writes the value and its int64 index. The
 * module drops the 0.98 GB of indices; eager stores them, so the reference does too (counted
 * scratch, freed after the call).
 * Napkin math: 4.29 GB read + 0.49 GB written + 0.98 GB of indices = 5.8 GB, ~1.35 ms at
 * ~4.3 TB/s; the stride-2 taps use half of every 32-byte sector and the 27 scattered loads per
 * thread are latency-bound: eager takes 4.01 ms on the H200 (reference/pytorch-eager-h200.csv).
 * Max is exact: .terms 0.
 */
#include "kb/ref.h"

enum { N = 16, C = 32, D1 = 128, D2 = 128, D3 = 128, K = 3, S = 2, P = 1, DIL = 3 };
#define POOL_OUT(n) (((n) + 2 * P - DIL * (K - 1) - 1) / S + 1)
enum { O1 = POOL_OUT(D1), O2 = POOL_OUT(D2), O3 = POOL_OUT(D3) }; /* 62 each */

static void reference(kb_ref *r) /* return self.maxpool(x) */
{
    kb_max_pool3d(r, kb_arg(r, "y"), kb_arg(r, "x"), K, S, P, DIL, /*ceil_mode=*/0);
}

KB_PROBLEM(.title = "Max Pooling 3D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(N, C, D1, D2, D3), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(N, C, O1, O2, O3))),
           .flops = 1.0 * K * K * K * N * C * O1 * O2 * O3) /* one comparison per tap */
