/*
 * level3/006_googlenet_inception_module -- KernelBench L3/6: GoogLeNet's inception module (480
 * channels in; 1x1 192; 1x1 96 -> 3x3 208; 1x1 16 -> 5x5 48; max pool 3/1/1 -> 1x1 64) on
 * x (10, 480, 224, 224) fp32 -> (10, 512, 224, 224). Six convolutions with bias, no activation.
 *
 * Eager PyTorch, in order: branch1x1 (cudnn_convolution, TF32 by cudnn.allow_tf32, then its bias
 * add_ as a second kernel); branch3x3's 1x1 and 3x3 (each conv + bias add_; the 1x1's output freed
 * by the Sequential once the 3x3 returns); branch5x5 the same; branch_pool's
 * max_pool2d_with_indices (the int64 indices, 1.93 GB, computed and dropped when the call returns)
 * and its 1x1 conv + bias add_ (the pooled tensor freed once the conv returns); torch.cat of the
 * four branches along dim 1: one CatArrayBatchedCopy_vectorized launch (four contiguous inputs,
 * every slice a 16-byte multiple; kb_cat), after which forward's locals and the list free them.
 * 14 launches besides cuDNN's own.
 * Peak (the max pool): branches 1-3 (899 MB) + the pooled tensor (963 MB) + its indices
 * (1.93 GB) = 3.79 GB over x; reference/pytorch-eager-h200.csv gives 3,790,340,096 B over its
 * resident bytes, these plus 1 MiB.
 * Napkin math: 3.77e11 FLOP of convolution (~1 ms of TF32 at ~400 TFLOP/s) + 3.1e8 of bias adds
 * + 2.2e9 of the pool's comparisons = 3.79e11 (reference/kernelbench-problems.csv). Traffic:
 * the pool reads x (963 MB) and writes 2.9 GB, each of the four 1x1 convs reads x, each branch
 * output is written by its conv, read and written by its bias add and read by cat, and cat
 * writes 1.03 GB: ~13 GB, ~3 ms at ~4.2 TB/s. Eager on the H200: 8.28 ms median
 * (reference/pytorch-eager-h200.csv); 8.77 ms on an H100 (reference/kernelbench-problems.csv).
 */
#include "kb/ref.h"

enum { BATCH = 10, CIN = 480, H = 224, W = 224 };
enum { OUT1 = 192, RED3 = 96, OUT3 = 208, RED5 = 16, OUT5 = 48, POOL = 64, COUT = OUT1 + OUT3 + OUT5 + POOL };

/* conv(x) + bias: cudnn_convolution, then the bias add_; `conv` is the module's name */
static kb_tensor conv(kb_ref *r, kb_tensor x, const char *name, int padding)
{
    return kb_conv(r, KB_NEW, x, kb_argf(r, "%s.weight", name), kb_argf(r, "%s.bias", name),
                   KB_CONV_PARAMS(.padding = {padding, padding}));
}

/* nn.Sequential(a, b): b(a(x)), a's output freed once b returns */
static kb_tensor conv_conv(kb_ref *r, kb_tensor x, const char *a, const char *b, int padding)
{
    kb_tensor t = conv(r, x, a, 0);
    kb_tensor y = conv(r, t, b, padding);
    kb_drop(r, t);
    return y;
}

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor branches[4];
    branches[0] = conv(r, x, "branch1x1", 0);
    branches[1] = conv_conv(r, x, "branch3x3.0", "branch3x3.1", 1);
    branches[2] = conv_conv(r, x, "branch5x5.0", "branch5x5.1", 2);
    kb_tensor pooled = kb_max_pool2d(r, KB_NEW, x, 3, 1, 1, 1, 0);
    branches[3] = conv(r, pooled, "branch_pool.1", 0);
    kb_drop(r, pooled);
    kb_cat(r, kb_arg(r, "y"), branches, 4, 1);
    for (int i = 0; i < 4; i++)
        kb_drop(r, branches[i]);
}

KB_PROBLEM(.title = "GoogLeNet inception module",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("branch1x1.weight", KB_F32, KB_DIMS(OUT1, CIN, 1, 1), KB_KAIMING(CIN)),
                     KB_PARAM("branch1x1.bias", KB_F32, KB_DIMS(OUT1), KB_KAIMING(CIN)),
                     KB_PARAM("branch3x3.0.weight", KB_F32, KB_DIMS(RED3, CIN, 1, 1), KB_KAIMING(CIN)),
                     KB_PARAM("branch3x3.0.bias", KB_F32, KB_DIMS(RED3), KB_KAIMING(CIN)),
                     KB_PARAM("branch3x3.1.weight", KB_F32, KB_DIMS(OUT3, RED3, 3, 3), KB_KAIMING(RED3 * 9)),
                     KB_PARAM("branch3x3.1.bias", KB_F32, KB_DIMS(OUT3), KB_KAIMING(RED3 * 9)),
                     KB_PARAM("branch5x5.0.weight", KB_F32, KB_DIMS(RED5, CIN, 1, 1), KB_KAIMING(CIN)),
                     KB_PARAM("branch5x5.0.bias", KB_F32, KB_DIMS(RED5), KB_KAIMING(CIN)),
                     KB_PARAM("branch5x5.1.weight", KB_F32, KB_DIMS(OUT5, RED5, 5, 5), KB_KAIMING(RED5 * 25)),
                     KB_PARAM("branch5x5.1.bias", KB_F32, KB_DIMS(OUT5), KB_KAIMING(RED5 * 25)),
                     KB_PARAM("branch_pool.1.weight", KB_F32, KB_DIMS(POOL, CIN, 1, 1), KB_KAIMING(CIN)),
                     KB_PARAM("branch_pool.1.bias", KB_F32, KB_DIMS(POOL), KB_KAIMING(CIN))),
           /* terms: the 3x3 branch is two linear maps in a row (no activation between): 96 x 3 x 3
            * products of 480-product sums, 414,720 products per output element */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, H, W), .terms = (int64_t)RED3 * 9 * CIN)),
           /* the convolutions, their bias adds, the pool's 9 comparisons per element */
           .flops = 2.0 * BATCH * H * W *
                        (CIN * OUT1 + CIN * RED3 + RED3 * 9 * OUT3 + CIN * RED5 + RED5 * 25 * OUT5 + CIN * POOL) +
                    1.0 * BATCH * H * W * (OUT1 + RED3 + OUT3 + RED5 + OUT5 + POOL) + 9.0 * BATCH * CIN * H * W)
