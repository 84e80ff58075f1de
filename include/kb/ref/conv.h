/*
 * kb/ref/conv.h -- the tensor-level convolution ops (ops/dnn.cu): see kb/ref.h for the
 * conventions. nn.ConvNd / nn.ConvTransposeNd forward as eager PyTorch 2.11 runs them on CUDA:
 * at::cudnn_convolution / at::cudnn_convolution_transpose (cuDNN v8 graph API, heuristics,
 * TF32 from kb_ctx_math(ctx).cudnn_tf32), then `output.add_(bias)` as a separate kernel when a
 * bias is given. 1-D convolutions run as 2-D ones on an unsqueezed view (view1d_as_2d).
 *
 * The geometry comes from the tensors: x is [N, C_in, spatial...] (3-, 4- or 5-D), w is
 * PyTorch's weight ([C_out, C_in/groups, k...] for a convolution, [C_in, C_out/groups, k...]
 * for a transposed one); the module's arguments go in a kb_conv_params, per spatial dimension
 * in PyTorch's order (D, H, W). Zero-initialised fields are PyTorch's defaults: stride 0 and
 * dilation 0 mean 1, groups 0 means 1. So nn.Conv2d(64, 128, 3, padding=1) reads
 *
 *     kb_conv(r, kb_arg(r, "y"), kb_arg(r, "x"), kb_arg(r, "conv2d.weight"), KB_NEW,
 *             KB_CONV_PARAMS(.padding = {1, 1}));
 *
 * bias: the module's bias tensor [C_out], or KB_NEW for bias=False. params may be NULL (all
 * defaults).
 */
#ifndef KB_REF_CONV_H
#define KB_REF_CONV_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef struct kb_conv_params {
    int stride[3];         /* 0 = 1 */
    int padding[3];
    int dilation[3];       /* 0 = 1 */
    int output_padding[3]; /* transposed convolution only */
    int groups;            /* 0 = 1 */
} kb_conv_params;

/* A pointer to a compound literal, for the calls above (C only). */
#define KB_CONV_PARAMS(...) (&(const kb_conv_params){__VA_ARGS__})

/* y = conv(x, w) (+ bias): nn.ConvNd's forward. */
kb_tensor kb_conv(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor w, kb_tensor bias, const kb_conv_params *p);

/* y = conv_transpose(x, w) (+ bias): nn.ConvTransposeNd's forward (cuDNN backward-data). */
kb_tensor kb_conv_transpose(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor w, kb_tensor bias,
                            const kb_conv_params *p);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
