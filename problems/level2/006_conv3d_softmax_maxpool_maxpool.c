/*
 * level2/006_conv3d_softmax_maxpool_maxpool -- KernelBench L2/6: x = pool2(pool1(softmax(conv(x),
 * dim=1))), with conv = nn.Conv3d(3, 16, 3) and pool1 = pool2 = nn.MaxPool3d(2), on x
 * (128, 3, 16, 32, 32) fp32 -> (128, 16, 3, 7, 7).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, the softmax over the channels (dim 1 of NCDHW: the inner size is D*H*W, PyTorch's
 * spatial softmax kernel), then two max_pool3d_with_indices (their int64 indices computed and
 * dropped): five kernels, each temporary freed when the next op has read it. Napkin math:
 * 2 * 128*16*14*30*30 * 81 = 4.2e9 FLOP, ~0.07 ms of TF32 at ~60 TFLOP/s; the conv output is
 * 0.10 GiB, written by cuDNN, read and written by the bias add and the softmax, read by the first
 * pool: ~0.7 GB of traffic, ~0.16 ms at ~4.3 TB/s. Eager: 0.864 ms on an H100
 * (reference/kernelbench-problems.csv), 0.95 ms on an H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, COUT = 16, D = 16, H = 32, W = 32, K = 3, POOL = 2 };
enum { CD = D - K + 1, CH = H - K + 1, CW = W - K + 1 };                  /* 14, 30, 30 */
enum { PD = CD / POOL, PH = CH / POOL, PW = CW / POOL };                  /* 7, 15, 15 */
enum { OD = PD / POOL, OH = PH / POOL, OW = PW / POOL };                  /* 3, 7, 7 */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor s = kb_softmax(r, KB_NEW, c, 1);
    kb_drop(r, c);
    kb_tensor p = kb_max_pool3d(r, KB_NEW, s, POOL, /*stride=None*/ 0, 0, 1, /*ceil_mode=*/0);
    kb_drop(r, s);
    kb_max_pool3d(r, kb_arg(r, "y"), p, POOL, 0, 0, 1, 0);
}

KB_PROBLEM(.title = "Conv3d Softmax MaxPool MaxPool",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K))),
           /* terms: the conv's 81 products, then the softmax's sum over 16 channels */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * K * K * K * COUT)),
           .flags = KB_PROB_CENTERED,
           /* the conv, the bias add, 5 per element for the softmax, one comparison per pool tap */
           .flops = 2.0 * BATCH * COUT * CD * CH * CW * CIN * K * K * K + 6.0 * BATCH * COUT * CD * CH * CW +
                    8.0 * BATCH * COUT * (PD * PH * PW + OD * OH * OW))
