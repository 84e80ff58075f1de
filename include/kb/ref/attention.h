/*
 * kb/ref/attention.h -- the tensor-level attention ops (ops/attention*): see kb/ref.h for the conventions.
 */
#ifndef KB_REF_ATTENTION_H
#define KB_REF_ATTENTION_H

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
