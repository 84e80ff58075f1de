/*
 * kb/ref/scan.h -- the tensor-level scan ops (ops/scan*): see kb/ref.h for the conventions.
 */
#ifndef KB_REF_SCAN_H
#define KB_REF_SCAN_H

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
