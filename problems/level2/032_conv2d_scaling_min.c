/*
 * level2/032_conv2d_scaling_min -- KernelBench L2/32: x = conv(x); x = x * 2.0;
 * x = torch.min(x, dim=1, keepdim=True)[0], with conv = nn.Conv2d(64, 128, 3), on
 * x (64, 64, 256, 256) fp32 -> (64, 1, 254, 254).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, the scalar multiply, then torch.min(x, dim): one reduction over the 128
 * channels that writes the values and int64 indices ([0] keeps the values): four kernels, each
 * temporary freed when the next op has read it. Napkin math: 2 * 64*128*254*254 * 576 = 6.1e11
 * FLOP, ~1.5 ms at ~400 TFLOP/s TF32 (9.1 ms at 67 TFLOP/s FP32); the conv output is 2.1 GB,
 * written, read and written by the bias add and the multiply, read by the min: ~13.8 GB of
 * traffic, ~3.2 ms at ~4.3 TB/s. Eager: 7.84 ms on an H100 (reference/kernelbench-problems.csv),
 * 7.16 ms on the H200 (reference/pytorch-eager-h200.csv). .terms: the conv's 576 products (a
 * min adds none).
 */
#include "kb/ref.h"

enum { BATCH = 64, CIN = 64, COUT = 128, H = 256, W = 256, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor s = kb_muls(r, KB_NEW, c, 2.0);
    kb_drop(r, c);
    kb_tensor idx = KB_EMPTY(r, KB_I64, BATCH, 1, OH, OW); /* torch.min's indices, dropped with the tuple */
    kb_min_dim(r, kb_arg(r, "y"), idx, s, 1, 1);
    kb_drop(r, idx);
}

KB_PROBLEM(.title = "Conv2d Scaling Min",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, 1, OH, OW), .terms = CIN * K * K)),
           /* the convolution, then one per conv output for its bias, the multiply and the min */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 3.0 * BATCH * COUT * OH * OW)
