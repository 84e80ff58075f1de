/* probes.c -- the strict protocol's probes (kb_probes.h). */
#include "kb_probes.h"

#include <math.h>
#include <stdio.h>

static kb_draw params_draw(const kb_probe_ctx *c)
{
    return (kb_draw){kb_seed(c->cfg, c->problem_id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
}

int kb_probe_stale(const kb_probe_ctx *c, kb_probe_result *r, kb_outcome *outcome, char *detail, size_t dlen,
                   kb_err *err)
{
    kb_draw in = c->inputs;
    in.seed = kb_seed(c->cfg, c->problem_id, KB_SEED_PROBE, 1);
    kb_draw par = params_draw(c);
    kb_check c1, c2;
    const unsigned f = KB_CHECK_POISON | KB_CHECK_MAGNITUDE | (c->tf32_rule ? KB_CHECK_TF32 : 0u);
    if (kb_check_draw(c->s, c->cfg, &in, &par, f, &c1, err) != 0)
        return -1;
    if (c1.call.outcome != KB_OUT_OK) {
        *outcome = c1.call.outcome;
        snprintf(detail, dlen, "stale-cache probe: %s", c1.call.detail);
        return 0;
    }
    if (c1.skipped)
        return 0;
    /* kb_check_draw replaced the inputs by |x| for the magnitude reference: draw again */
    if (kb_session_draw(c->s, &in, &par, err) != 0 || kb_session_perturb_inputs(c->s, 997, 13, err) != 0 ||
        kb_check_draw(c->s, c->cfg, &in, &par, f | KB_CHECK_NO_DRAW, &c2, err) != 0)
        return -1;
    if (c2.call.outcome != KB_OUT_OK) {
        *outcome = c2.call.outcome;
        snprintf(detail, dlen, "stale-cache probe: %s", c2.call.detail);
    } else if (!c2.skipped) {
        r->stale = !kb_check_strict_pass(&c2);
        if (c->tf32_rule)
            r->stale_tf32 = !kb_check_strict_pass_tf32(&c2);
    }
    return 0;
}

/* Inputs and parameters 1 + U(0, width): how near the output is to the all-ones reference
 * (*downgrade, *ratio; unchanged when the probe cannot tell). */
static int precision_at(const kb_probe_ctx *c, double width, uint32_t seed_k, int *downgrade, double *ratio,
                        kb_outcome *outcome, char *detail, size_t dlen, kb_err *err)
{
    kb_draw ones = {kb_seed(c->cfg, c->problem_id, KB_SEED_PROBE, seed_k), 1.0, 1, {KB_GEN_CONST, 1.0, 0}, 0.0};
    kb_draw near = ones;
    near.gen = (kb_gen){KB_GEN_UNIFORM, 1.0, 1.0 + width};
    int nf1 = 0, nf2 = 0;
    kb_call_outcome co;
    if (kb_session_draw(c->s, &ones, &ones, err) != 0 || kb_session_reference(c->s, 1, &nf1, err) != 0 ||
        kb_session_draw(c->s, &near, &near, err) != 0 || kb_session_reference(c->s, 0, &nf2, err) != 0 ||
        kb_session_poison(c->s, err) != 0 || kb_session_call(c->s, KB_CALL_DEVICE_SYNC, &co, err) != 0)
        return -1;
    if (co.outcome != KB_OUT_OK) {
        *outcome = co.outcome;
        snprintf(detail, dlen, "precision probe: %s", co.detail);
        return 0;
    }
    if (nf1 || nf2)
        return 0;
    double d_exact = 0, d_round = 0, d_refs = 0, ref_sq = 0;
    for (int i = 0; i < c->n_out; i++) {
        kb_cmp_stats a, b, rr;
        if (kb_session_compare(c->s, (uint32_t)i, 0.0, 0.0, 0.0, &a, err) != 0 ||
            kb_session_compare_mag(c->s, (uint32_t)i, 0.0, &b, err) != 0 ||
            kb_session_compare_refs(c->s, (uint32_t)i, &rr, err) != 0)
            return -1;
        d_exact += a.sum_sq_err;
        d_round += b.sum_sq_err;
        d_refs += rr.sum_sq_err;
        ref_sq += rr.sum_sq_ref;
    }
    /* Only meaningful when rounding the inputs moves the result well beyond honest fp32
     * rounding (relative L2 distance of the two references >= 1e-4, about 2^11 fp32 ulps);
     * otherwise an honest kernel could land nearer either. */
    if (ref_sq > 0.0 && sqrt(d_refs / ref_sq) >= 1e-4 && isfinite(d_exact) && isfinite(d_round)) {
        *ratio = d_exact > 0.0 ? d_round / d_exact : INFINITY;
        *downgrade = d_round < 0.25 * d_exact;
    }
    return 0;
}

int kb_probe_precision(const kb_probe_ctx *c, kb_probe_result *r, kb_outcome *outcome, char *detail, size_t dlen,
                       kb_err *err)
{
    return precision_at(c, 1.0 / 4096.0, 2, &r->downgrade, &r->precision_ratio, outcome, detail, dlen, err);
}

int kb_probe_precision_tf32(const kb_probe_ctx *c, kb_probe_result *r, kb_outcome *outcome, char *detail,
                            size_t dlen, kb_err *err)
{
    if (precision_at(c, 1.0 / 256.0, 3, &r->downgrade_bf16, &r->precision_ratio_bf16, outcome, detail, dlen, err) != 0)
        return -1;
    if (*outcome != KB_OUT_OK || !kb_session_alive(c->s))
        return 0;
    /* fp16's range: every input and parameter scaled by 2^-24 (fp16's smallest subnormal; fp32
     * and TF32 keep all their bits there), judged by the TF32 bound */
    kb_draw in = c->inputs, par = {kb_seed(c->cfg, c->problem_id, KB_SEED_PROBE, 4), 0x1p-24, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    in.seed = kb_seed(c->cfg, c->problem_id, KB_SEED_PROBE, 5);
    in.scale = 0x1p-24;
    kb_check k;
    if (kb_check_draw(c->s, c->cfg, &in, &par, KB_CHECK_POISON | KB_CHECK_MAGNITUDE | KB_CHECK_TF32, &k, err) != 0)
        return -1;
    if (k.call.outcome != KB_OUT_OK) {
        *outcome = k.call.outcome;
        snprintf(detail, dlen, "fp16-range probe: %s", k.call.detail);
        return 0;
    }
    if (!k.skipped) {
        r->range_fail = !kb_check_strict_pass_tf32(&k);
        r->range_excess = kb_check_tf32_excess(&k);
    }
    return 0;
}

int kb_probe_determinism(const kb_probe_ctx *c, kb_probe_result *r, kb_outcome *outcome, char *detail, size_t dlen,
                         kb_err *err)
{
    kb_draw in = c->inputs;
    in.seed = kb_seed(c->cfg, c->problem_id, KB_SEED_PROBE, 0);
    kb_draw par = params_draw(c);
    uint64_t h[2][KB_MAX_OUTPUTS] = {{0}};
    kb_call_outcome co;
    if (kb_session_draw(c->s, &in, &par, err) != 0)
        return -1;
    r->deterministic = 1;
    for (int rep = 0; rep < 2; rep++) {
        if (kb_session_poison(c->s, err) != 0 || kb_session_call(c->s, KB_CALL_DEVICE_SYNC, &co, err) != 0)
            return -1;
        if (co.outcome != KB_OUT_OK) {
            *outcome = co.outcome;
            snprintf(detail, dlen, "determinism probe: %s", co.detail);
            return 0;
        }
        if (kb_probe_escaped(&co.called))
            r->escapes++;
        for (int i = 0; i < c->n_out; i++)
            if (kb_session_output_hash(c->s, (uint32_t)i, &h[rep][i], err) != 0)
                return -1;
    }
    for (int i = 0; i < c->n_out; i++)
        if (h[0][i] != h[1][i])
            r->deterministic = 0;
    return 0;
}
