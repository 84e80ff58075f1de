/*
 * level1/045_avgpool2d -- KernelBench L1/45: nn.AvgPool2d(kernel_size=11) (stride = kernel,
 * padding 0, count_include_pad=True) on x (16, 64, 2048, 2048) fp32 (16 GiB, 4.29e9 elements:
 * above 2^31) -> (16, 64, 186, 186) (out = (2048 - 11) / 11 + 1 = 186; the last 2 rows and
 * columns are never read).
 *
 * Eager PyTorch: avg_pool2d_out_cuda_frame, one thread per output (35.4 M threads, 1024 per
 * block). The output index is int (35.4 M < 2^31: PyTorch only refuses outputs >= 2^31), while
 * the channel count and the extents are int64, so the plane offset (n*C + c) * H * W and h * W
 * are 64-bit: the > 2^31-element input needs no other kernel. Each thread sums its 11 x 11
 * window in float, row by row, and divides by 121.
 * Napkin math: 17.1 GB read (121 loads per output, each input element once) + 0.14 GB written
 * = 17.3 GB, ~4.0 ms at ~4.3 TB/s: bandwidth-bound; eager takes 4.13 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms = 121.
 */
#include "kb/ref.h"

enum { N = 16, C = 64, H = 2048, W = 2048, K = 11 };
enum { OH = (H - K) / K + 1, OW = (W - K) / K + 1 }; /* 186 */

static void reference(kb_ref *r) /* return self.avg_pool(x) */
{
    kb_avg_pool2d(r, kb_arg(r, "y"), kb_arg(r, "x"), K, /*stride=None*/ 0, /*padding=*/0, /*ceil_mode=*/0,
                  /*count_include_pad=*/1, /*divisor_override=None*/ 0);
}

KB_PROBLEM(.title = "Average Pooling 2D",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(N, C, H, W), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(N, C, OH, OW), .terms = K * K)),
           .flops = 1.0 * K * K * N * C * OH * OW) /* 120 adds + one division per output */
