/*
 * level2/079_conv3d_multiply_instancenorm_clamp_multiply_max -- KernelBench L2/79:
 * x = torch.max(torch.clamp(instance_norm(conv(x) * m), -1, 1) * m, dim=1)[0], with
 * conv = nn.Conv3d(3, 16, 3), m = self.multiplier (16, 1, 1, 1) ~ randn and instance_norm =
 * nn.InstanceNorm3d(16) (affine=False, no running stats), on x (128, 3, 16, 32, 32) fp32
 * -> (128, 14, 30, 30).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, the broadcast multiply, F.instance_norm (x viewed as (1, 2048, 14, 30, 30) through
 * the native batch_norm_cuda: statistics per plane, invstd, transform), the clamp, the second
 * multiply, then torch.max over the channels (values and int64 indices in one reduction; [0]
 * keeps the values): eight kernels, each temporary freed when the next op has read it. Napkin
 * math: 2 * 128*16*14*30*30 * 81 = 4.2e9 FLOP, ~0.07 ms of TF32 at ~60 TFLOP/s; the conv output is
 * 0.10 GiB, written by cuDNN, read and written by the bias add and each of four ops (the norm
 * reads it twice), read by the max: ~1.4 GB of traffic, ~0.32 ms at ~4.3 TB/s. Eager: 0.965 ms on
 * an H100 (reference/kernelbench-problems.csv), 0.92 ms on an H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 16, D = 16, H = 32, W = 32, K = 3, OD = D - K + 1, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor m = kb_arg(r, "multiplier");
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor a = kb_mul(r, KB_NEW, c, m);
    kb_drop(r, c);
    kb_tensor n = kb_instance_norm(r, KB_NEW, a, KB_NEW, KB_NEW, 1e-5);
    kb_drop(r, a);
    kb_tensor q = kb_clamp(r, KB_NEW, n, -1.0, 1.0); /* self.clamp_min, self.clamp_max */
    kb_drop(r, n);
    kb_tensor b = kb_mul(r, KB_NEW, q, m);
    kb_drop(r, q);
    kb_max_dim(r, kb_arg(r, "y"), KB_NEW, b, 1, /*keepdim=*/0);
}

KB_PROBLEM(.title = "Conv3d Multiply InstanceNorm Clamp Multiply Max",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("multiplier", KB_F32, KB_DIMS(COUT, 1, 1, 1), KB_RANDN),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K))),
           /* terms: the conv's 81 products, then the instance statistics over 14*30*30 values */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OD, OH, OW), .terms = (int64_t)CIN * K * K * K * OD * OH * OW)),
           .flags = KB_PROB_CENTERED,
           /* the conv, then per element: the bias add, two multiplies, 8 for the norm, the clamp 1,
            * one comparison for the max */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * K * K * K + 13.0 * BATCH * COUT * OD * OH * OW)
