/*
 * level3/017_squeezenet_fire_module -- KernelBench L3/17: SqueezeNet's Fire module (3 -> squeeze
 * 6 -> expand 64 (1x1) + 64 (3x3, padding 1)) on x (128, 3, 256, 256) fp32 -> (128, 128, 256, 256).
 *
 * Eager PyTorch, in order: squeeze = cudnn_convolution (TF32 by cudnn.allow_tf32) then its bias
 * add_ (a second kernel), relu_ in place (squeeze_activation, inplace=True); expand1x1 the same
 * (conv, bias add_, relu_), then expand3x3 the same, both reading the squeezed tensor; torch.cat
 * of the two along dim 1: one CatArrayBatchedCopy_vectorized launch (two contiguous inputs whose
 * slices are 16-byte multiples; kb_cat). Ten kernels. The list holding the two expand outputs dies
 * when cat returns (both freed), the squeezed tensor when forward returns.
 * Peak: x + squeezed (201 MB) + the two expand outputs (2.15 GB each) + the result (4.29 GB) =
 * 8.89 GB; reference/pytorch-eager-h200.csv's peak 9,194,980,352 B is its resident 403,719,168 B
 * plus exactly those four temporaries.
 * Napkin math: 6.47e10 FLOP of convolution (5.80e10 of it the 3x3; TF32, ~0.2 ms) plus 2.2e9 of
 * bias adds and relus = 6.70e10 (the CSV's approx_flops). Traffic ~31.6 GB (each expand output
 * written by its conv, read and written by its bias add and relu_, read by cat; the result
 * written once): ~7.5 ms at ~4.2 TB/s, so memory bound. Eager on the H200: 11.23 ms median
 * (reference/pytorch-eager-h200.csv); 13.3 ms on an H100 (reference/kernelbench-problems.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 3, SQUEEZE = 6, E1 = 64, E3 = 64, H = 256, W = 256 };

/* relu_(conv(x) + bias): the convolution, its bias add_, the in-place ReLU */
static kb_tensor conv_relu(kb_ref *r, kb_tensor x, const char *conv, int padding)
{
    kb_tensor y = kb_conv(r, KB_NEW, x, kb_argf(r, "%s.weight", conv), kb_argf(r, "%s.bias", conv),
                          KB_CONV_PARAMS(.padding = {padding, padding}));
    return kb_relu(r, y, y);
}

static void reference(kb_ref *r)
{
    kb_tensor s = conv_relu(r, kb_arg(r, "x"), "squeeze", 0);
    kb_tensor branches[2];
    branches[0] = conv_relu(r, s, "expand1x1", 0);
    branches[1] = conv_relu(r, s, "expand3x3", 1);
    kb_cat(r, kb_arg(r, "y"), branches, 2, 1);
    kb_drop(r, branches[0]); /* the list dies when cat returns */
    kb_drop(r, branches[1]);
    kb_drop(r, s);
}

KB_PROBLEM(.title = "SqueezeNet Fire module",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("squeeze.weight", KB_F32, KB_DIMS(SQUEEZE, CIN, 1, 1), KB_KAIMING(CIN)),
                     KB_PARAM("squeeze.bias", KB_F32, KB_DIMS(SQUEEZE), KB_KAIMING(CIN)),
                     KB_PARAM("expand1x1.weight", KB_F32, KB_DIMS(E1, SQUEEZE, 1, 1), KB_KAIMING(SQUEEZE)),
                     KB_PARAM("expand1x1.bias", KB_F32, KB_DIMS(E1), KB_KAIMING(SQUEEZE)),
                     KB_PARAM("expand3x3.weight", KB_F32, KB_DIMS(E3, SQUEEZE, 3, 3), KB_KAIMING(SQUEEZE * 9)),
                     KB_PARAM("expand3x3.bias", KB_F32, KB_DIMS(E3), KB_KAIMING(SQUEEZE * 9))),
           /* terms: the 3x3 expand's 6 x 3 x 3 products (over squeezed values that each sum 3) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, E1 + E3, H, W), .terms = SQUEEZE * 9)),
           /* the convolutions, then one add (bias) and one max (relu) per conv output element */
           .flops = 2.0 * BATCH * H * W * (SQUEEZE * CIN + E1 * SQUEEZE + E3 * SQUEEZE * 9) +
                    2.0 * BATCH * H * W * (SQUEEZE + E1 + E3))
