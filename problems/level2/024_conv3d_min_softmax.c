/*
 * level2/024_conv3d_min_softmax -- KernelBench L2/24: x = torch.softmax(torch.min(conv(x), dim=2)[0],
 * dim=1), with conv = nn.Conv3d(3, 24, 3), on x (128, 3, 24, 32, 32) fp32 -> (128, 24, 30, 30).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, torch.min over the depth (one reduction writing the values and the int64 indices;
 * [0] keeps the values, the indices are freed with the tuple), then the softmax over the channels
 * (dim 1 of (N, C, H, W): PyTorch's spatial softmax, inner size 900): four kernels. Napkin math:
 * 2 * 128*24*22*30*30 * 81 = 9.9e9 FLOP, ~0.16 ms of TF32 at ~60 TFLOP/s; the conv output is
 * 0.23 GiB, written by cuDNN, read and written by the bias add, read by the min: ~1.1 GB of
 * traffic, ~0.25 ms at ~4.3 TB/s. Eager: 0.969 ms on an H100 (reference/kernelbench-problems.csv),
 * 0.97 ms on an H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 24, D = 24, H = 32, W = 32, K = 3 };
enum { OD = D - K + 1, OH = H - K + 1, OW = W - K + 1 }; /* 22, 30, 30 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor idx = KB_EMPTY(r, KB_I64, BATCH, COUT, OH, OW);
    kb_tensor m = kb_min_dim(r, KB_NEW, idx, c, 2, /*keepdim=*/0); /* self.dim */
    kb_drop(r, idx);
    kb_drop(r, c);
    kb_softmax(r, kb_arg(r, "y"), m, 1);
}

KB_PROBLEM(.title = "Conv3d Min Softmax",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K))),
           /* terms: the conv's 81 products, then the softmax's sum over 24 channels */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * K * K * K * COUT)),
           .flags = KB_PROB_CENTERED,
           /* the conv, the bias add and one comparison per element, 5 per element for the softmax */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * K * K * K + 2.0 * BATCH * COUT * OD * OH * OW +
                    5.0 * BATCH * COUT * OH * OW)
