/*
 * level1/036_rmsnorm -- KernelBench L1/36: x / torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True)
 * + eps) on x (112, 64, 512, 512) fp32 (7 GiB), eps 1e-5 (a plain forward, no nn.RMSNorm).
 *
 * Eager PyTorch: five kernels, one per op, with eager's temporaries:
 *   x ** 2            pow_tensor_scalar -> x * x, a 7 GiB temporary (freed once mean returns);
 *   mean(dim=1)       reduce_kernel over the 64 channels (stride 262144: a strided reduction),
 *                     a (112, 1, 512, 512) result of 112 MiB;
 *   + eps, sqrt       two elementwise kernels over the 112 MiB tensor;
 *   x / rms           the broadcast division, writing the 7 GiB output.
 * Peak: x ** 2 and the mean live together, 7.1 GiB beyond the resident input, as eager's
 * (fp32_peak_bytes - resident_bytes in reference/pytorch-eager-h200.csv); the output comes after.
 * Napkin math: pow 15 GB, mean 7.6 GB, division 15.1 GB (+ 0.5 GB small ops): ~38 GB, ~9 ms at
 * ~4.3 TB/s; eager takes 11.59 ms on the H200.
 */
#include "kb/ref.h"

enum { BATCH = 112, FEATURES = 64, H = 512, W = 512 };
static const double EPS = 1e-5;

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor sq = kb_pows(r, KB_NEW, x, 2.0);     /* x ** 2 */
    kb_tensor ms = kb_mean(r, KB_NEW, sq, 1, 1);   /* torch.mean(..., dim=1, keepdim=True) */
    kb_drop(r, sq);
    kb_tensor mse = kb_adds(r, KB_NEW, ms, EPS);   /* + self.eps */
    kb_drop(r, ms);
    kb_tensor rms = kb_sqrt(r, KB_NEW, mse);       /* torch.sqrt */
    kb_drop(r, mse);
    kb_div(r, kb_arg(r, "y"), x, rms);             /* x / rms */
}

KB_PROBLEM(.title = "RMSNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, FEATURES, H, W), KB_RAND)),
           /* terms: the mean sums 64 squares per output element */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, FEATURES, H, W), .terms = FEATURES)),
           .flops = 3.0 * BATCH * FEATURES * H * W) /* square, sum, divide per element */
