/*
 * level2/073_conv2d_batchnorm_scaling -- KernelBench L2/73: x = conv(x); x = self.bn(x);
 * x = x * 2.0, with conv = nn.Conv2d(8, 64, 3) and bn = nn.BatchNorm2d(64) (eps 1e-5,
 * momentum 0.1) in training mode, on x (128, 8, 128, 128) fp32 -> (128, 64, 126, 126).
 *
 * Eager PyTorch: the cuDNN convolution (TF32 allowed by cudnn.allow_tf32) with its bias added by
 * a second kernel, batch_norm with batch statistics (cudnnBatchNormalizationForwardTrainingEx,
 * weight and bias given, as L1/33), then the scalar multiply: each temporary freed when the next
 * op has read it. Deliberate differences, none touching y (as L1/33): the running statistics
 * are module state (KB_STATE, bound to the submission's buffers); the reference passes none, so cuDNN's running-average update
 * of 2 x 64 floats and num_batches_tracked += 1 are not reproduced.
 * Napkin math: 2 * 128*64*126*126 * 72 = 1.9e10 FLOP, ~0.05 ms at ~400 TFLOP/s TF32 (0.28 ms at
 * 67 TFLOP/s FP32); the conv output is 0.52 GB, written, read and written by the bias add, read
 * twice and written by the batch norm, read and written by the multiply: ~4.2 GB of traffic,
 * ~1.0 ms at ~4.3 TB/s: memory-bound. Eager: 2.59 ms on an H100
 * (reference/kernelbench-problems.csv), 2.44 ms on the H200 (reference/pytorch-eager-h200.csv).
 * .terms: the conv's 72 products times the 128*126*126 values of each channel's statistics.
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 8, COUT = 64, H = 128, W = 128, K = 3, OH = H - K + 1, OW = W - K + 1 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv.weight"), kb_arg(r, "conv.bias"), NULL);
    kb_tensor b = kb_batch_norm_train(r, KB_NEW, c, kb_arg(r, "bn.weight"), kb_arg(r, "bn.bias"), KB_NEW, KB_NEW,
                                      /*momentum=*/0.1, /*eps=*/1e-5);
    kb_drop(r, c);
    kb_muls(r, kb_arg(r, "y"), b, 2.0);
}

KB_PROBLEM(.title = "Conv2d BatchNorm Scaling",
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
           /* the convolution, its bias, the batch norm (8), the multiply per element */
           .flops = 2.0 * BATCH * COUT * OH * OW * CIN * K * K + 10.0 * BATCH * COUT * OH * OW,
           .flags = KB_PROB_CENTERED)
