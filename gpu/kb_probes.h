/*
 * kb_probes.h -- the strict protocol's probes (docs/protocols.md), run on an open session after
 * the distributions passed; they fill a kb_probe_result (lib/core/kb_probe.h) whose verdict
 * kb-verify-distributions draws with kb_probe_verdict.
 */
#ifndef KB_PROBES_H
#define KB_PROBES_H

#include "kb_gpustage.h"
#include "core/kb_probe.h"

typedef struct kb_probe_ctx {
    kb_session *s;
    const kb_config *cfg;
    const char *problem_id;
    kb_draw inputs; /* the protocol's first distribution's input draw (its seed is replaced) */
    int n_out;      /* outputs compared (at most KB_MAX_OUTPUTS) */
    int tf32_rule;  /* the TF32 rule applies: the stale-cache probe also judges by its bound */
} kb_probe_ctx;

/* Each probe returns -1 with err on a harness failure. Otherwise 0; when the target's call
 * failed, *outcome is that call's outcome and detail says which probe saw it (*outcome is left
 * as it was otherwise). */

/* Stale cache: a correct call, then new values at the same addresses in the interior of every
 * input (the ends unchanged); the call must see them (r->stale). */
int kb_probe_stale(const kb_probe_ctx *c, kb_probe_result *r, kb_outcome *outcome, char *detail, size_t dlen,
                   kb_err *err);
/* Precision: inputs and parameters 1 + U(0, 2^-12) lose everything but 1.0 when rounded to TF32,
 * fp16 or bf16; an output nearer the reference of all-ones than the exact one was computed from
 * rounded inputs (r->downgrade, r->precision_ratio). */
int kb_probe_precision(const kb_probe_ctx *c, kb_probe_result *r, kb_outcome *outcome, char *detail, size_t dlen,
                       kb_err *err);
/* The TF32 rule's probes (a problem whose result PyTorch's TF32 mode changes, judged for the
 * TF32 condition): TF32 keeps 10 mantissa bits and fp32's exponent, so inputs and parameters
 * 1 + U(0, 2^-8), which bf16 (7 bits) rounds to 1.0, must not give the all-ones result
 * (r->downgrade_bf16, r->precision_ratio_bf16), and inputs and parameters scaled by 2^-24, where
 * fp16 keeps at most one bit, must pass the TF32 bound (r->range_fail, r->range_excess). */
int kb_probe_precision_tf32(const kb_probe_ctx *c, kb_probe_result *r, kb_outcome *outcome, char *detail,
                            size_t dlen, kb_err *err);
/* Determinism: the same inputs twice, outputs poisoned before each, must give the same bits
 * (r->deterministic); work outside args->stream in either call counts in r->escapes. */
int kb_probe_determinism(const kb_probe_ctx *c, kb_probe_result *r, kb_outcome *outcome, char *detail, size_t dlen,
                         kb_err *err);

#endif /* KB_PROBES_H */
