/*
 * level2/025_conv2d_min_tanh_tanh -- KernelBench L2/25: x = conv(x);
 * x = torch.min(x, dim=1, keepdim=True)[0]; x = tanh(tanh(x)), with conv = nn.Conv2d(16, 64, 3),
 * on x (128, 16, 256, 256) fp32 -> (128, 1, 254, 254).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel; torch.min(x, dim) is one reduction over the 64 channels that writes the values
 * and int64 indices (the tuple's indices are freed at once, [0] keeps the values), then two tanh
 * kernels: five kernels, each temporary freed when the next op has read it. Napkin math:
 * 2 * 128*64*254*254 * 144 = 1.5e11 FLOP, ~0.38 ms at ~400 TFLOP/s TF32 (2.3 ms at 67 TFLOP/s
 * FP32); the conv output is 2.1 GB, written, read and written by the bias add, read by the min;
 * the (128, 1, 254, 254) values are 33 MB: ~9.2 GB of traffic, ~2.1 ms at ~4.3 TB/s. Eager:
 * 6.48 ms on an H100 (reference/kernelbench-problems.csv), 5.69 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: the conv's 144 products (a min adds none).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 16, COUT = 64, H = 256, W = 256, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor idx = KB_EMPTY(r, KB_I64, BATCH, 1, OH, OW); /* torch.min's indices, dropped with the tuple */
    kb_tensor m = kb_min_dim(r, KB_NEW, idx, c, 1, 1);
    kb_drop(r, idx);
    kb_drop(r, c);
    kb_tensor t = kb_tanh(r, KB_NEW, m);
    kb_drop(r, m);
    kb_tanh(r, kb_arg(r, "y"), t);
}

KB_PROBLEM(.title = "Conv2d Min Tanh Tanh",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1, OH, OW), .terms = CIN * K * K)),
           /* the convolution, its bias, one comparison per conv output, then the two tanh */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 2.0 * BATCH * COUT * OH * OW + 2.0 * BATCH * OH * OW)
