/*
 * kb/ref/conv.h -- the tensor-level depthwise convolution (ops/depthwise.cu): see kb/ref.h for the conventions.
 */
#ifndef KB_REF_DEPTHWISE_H
#define KB_REF_DEPTHWISE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
