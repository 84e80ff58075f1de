/*
 * level2/047_conv3d_mish_tanh -- KernelBench L2/47: x = torch.tanh(F.mish(conv(x))), with
 * conv = nn.Conv3d(32, 64, 3), on x (16, 32, 32, 64, 64) fp32 -> (16, 64, 30, 62, 62).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by a
 * second kernel, then mish and tanh: four kernels, each temporary freed when the next op has read
 * it. Napkin math: 2 * 16*64*30*62*62 * 864 = 2.0e11 FLOP, ~3.4 ms of TF32 at ~60 TFLOP/s; y is
 * 0.44 GiB, written by the conv, read and written by the bias add, mish and tanh: ~3.6 GB of
 * traffic, ~0.83 ms at ~4.3 TB/s. Eager: 2.56 ms on an H100 (reference/kernelbench-problems.csv),
 * 2.38 ms on an H200 (reference/pytorch-eager-h200.csv), so cuDNN runs this convolution faster
 * than the ~60 TFLOP/s assumed.
 */
#include "kb/ref.h"

enum { BATCH = 16, CIN = 32, COUT = 64, D = 32, H = 64, W = 64, K = 3, OD = D - K + 1, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor m = kb_mish(r, KB_NEW, c);
    kb_drop(r, c);
    kb_tanh(r, kb_arg(r, "y"), m);
}

KB_PROBLEM(.title = "Conv3d Mish Tanh",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, D, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K, K), KB_KAIMING(CIN * K * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OD, OH, OW), .terms = CIN * K * K * K)),
           /* the conv, then per element: the bias add 1, mish ~8 (exp, log1p, tanh, multiply), tanh 4 */
           .flops = 2.0 * BATCH * COUT * OD * OH * OW * CIN * K * K * K + 13.0 * BATCH * COUT * OD * OH * OW)
