/*
 * level1/035_groupnorm -- KernelBench L1/35: nn.GroupNorm(num_groups=8, num_channels=64) on
 * x (112, 64, 512, 512) fp32 (7 GiB), eps 1e-5, weight = ones, bias = zeros at initialisation.
 *
 * Eager PyTorch: F.group_norm -> native_group_norm (ATen/native/cuda/group_norm_kernel.cu), as
 * kb_group_norm (ops/norm.cu) runs it:
 *   RowwiseMomentsCUDAKernel: 896 blocks (one per (n, group) = 8 channels x 262144 = 2097152
 *       values) of 512 threads, Welford with an int64 count, mean / rstd written [112, 8];
 *   ComputeFusedParamsCUDAKernel: a = rstd * gamma, b = -a * mean + beta, [112, 64] each;
 *   one TensorIterator kernel y = a[n, c] * x + b[n, c] (broadcast operands: the non-vectorised
 *       128-thread, 2-elements-per-thread loop).
 * Napkin math: read x twice + write y = 22.5 GB, ~5.2 ms at ~4.3 TB/s; eager takes 9.26 ms on the
 * H200 (reference/pytorch-eager-h200.csv): 896 moment blocks fill 132 SMs in 1.7 waves (the second
 * wave 70% full) with a float division per element, and the elementwise pass uses scalar loads.
 */
#include "kb/ref.h"

enum { BATCH = 112, FEATURES = 64, GROUPS = 8, H = 512, W = 512 };

static void reference(kb_ref *r)
{
    kb_group_norm(r, kb_arg(r, "y"), kb_arg(r, "x"), GROUPS, kb_arg(r, "gn.weight"), kb_arg(r, "gn.bias"), 1e-5);
}

KB_PROBLEM(.title = "GroupNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, FEATURES, H, W), KB_RAND),
                     KB_PARAM("gn.weight", KB_F32, KB_DIMS(FEATURES), KB_ONES),
                     KB_PARAM("gn.bias", KB_F32, KB_DIMS(FEATURES), KB_ZEROS)),
           /* terms: each group's statistics sum (C / G) * H * W values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, FEATURES, H, W),
                                .terms = (int64_t)(FEATURES / GROUPS) * H * W)),
           .flops = 8.0 * BATCH * FEATURES * H * W, /* mean, variance, normalise, scale, shift */
           .flags = KB_PROB_CENTERED)
