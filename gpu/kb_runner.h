/*
 * kb_runner.h -- the child process of the GPU stages (kb-runner), as a function, so that one
 * protocol loop serves both submission kinds:
 *   - a C ABI submission (`sK.cu`): stages/runner.c's main calls kb_runner_main(argc, argv, NULL)
 *     and the submission is a shared object whose kb_forward is called;
 *   - a KernelBench-format file (`sK.py`): py/kbpy/runner.py (a Python process) loads this code
 *     as libkbrunner.so and passes a target whose hooks are Python functions (ctypes).
 * Everything else -- CUDA init, the parent's tensors, the sandbox, the timer, the memory
 * accounting, the messages -- is the same code for both.
 *
 * Order for a hooked target: INIT; CUDA context, NVML, CUPTI, the tensors, the problem; setup()
 * (trusted: import torch, wrap the tensors, warm cuBLAS/cuDNN); the sandbox; load() (the
 * submission's own code, its module top level included); READY; then CALL / TIME / MEMORY.
 */
#ifndef KB_RUNNER_H
#define KB_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "kb/submission.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_runner_target {
    void *user;
    /* Before the sandbox. `args` holds the mapped tensors and the harness stream, roles[i] the
     * kb_role of args->inputs[i]; the math mode is INIT's. 0, or non-zero with a message. */
    int (*setup)(void *user, const kb_args *args, const int32_t *roles, int matmul_tf32, int cudnn_tf32, char *err,
                 size_t n);
    /* Inside the sandbox: load the submission. 0; else a kb_outcome (> 0) with a message. */
    int (*load)(void *user, char *err, size_t n);
    /* Before a CALL (never before a timed call): the target may record what the call does. */
    void (*before_call)(void *user);
    /* The timed call: 0 ok. */
    int (*forward)(void *user);
    /* After a CALL's stream has finished (untimed): the returned tensors into args->outputs, on
     * args->stream. 0, or non-zero with a message. */
    int (*collect)(void *user, char *err, size_t n);
    /* After every CALL: one line on what the call did (or why it failed), for the record. */
    void (*note)(void *user, char *buf, size_t n);
    /* The framework allocator's own peak bytes since the last reset (-1: none), and a reset. */
    int64_t (*alloc_peak)(void *user);
    void (*alloc_reset)(void *user);
    /* A new math mode (KB_MSG_MATH: the PyTorch baseline of kb-fidelity runs both modes in one
     * process). 0, or non-zero with a message. */
    int (*set_math)(void *user, int matmul_tf32, int cudnn_tf32, char *err, size_t n);
} kb_runner_target;

/* The whole child: returns its exit status (0 after QUIT). */
int kb_runner_main(int argc, char **argv, const kb_runner_target *target);

#ifdef __cplusplus
}
#endif

#endif /* KB_RUNNER_H */
