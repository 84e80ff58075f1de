/*
 * kb_probe.h -- the strict protocol's probe results and the verdict drawn from them, pure (no
 * GPU): gpu/probes.c runs the probes and fills a kb_probe_result; kb-verify-distributions turns
 * it into its outcome with kb_probe_verdict. docs/protocols.md says what each probe is for.
 */
#ifndef KB_PROBE_H
#define KB_PROBE_H

#include <stddef.h>

#include "core/kb_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_probe_result {
    int deterministic;      /* the same inputs twice gave the same bits: 1, 0; -1 not run */
    int stale;              /* new values at the same addresses gave the old result: 1, 0; -1 */
    int stale_tf32;         /* ... judged by the TF32 rule's bound: 1, 0; -1 (not that rule) */
    int downgrade;          /* the output matches inputs rounded to <= 10 mantissa bits: 1, 0; -1 */
    double precision_ratio; /* squared distance to the rounded-input reference / to the exact one; NaN */
    int downgrade_bf16;     /* TF32 rule: the output matches inputs rounded to <= 7 mantissa bits: 1, 0; -1 */
    double precision_ratio_bf16; /* ... its distance ratio; NaN */
    int range_fail;         /* TF32 rule: inputs scaled by 2^-24 fail the TF32 bound (fp16's range): 1, 0; -1 */
    double range_excess;    /* ... the largest excess over the TF32 bound there; NaN */
    int escapes;            /* calls whose work escaped args->stream (kb_probe_escaped) */
    int thread_growth;      /* calls that left host threads running */
    int inputs_changed;     /* draws on which the call modified an input */
    int py_calls;           /* calls of a .py target that reported their extension calls */
    int py_ext_called;      /* ... and whether any of them called the file's own extension */
} kb_probe_result;

/* Every field "not run" (-1, NaN) or zero. */
void kb_probe_result_init(kb_probe_result *r);

/* Work found by the device synchronisation after the stream was done: more than 0.1 ms (~7x the
 * ~14 us an empty kernel's launch plus device synchronisation takes on the H200,
 * results/2026-11-29-harness-bench/overhead.csv) and more than 5% of the call's event time is work that escaped
 * args->stream. */
int kb_probe_escaped(const kb_msg_called *c);

/* Folds one draw's call into the result: a .py target's "ext_calls=N" note always; with probes
 * (the strict protocol) also escaped work, thread growth (not on the first draw: first = 1) and
 * a modified input. */
void kb_probe_note_call(kb_probe_result *r, const kb_msg_called *c, int probes, int first, int inputs_changed);

/* Appends text to buf, "; "-separated. */
void kb_append(char *buf, size_t len, const char *text);

/* The strict verdict: every finding appended to text (for the detail) and to reason (short
 * words for the tables). Findings: nondeterminism (unless nondeterministic_ok: the problem's
 * KB_PROB_NONDETERMINISTIC), a stale cache, a precision downgrade, work outside args->stream,
 * host threads left running, a .py target that never called its own extension, and the
 * compile stage's symbol scan verdict "rejected" (with its reasons). Returns 1 when there is a
 * finding (the sample is rejected), else 0. */
int kb_probe_verdict(const kb_probe_result *r, int nondeterministic_ok, const char *scan_verdict,
                     const char *scan_reasons, char *text, size_t tlen, char *reason, size_t rlen);
/* The same for the TF32 condition under the TF32 rule (tf32_rule = 1): the stale-cache finding
 * by the TF32 bound, and instead of the 10-bit precision finding the two below TF32's precision
 * (bf16's mantissa, fp16's range). tf32_rule = 0 is kb_probe_verdict. */
int kb_probe_verdict_rule(const kb_probe_result *r, int tf32_rule, int nondeterministic_ok, const char *scan_verdict,
                          const char *scan_reasons, char *text, size_t tlen, char *reason, size_t rlen);

#ifdef __cplusplus
}
#endif

#endif /* KB_PROBE_H */
