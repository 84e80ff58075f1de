/*
 * level2/052_conv2d_activation_batchnorm -- KernelBench L2/52: x = conv(x);
 * x = torch.multiply(torch.tanh(F.softplus(x)), x); x = self.bn(x), with
 * conv = nn.Conv2d(64, 128, 3) and bn = nn.BatchNorm2d(128) (eps 1e-5, momentum 0.1) in training
 * mode, on x (64, 64, 128, 128) fp32 -> (64, 128, 126, 126).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, softplus (beta 1, threshold 20), tanh, the tensor multiply (the conv output
 * stays alive until it has read it; softplus's result is freed after tanh, tanh's after the
 * multiply), then batch_norm with batch statistics: cudnnBatchNormalizationForwardTrainingEx
 * (weight and bias given), as L1/33. Deliberate differences, none touching y (as L1/33): the
 * running statistics are module state (KB_STATE, bound to the submission's buffers); the reference passes none, so cuDNN's
 * running-average update of 2 x 128 floats and num_batches_tracked += 1 are not reproduced.
 * Napkin math: 2 * 64*128*126*126 * 576 = 1.5e11 FLOP, ~0.37 ms at ~400 TFLOP/s TF32 (2.2 ms at
 * 67 TFLOP/s FP32); the conv output is 0.52 GB, written, read and written by the bias add,
 * softplus and tanh, read twice and written by the multiply, read twice and written by the
 * batch norm: ~7.0 GB of traffic, ~1.6 ms at ~4.3 TB/s. Eager: 3.73 ms on an H100
 * (reference/kernelbench-problems.csv), 2.95 ms on the H200 (reference/pytorch-eager-h200.csv).
 * .terms: the conv's 576 products times the 64*126*126 values of each channel's statistics.
 */
#include "kb/ref.h"

enum { BATCH = 64, CIN = 64, COUT = 128, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor sp = kb_softplus(r, KB_NEW, c, 1.0, 20.0);
    kb_tensor t = kb_tanh(r, KB_NEW, sp);
    kb_drop(r, sp);
    kb_tensor m = kb_mul(r, KB_NEW, t, c);
    kb_drop(r, t);
    kb_drop(r, c);
    kb_batch_norm_train(r, kb_arg(r, "y"), m, kb_arg(r, "bn.weight"), kb_arg(r, "bn.bias"), KB_NEW, KB_NEW,
                        /*momentum=*/0.1, /*eps=*/1e-5);
}

KB_PROBLEM(.title = "Conv2d Activation BatchNorm",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv.weight", KB_F32, KB_DIMS(COUT, CIN, K, K), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("conv.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(CIN * K * K)),
                     KB_PARAM("bn.weight", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_PARAM("bn.bias", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("bn.running_mean", KB_F32, KB_DIMS(COUT), KB_ZEROS),
                     KB_STATE("bn.running_var", KB_F32, KB_DIMS(COUT), KB_ONES),
                     KB_STATE("bn.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW),
                                .terms = (int64_t)CIN * K * K * BATCH * OH * OW)),
           /* the convolution, its bias, softplus, tanh, multiply, the batch norm (8) per element */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 12.0 * BATCH * COUT * OH * OW,
           .flags = KB_PROB_CENTERED)
