/*
 * level1/046_avgpool3d -- KernelBench L1/46: nn.AvgPool3d(kernel_size=3, stride=2, padding=1)
 * (count_include_pad=True) on x (16, 32, 128, 128, 256) fp32 (8 GiB, 2.15e9 elements: above
 * 2^31) -> (16, 32, 64, 64, 128) (out = (n + 2 - 3) / 2 + 1 = n / 2).
 *
 * Eager PyTorch: avg_pool3d_cuda_update_output<KW = 3> on the (512, 128, 128, 256) view, blocks
 * of 32 x 8 threads over (out_w, out_h), blockIdx.z over the 512 * 64 = 32768 output frames (one
 * launch), grid (4, 8, 32768); PackedTensorAccessor64 indexing (every address 64-bit). Each
 * thread sums its 3 x 3 x 3 window (clipped to the input) in float and divides by 27 --
 * count_include_pad: the padded taps of the border windows count as zeros.
 * Napkin math: 8.59 GB read + 0.54 GB written = 9.1 GB, ~2.1 ms at ~4.3 TB/s; the 27 stride-2
 * loads with 64-bit address arithmetic per output make it issue/latency-bound: eager takes
 * 8.70 ms on the H200 (reference/pytorch-eager-h200.csv). .terms = 27.
 */
#include "kb/ref.h"

enum { N = 16, C = 32, D = 128, H = 128, W = 256, K = 3, S = 2, P = 1 };
#define POOL_OUT(n) (((n) + 2 * P - K) / S + 1)
enum { OD = POOL_OUT(D), OH = POOL_OUT(H), OW = POOL_OUT(W) }; /* 64, 64, 128 */

static void reference(kb_ref *r) /* return self.avg_pool(x) */
{
    kb_avg_pool3d(r, kb_arg(r, "y"), kb_arg(r, "x"), K, S, P, /*ceil_mode=*/0, /*count_include_pad=*/1,
                  /*divisor_override=None*/ 0);
}

KB_PROBLEM(.title = "Average Pooling 3D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(N, C, D, H, W), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(N, C, OD, OH, OW), .terms = K * K * K)),
           .flops = 1.0 * K * K * K * N * C * OD * OH * OW) /* 26 adds + one division per output */
