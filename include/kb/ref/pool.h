/*
 * kb/ref/pool.h -- the tensor-level pool ops (ops/pool*): see kb/ref.h for the conventions.
 */
#ifndef KB_REF_POOL_H
#define KB_REF_POOL_H

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
