/*
 * kb/ref/norm.h -- the tensor-level norm ops (ops/norm*): see kb/ref.h for the conventions.
 */
#ifndef KB_REF_NORM_H
#define KB_REF_NORM_H

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
