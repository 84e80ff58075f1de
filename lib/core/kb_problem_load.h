/*
 * kb_problem_load.h -- loading a problem's shared object and checking its descriptor, so that
 * a malformed problem fails with a message naming the field, before any GPU work.
 */
#ifndef KB_PROBLEM_LOAD_H
#define KB_PROBLEM_LOAD_H

#include "kb/problem.h"
#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dlopen()s path and returns its validated descriptor, expanded (kb_problem_expand); *handle
 * keeps it loaded. */
const kb_problem *kb_problem_load(const char *path, void **handle, kb_err *err);
/* A network's descriptor with the tensor list its describe() builds (kb/net.h) laid out after
 * the forward() arguments written in `inputs`: a copy that lives as long as the process. A
 * descriptor without describe() is returned as it is. NULL with err when describe() failed (its
 * first error) or memory ran out. Not validated: kb_problem_validate does that. */
const kb_problem *kb_problem_expand(const kb_problem *p, kb_err *err);
/* Checks a descriptor (also used by tests on static descriptors). */
int kb_problem_validate(const kb_problem *p, kb_err *err);
/* Bytes of tensor spec s. */
uint64_t kb_spec_bytes(const kb_tensor_spec *s);
/* Sum of the bytes of every input and output: the resident data of one call. */
uint64_t kb_problem_resident_bytes(const kb_problem *p);
/* The minimal device bytes of one call: the descriptor's `bytes`, or where it leaves them 0, every
 * input read once and every output written once (the resident bytes). */
double kb_problem_bytes(const kb_problem *p);
/* Limits of a descriptor (any realistic model fits: a Level-3 ResNet-152 has ~470 tensors); the
 * outputs' is KB_MAX_OUTPUTS (kb/problem.h). */
#define KB_PROBLEM_MAX_INPUTS 65536u

#ifdef __cplusplus
}
#endif

#endif /* KB_PROBLEM_LOAD_H */
