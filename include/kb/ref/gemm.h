/*
 * kb/ref/gemm.h -- the tensor-level gemm ops (ops/gemm*): see kb/ref.h for the conventions.
 */
#ifndef KB_REF_GEMM_H
#define KB_REF_GEMM_H

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
