/*
 * kb/ref/depthwise.h -- depthwise 2-D convolution (ops/depthwise.cu): see kb/ref.h for the
 * conventions.
 *
 * What eager PyTorch 2.11 runs for an fp32 NCHW nn.Conv2d with groups == in_channels and
 * out_channels a multiple of it (aten/src/ATen/native/Convolution.cpp): not cuDNN
 * (use_cudnn_depthwise wants fp16 weights and input, or channels_last) but the native
 * at::_conv_depthwise2d, i.e. conv_depthwise2d_forward_kernel in
 * aten/src/ATen/native/cuda/DepthwiseConv2d.cu: one thread per output element, 128 threads per
 * block, a grid-stride loop, 32-bit indices (PyTorch TORCH_CHECKs canUse32BitIndexMath), the
 * kernel size templated for 5x5, 3x3 and 1x1 (fully unrolled, bounds checked per tap) and a
 * generic kernel otherwise (tap range clipped ahead of the loop). ops/depthwise.cu mirrors it;
 * past 2^31 elements (which PyTorch refuses) it runs the same code with 64-bit indices.
 */
#ifndef KB_REF_DEPTHWISE_H
#define KB_REF_DEPTHWISE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* The raw op. x is [batch, in_ch, in_h, in_w], w is [out_ch, 1, kernel_h, kernel_w] with
 * out_ch a multiple of in_ch (channel c reads input channel c / (out_ch / in_ch)), bias is
 * [out_ch] or NULL, y is [batch, out_ch, out_h, out_w] with the usual
 * out = (in + 2 pad - dilation (k - 1) - 1) / stride + 1. */
typedef struct kb_depthwise2d_desc {
    int64_t batch, in_ch, out_ch, in_h, in_w;
    int kernel_h, kernel_w;
    int stride_h, stride_w;
    int pad_h, pad_w;
    int dilation_h, dilation_w;
} kb_depthwise2d_desc;

void kb_depthwise2d_out_size(const kb_depthwise2d_desc *d, int64_t *out_h, int64_t *out_w);
int kb_op_depthwise_conv2d(kb_ctx *ctx, const kb_depthwise2d_desc *d, const float *x, const float *w,
                           const float *bias, float *y);

/* y = nn.Conv2d(C, C*m, (kh, kw), stride, padding, dilation, groups=C)(x): x [N, C, H, W],
 * weight [C*m, 1, kh, kw], bias [C*m] or KB_NEW for bias=False. */
kb_tensor kb_depthwise_conv2d(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor weight, kb_tensor bias,
                              int stride_h, int stride_w, int pad_h, int pad_w, int dilation_h,
                              int dilation_w);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
