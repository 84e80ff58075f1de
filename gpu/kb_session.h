/*
 * kb_session.h -- the parent side of a GPU stage's work on one cell: the problem's tensors in
 * device memory owned by this (trusted) process, the reference computed here, and a kb-runner
 * child that maps the tensors and runs the target (submission or reference) on request.
 *
 * Whatever the child does -- crash, hang, exit, CUDA error, sandbox violation -- comes back as a
 * kb_outcome with a detail string; this process and its CUDA context are never affected, so the
 * stage records the outcome in the cell's artifact and ends normally.
 */
#ifndef KB_SESSION_H
#define KB_SESSION_H

#include <stdint.h>

#include "kb/ops.h"
#include "kb/problem.h"
#include "core/kb_artifact.h"
#include "core/kb_close.h"
#include "core/kb_msg.h"
#include "core/kb_rng.h"
#include "core/kb_util.h"

typedef struct kb_session kb_session;

typedef struct kb_session_opts {
    const char *runner;        /* path of kb-runner */
    const char *problem_so;
    const char *submission_so; /* KB_TARGET_SUBMISSION only */
    int target;                /* KB_TARGET_SUBMISSION or KB_TARGET_REFERENCE */
    kb_math_mode target_math;  /* KB_TARGET_REFERENCE: the baseline's math mode */
    unsigned init_flags;       /* KB_INIT_* */
    int device;
    double call_timeout_s;
    const char *log_path;      /* the child's stdout/stderr */
    int need_reference;        /* compute reference outputs here (correctness stages) */
    kb_math_mode ref_math;     /* ... in this math mode */
    int need_magnitude;        /* also a magnitude reference (strict tolerance) */
    /* A KernelBench-format target: submission_so ends in ".py" (the compile stage's snapshot
     * DIR/kernel.py, or the problem's own spec for the PyTorch baseline). It runs in
     * py/kbpy/runner.py under $KB_PYTHON (default python3); py_class is the class it
     * instantiates (NULL: ModelNew; the baseline: Model). The spec is found as
     * $KB_PROBLEMS_DIR/<id>.py (default problems/), the runner script as $KB_PYRUNNER (default
     * py/kbpy/runner.py), the runner library beside kb-runner (../lib/libkbrunner.so). */
    const char *py_class;
    /* A .py target only: the model and its floating-point inputs in float64 for every call, each
     * output rounded once to its dtype (runner.py --float64 1): kb-witness's fp64 reference. */
    int py_float64;
} kb_session_opts;

/* 1 if the submission is a KernelBench-format file (ends in ".py"). */
int kb_submission_is_py(const char *submission);

/* What happened to one request to the child. */
typedef struct kb_call_outcome {
    kb_outcome outcome; /* KB_OUT_OK if the child answered and kb_forward returned 0 */
    char detail[1024];
    kb_msg_called called; /* valid when the child answered a CALL */
} kb_call_outcome;

/* Loads the problem, allocates its tensors (and reference buffers), starts the child and
 * waits until it is ready. A submission that cannot be loaded is not an error of this call:
 * *ready says so (KB_OUT_LOAD_ERROR, ...), and the session can still be closed. */
kb_session *kb_session_open(const kb_session_opts *o, kb_call_outcome *ready, kb_err *err);
/* kb_session_open in its three parts, so that several children start side by side and their
 * CPU-only start-up (exec, libraries, `import torch`) can run before the stage holds its GPU:
 *   _spawn: the problem loaded, the child started; no CUDA call here or in the child yet (it
 *           waits for its INIT, up to an hour);
 *   _init:  tensors allocated on `device`, the reference context, INIT sent;
 *   _ready: waits for READY and fills *ready as _open does.
 * On -1 (a harness error) the caller closes the session. */
kb_session *kb_session_spawn(const kb_session_opts *o, kb_err *err);
/* Waits (up to timeout_s) for the child's HELLO: its CPU-only start-up is done. Stages call it
 * before they take the GPU; _init calls it if they did not. A child that dies or stays silent
 * is recorded as _init and _ready would see it (no error here). */
void kb_session_started(kb_session *s, double timeout_s);
int kb_session_init(kb_session *s, int device, kb_call_outcome *ready, kb_err *err);
int kb_session_ready(kb_session *s, kb_call_outcome *ready, kb_err *err);
void kb_session_close(kb_session *s);

const kb_problem *kb_session_problem(const kb_session *s);
/* 1 while the child is alive and usable. */
int kb_session_alive(const kb_session *s);

/* Fills the INPUT-role tensors under `inputs` and the PARAM-role tensors under `params`. */
int kb_session_draw(kb_session *s, const kb_draw *inputs, const kb_draw *params, kb_err *err);
/* Runs the reference here: into the reference buffers (magnitude = 0), or -- after replacing
 * every floating-point input and parameter by its absolute value -- into the magnitude buffers
 * (magnitude = 1; the inputs must be re-drawn afterwards). Returns -1 if the reference failed;
 * *nonfinite is set if its output holds NaN or inf. */
int kb_session_reference(kb_session *s, int magnitude, int *nonfinite, kb_err *err);
/* Live dropout (the problem's replay hook; docs/protocols.md, "Live dropout"): after a call, reads
 * the mask it drew from its outputs, sets it in the reference's context and runs the reference
 * again into the reference buffers, so that it drops the same elements (the magnitude reference
 * computed next does too; the next kb_session_draw clears the mask). A problem without the hook:
 * rs->active = 0 and nothing is done. -1 only on a harness error (or a replay that fails). */
