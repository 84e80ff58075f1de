/*
 * level2/057_conv2d_relu_hardswish -- KernelBench L2/57: x = relu(conv(x));
 * x = x * torch.clamp((x + 3) / 6, 0, 1), with conv = nn.Conv2d(8, 64, 3), on
 * x (128, 8, 128, 128) fp32 -> (128, 64, 126, 126).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, then relu and the hand-written hardswish as eager runs it, one kernel per op:
 * x + 3, / 6 (a multiply by 1/6: div_true_kernel_cuda's CPU-scalar case), clamp(0, 1) and the
 * tensor multiply: seven kernels. The relu result x stays alive until the multiply has read it;
 * each of (x + 3), (x + 3) / 6 and the clamp is freed when the next op has read it.
 * Napkin math: 2 * 128*64*126*126 * 72 = 1.9e10 FLOP, ~0.05 ms at ~400 TFLOP/s TF32 (0.28 ms at
 * 67 TFLOP/s FP32); y is 0.52 GB, written by the conv, read and written by the bias add, relu,
 * add, divide and clamp, read twice by the multiply: ~7.4 GB of traffic, ~1.7 ms at ~4.3 TB/s:
 * memory-bound. Eager: 2.99 ms on an H100 (reference/kernelbench-problems.csv), 2.49 ms on the
 * H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor x = kb_relu(r, KB_NEW, c);
    kb_drop(r, c);
    kb_tensor a = kb_adds(r, KB_NEW, x, 3.0);
    kb_tensor d = kb_divs(r, KB_NEW, a, 6.0);
    kb_drop(r, a);
    kb_tensor cl = kb_clamp(r, KB_NEW, d, 0.0, 1.0);
    kb_drop(r, d);
    kb_mul(r, kb_arg(r, "y"), x, cl);
}

KB_PROBLEM(.title = "Conv2d ReLU HardSwish",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * K * K)),
           /* the convolution, then one per element for its bias, relu, add, divide, clamp, multiply */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 6.0 * BATCH * COUT * OH * OW)
