/*
 * level1/034_instancenorm -- KernelBench L1/34: nn.InstanceNorm2d(64) (affine=False, no running
 * statistics) on x (112, 64, 512, 512) fp32 (7 GiB), eps 1e-5.
 *
 * Eager PyTorch: F.instance_norm -> at::instance_norm views x as (1, 112*64, 512, 512) and calls
 * batch_norm(training=True) with weight, bias and running stats undefined. cuDNN needs weight and
 * bias, so this is the NATIVE batch_norm_cuda (kb_instance_norm, ops/norm.cu):
 *   batch_norm_collect_statistics_kernel: 7168 blocks (one per (n, c) plane) of 512 threads, a
 *       scalar-load Welford with one float division per element, then warp/shared combines;
 *   batch_norm_calc_invstd: rsqrt(var + eps) over 7168 values;
 *   batch_norm_transform_input_kernel: 7168 blocks of 512 threads, y = (x - mean) * invstd.
 * save_mean / save_invstd (7168 floats each) are the temporaries native_batch_norm returns.
 * Napkin math: read x twice + write y = 22.5 GB, ~5.2 ms at ~4.3 TB/s; eager takes 8.45 ms on the
 * H200 (reference/pytorch-eager-h200.csv): the statistics pass (scalar loads, a division per element,
 * 7168 blocks in ~14 waves) runs well below bandwidth. The reference keeps that kernel structure.
 */
#include "kb/ref.h"

enum { BATCH = 112, FEATURES = 64, H = 512, W = 512 };

static void reference(kb_ref *r)
{
    kb_instance_norm(r, kb_arg(r, "y"), kb_arg(r, "x"), KB_NEW, KB_NEW, 1e-5);
}

KB_PROBLEM(.title = "InstanceNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, FEATURES, H, W), KB_RAND)),
           /* terms: the statistics of each (n, c) plane sum H*W values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, FEATURES, H, W), .terms = (int64_t)H * W)),
           .flops = 8.0 * BATCH * FEATURES * H * W, /* mean, variance, normalise (CSV's count) */
           .flags = KB_PROB_CENTERED)