typedef struct kb_replay_stats {
    int active;       /* the problem has live dropout and the call's mask was replayed */
    int64_t n, kept;  /* those whose row could be read (not KB_MASK_UNREAD), and the kept ones */
    double p;         /* the dropout probability */
    double z;         /* (kept - n (1 - p)) / sqrt(n p (1 - p)): the keep count's deviation in sigmas */
    double changed;   /* share of the elements read in both this and the previous call whose
                         keep bit differs (-1: no previous call, or fewer than KB_REPLAY_MIN_N) */
    int repeated;     /* changed < KB_REPLAY_MIN_CHANGED: the previous call's mask again */
} kb_replay_stats;
/* A mask keeping more than this many sigmas away from n (1 - p) is not the problem's dropout;
 * two independent masks differ in 2 p (1 - p) of the elements (32% at p = 0.2), and one that
 * differs in under 1% is the same mask. Neither is judged on fewer than KB_REPLAY_MIN_N elements. */
#define KB_REPLAY_MAX_Z 6.0
#define KB_REPLAY_MIN_CHANGED 0.01
#define KB_REPLAY_MIN_N 1000
int kb_session_replay(kb_session *s, kb_replay_stats *rs, kb_err *err);
/* Whether PyTorch's TF32 mode changes the problem's result on the current inputs: the reference
 * at the session's math into the reference buffers and at KB_MATH_TF32 into the magnitude
 * buffers (need_magnitude), *differs = some output's bits differ. The strict protocol's TF32
 * rule accepts TF32 math exactly where this holds (docs/protocols.md). Leaves both buffers
 * overwritten: draw again before a check. */
int kb_session_tf32_differs(kb_session *s, int *differs, kb_err *err);
/* Copies the outputs of the last call into device buffers dst[i] (one per output, the output's
 * bytes; kb-witness keeps a pool's fp64 reference this way). */
int kb_session_save_outputs(kb_session *s, void *const *dst, kb_err *err);
/* Copies the magnitude buffers (kb_session_reference(s, 1, ...)) into dst[i]. */
int kb_session_save_magnitude(kb_session *s, void *const *dst, kb_err *err);
/* Makes ref[i] (and, if mag is not NULL, mag[i]) this session's reference and magnitude buffers'
 * contents, for kb_session_compare: a reference computed elsewhere (kb-witness: PyTorch in
 * float64 in another session of this process, on the same draw). */
int kb_session_load_reference(kb_session *s, const void *const *ref, const void *const *mag, kb_err *err);
/* Fills every output with poison (NaN for floats). */
int kb_session_poison(kb_session *s, kb_err *err);
/* One forward call in the child. Returns 0 if the child answered (even with a failure, see
 * co->outcome), -1 on a harness error. */
int kb_session_call(kb_session *s, unsigned call_flags, kb_call_outcome *co, kb_err *err);
/* Times the target in the child. *samples (malloc'd) gets h->n samples. */
int kb_session_time(kb_session *s, const kb_msg_time *t, kb_msg_timed *h, kb_msg_sample **samples,
                    kb_call_outcome *co, kb_err *err);
/* From now on: the target in math mode `target` (the C baseline's op context, or the PyTorch
 * flags of a .py target) and this session's reference in `ref`. 0 if the child answered (even
 * with a failure, see co->outcome), -1 on a harness error. */
int kb_session_set_math(kb_session *s, kb_math_mode target, kb_math_mode ref, kb_call_outcome *co, kb_err *err);
/* The child's allocation report. */
int kb_session_memory(kb_session *s, kb_msg_mem *m, kb_call_outcome *co, kb_err *err);
/* Compares output i with its reference. */
int kb_session_compare(kb_session *s, uint32_t i, double tau, double strict_atol, double strict_rtol,
                       kb_cmp_stats *st, kb_err *err);
/* Compares output i with device buffers ref[] and mag[] (the output's bytes each) held outside
 * the session (kb-witness: one pool entry's references for every sample alive at once, so a
 * sample's session holds no reference buffers of its own). */
int kb_session_compare_with(kb_session *s, uint32_t i, const void *ref, const void *mag, double tau, double strict_atol,
                            double strict_rtol, kb_cmp_stats *st, kb_err *err);
/* Compares output i with the magnitude buffer instead (used by the precision probe, which
 * stores a second reference there). */
int kb_session_compare_mag(kb_session *s, uint32_t i, double tau, kb_cmp_stats *st, kb_err *err);
/* Compares the reference with the magnitude buffer (how far apart the two references are). */
int kb_session_compare_refs(kb_session *s, uint32_t i, kb_cmp_stats *st, kb_err *err);
/* Statistics of the reference against itself (its size, rms and non-finite elements). */
int kb_session_compare_refs_self(kb_session *s, uint32_t i, kb_cmp_stats *st, kb_err *err);
/* kb_dev_perturb on every floating-point INPUT-role tensor. */
int kb_session_perturb_inputs(kb_session *s, int64_t stride, int64_t offset, kb_err *err);
/* Hash of every input and parameter (to check the call left them unchanged). */
int kb_session_inputs_hash(kb_session *s, uint64_t *hash, kb_err *err);
/* Hash of output i (bitwise determinism). */
int kb_session_output_hash(kb_session *s, uint32_t i, uint64_t *hash, kb_err *err);

/* What confined the last sandboxed child of this process ("seccomp+warden, uid 65534 (dropped
 * from root)"), or "" if none was sandboxed; the GPU stages record it in their artifact. */
const char *kb_session_last_sandbox(void);

/* The kind of the last target this process opened: "cu" (C ABI object), "py" (KernelBench-format
 * file), "torch" (the problem's PyTorch Model, the eager baseline), "reference" (the C baseline);
 * the GPU stages record it in their artifact (root attribute submission_kind). */
const char *kb_session_last_kind(void);

/* The last lines of the child's log (malloc'd, at most max bytes). */
char *kb_session_log_tail(kb_session *s, size_t max);

#endif /* KB_SESSION_H */
