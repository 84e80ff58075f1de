/*
 * kb/ref/loss.h -- the tensor-level loss ops (ops/loss*): see kb/ref.h for the conventions.
 */
#ifndef KB_REF_LOSS_H
#define KB_REF_LOSS_H

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
