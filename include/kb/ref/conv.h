/*
 * kb/ref/conv.h -- the tensor-level conv ops (ops/conv*): see kb/ref.h for the conventions.
 */
#ifndef KB_REF_CONV_H
#define KB_REF_CONV_H

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
