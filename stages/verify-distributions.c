/*
 * kb-verify-distributions -- the hidden-distribution check of one sample.
 *
 * PROTOCOL=paper (KernelBench-Verified exactly): D1..D4 re-draw the inputs and scale every
 * floating-point INPUT by 1, 3, 0.01, -1; parameters keep their initialisation; each output is
 * compared with the reference at PyTorch's default flags, allclose(atol = rtol = TAU). A draw on
 * which the reference itself is NaN/inf is skipped (recorded). Pass = every draw not skipped
 * passes.
 *
 * PROTOCOL=strict (docs/protocols.md): the paper's four plus draws that perturb the parameters
 * and cover mixed signs, wide range, tiny values, exact zeros, large magnitudes and all-negative
 * inputs; the reference is exact FP32 (no TF32 anywhere); the bound is scaled by the magnitude of
 * what was summed (|ref| + |ref(|x|)|, times 16 x 2^-24 x sqrt(terms)); outputs are poisoned with
 * NaN before every call; inputs must be unchanged after it; and these probes must pass:
 *   deterministic   the same inputs twice give bitwise the same outputs
 *   stream          no work outside args->stream (device synchronisation after the stream is
 *                   done must find nothing left: device_sync_ms) and no host threads left behind
 *   scan            the compile stage's symbol scan did not reject the object
 * Parameters and inputs live at the same addresses for every draw, so a cache keyed by pointer
 * returns stale results on the next draw and fails the comparison.
 *
 * The strict protocol's TF32 rule: where PyTorch's TF32 mode changes the problem's result (its
 * reference at KB_MATH_TF32 differs from the exact one on the first draw: the GEMMs, the
 * convolutions), a second verdict for the TF32 condition accepts TF32 math: the bound's rtol
 * grows by the operands' TF32 rounding (KB_TF32_OPERAND_RTOL) and the 10-bit precision probe
 * gives way to two that find what lies below TF32 (bf16's mantissa, fp16's range). Elsewhere,
 * and in the paper protocol, the TF32 verdict is the FP32 one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_gpu.h"
#include "kb_gpustage.h"
#include "kb_probes.h"
#include "core/kb_stage.h"
#include "core/kb_schema.h"

#define MAX_DISTS 32

/* One sample's run: the distributions' checks, then the probes' findings. */
typedef struct vd_run {
    kb_dist dists[MAX_DISTS]; /* the protocol's distributions that apply to the problem (kb_dist_applies) */
    uint32_t dindex[MAX_DISTS]; /* each one's index in the protocol's table: its seeds */
    size_t nd;
    kb_check checks[MAX_DISTS];
    int dpass[MAX_DISTS], dran[MAX_DISTS];
    int64_t dseed[MAX_DISTS];
    kb_outcome outcome;
    char detail[2048], reason[1024];
    int n_pass, n_skip, n_fail, n_out;
    kb_probe_result pr;
    /* the TF32 rule (strict only): -1 not judged, 0 the problem is not TF32 in PyTorch's TF32 mode, 1 it is */
    int tf32_rule;
    int dpass_tf32[MAX_DISTS], n_fail_tf32;
    double dexcess_tf32[MAX_DISTS];
    kb_outcome outcome_tf32;
    char detail_tf32[2048], reason_tf32[1024];
} vd_run;

/* Why draw d failed, from its worst output (tf32: under the TF32 rule's bound, into its texts). */
static void note_failure(const kb_protocol *P, vd_run *v, size_t d, int tf32)
{
    const kb_check *c = &v->checks[d];
    const kb_cmp_stats *w = &c->cmp[0];
    for (int i = 0; i < v->n_out; i++)
        if ((P->scaled_bound ? c->cmp[i].scaled_excess > w->scaled_excess : c->cmp[i].tau_req > w->tau_req))
            w = &c->cmp[i];
    char text[512], r[64];
    const kb_replay_stats *rp = &c->replay;
    if (!kb_check_replay_ok(c)) { /* live dropout: the mask read from the output is not dropout's */
        if (rp->repeated)
            snprintf(text, sizeof text, "%s: the same dropout mask as the previous call (%.3f%% of the elements differ)",
                     v->dists[d].name, 100.0 * rp->changed);
        else
            snprintf(text, sizeof text,
                     "%s: the dropout mask keeps %lld of %lld read (%.2f%%; p = %g keeps %.0f%%, %.1f sigmas off)",
                     v->dists[d].name, (long long)rp->kept, (long long)rp->n, 100.0 * (double)rp->kept / (double)rp->n,
                     rp->p, 100.0 * (1.0 - rp->p), rp->z);
        kb_append(tf32 ? v->detail_tf32 : v->detail, sizeof v->detail, text);
        snprintf(r, sizeof r, "fails %s: dropout mask", v->dists[d].name);
        kb_append(tf32 ? v->reason_tf32 : v->reason, sizeof v->reason, r);
        return;
    }
    if (tf32) {
        if (c->inputs_changed)
            snprintf(text, sizeof text, "%s: an input was modified", v->dists[d].name);
        else
            snprintf(text, sizeof text, "%s: error %.3g x the TF32 bound", v->dists[d].name, v->dexcess_tf32[d]);
        kb_append(v->detail_tf32, sizeof v->detail_tf32, text);
        snprintf(r, sizeof r, "fails %s", v->dists[d].name);
        kb_append(v->reason_tf32, sizeof v->reason_tf32, r);
        return;
    }
    const char *name = v->dists[d].name;
    if ((P->check_flags & KB_PCHECK_INPUT_HASH) && c->inputs_changed)
        snprintf(text, sizeof text, "%s: an input was modified", name);
    else if (P->scaled_bound)
        snprintf(text, sizeof text, "%s: error %.3g x the bound (%lld NaN; worst element %lld: ref %.9g, got %.9g)", name,
                 w->scaled_excess, (long long)w->n_nan_out, (long long)w->worst_index, w->worst_ref, w->worst_out);
    else
        snprintf(text, sizeof text, "%s: %lld of %lld not close at tau %g (needs %.3g; element %lld: ref %.9g, got %.9g)",
                 name, (long long)w->n_fail, (long long)w->n, w->tau, w->tau_req, (long long)w->worst_index,
                 w->worst_ref, w->worst_out);
    kb_append(v->detail, sizeof v->detail, text);
    snprintf(r, sizeof r, "fails %s", name);
    kb_append(v->reason, sizeof v->reason, r);
}

/* Distribution d's draws of the inputs and the parameters. */
static void dist_draws(const kb_cell_stage *c, const vd_run *v, size_t d, kb_draw *in, kb_draw *par)
{
    const char *id = c->p->id;
    *in = v->dists[d].inputs;
    in->seed = kb_seed(&c->st.cfg, id, KB_SEED_DIST, v->dindex[d]);
    *par = (kb_draw){kb_seed(&c->st.cfg, id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    if (v->dists[d].perturb_params) {
        *par = v->dists[d].params;
        par->seed = kb_seed(&c->st.cfg, id, KB_SEED_PARAMS, 1 + v->dindex[d]);
    }
}

/* Every distribution of the protocol, in order, until a call fails. */
static int check_dists(const kb_cell_stage *c, const kb_protocol *P, kb_session *s, vd_run *v, kb_err *err)
{
    for (size_t d = 0; d < v->nd && d < MAX_DISTS && v->outcome == KB_OUT_OK; d++) {
        kb_draw in, par;
        dist_draws(c, v, d, &in, &par);
        v->dseed[d] = (int64_t)in.seed;
        kb_check *k = &v->checks[d];
        unsigned flags = P->check_flags | (v->tf32_rule == 1 ? (unsigned)KB_CHECK_TF32 : 0u);
        if (kb_check_draw(s, &c->st.cfg, &in, &par, flags, k, err) != 0)
            return -1;
        v->dran[d] = 1;
        if (k->call.outcome != KB_OUT_OK) {
            v->outcome = k->call.outcome;
            snprintf(v->detail, sizeof v->detail, "%s: %s", v->dists[d].name, k->call.detail);
            snprintf(v->reason, sizeof v->reason, "%s on %s", kb_outcome_name(v->outcome), v->dists[d].name);
            break;
        }
        if (k->skipped) {
            v->n_skip++;
            continue;
        }
        kb_probe_note_call(&v->pr, &k->call.called, P->probes, d == 0, k->inputs_changed);
        if (v->tf32_rule == 1) {
            v->dexcess_tf32[d] = kb_check_tf32_excess(k);
            v->dpass_tf32[d] = kb_check_strict_pass_tf32(k);
            if (!v->dpass_tf32[d]) {
                v->n_fail_tf32++;
                note_failure(P, v, d, 1);
            }
        }
        v->dpass[d] = P->scaled_bound ? kb_check_strict_pass(k) : k->pass;
        if (v->dpass[d]) {
            v->n_pass++;
            continue;
        }
        v->n_fail++;
        note_failure(P, v, d, 0);
    }
    if (v->tf32_rule == 1) {
        v->outcome_tf32 = v->outcome != KB_OUT_OK ? v->outcome : v->n_fail_tf32 > 0 ? KB_OUT_WRONG : KB_OUT_OK;
        if (v->outcome != KB_OUT_OK) {
            snprintf(v->detail_tf32, sizeof v->detail_tf32, "%s", v->detail);
            snprintf(v->reason_tf32, sizeof v->reason_tf32, "%s", v->reason);
        }
    }
    if (v->outcome == KB_OUT_OK && v->n_fail > 0)
        v->outcome = KB_OUT_WRONG;
    return 0;
}

/* The TF32 rule's question, on the first distribution's draw (strict only). */
static int judge_tf32_rule(const kb_cell_stage *c, kb_session *s, vd_run *v, kb_err *err)
{
    kb_draw in, par;
    dist_draws(c, v, 0, &in, &par);
    int differs = 0;
    if (kb_session_draw(s, &in, &par, err) != 0 || kb_session_tf32_differs(s, &differs, err) != 0)
        return -1;
    v->tf32_rule = differs;
    return 0;
}

/* The strict probes on a sample that passed every distribution (under either verdict's bound),
 * and the verdicts drawn from them. A call that fails in a probe is both verdicts' outcome. */
static int run_probes(const kb_cell_stage *c, kb_session *s, vd_run *v, kb_err *err)
{
    kb_probe_ctx pc = {s, &c->st.cfg, c->p->id, v->dists[0].inputs, v->n_out, v->tf32_rule == 1};
    int fp32_ok = v->outcome == KB_OUT_OK, tf32_ok = v->tf32_rule == 1 && v->outcome_tf32 == KB_OUT_OK;
    kb_outcome o = KB_OUT_OK;
    char d[2048] = "";
    if (kb_probe_stale(&pc, &v->pr, &o, d, sizeof d, err) != 0)
        return -1;
    if (o == KB_OUT_OK && kb_session_alive(s) && fp32_ok &&
        kb_probe_precision(&pc, &v->pr, &o, d, sizeof d, err) != 0)
        return -1;
    if (o == KB_OUT_OK && kb_session_alive(s) && tf32_ok &&
        kb_probe_precision_tf32(&pc, &v->pr, &o, d, sizeof d, err) != 0)
        return -1;
    if (o == KB_OUT_OK && kb_session_alive(s) &&
        kb_probe_determinism(&pc, &v->pr, &o, d, sizeof d, err) != 0)
        return -1;
    if (o != KB_OUT_OK) {
        if (fp32_ok) {
            v->outcome = o;
            snprintf(v->detail, sizeof v->detail, "%s", d);
        }
        if (tf32_ok) {
            v->outcome_tf32 = o;
            snprintf(v->detail_tf32, sizeof v->detail_tf32, "%s", d);
        }
        return 0;
    }
    if (!kb_session_alive(s))
        return 0;
    int nd_ok = (c->p->flags & KB_PROB_NONDETERMINISTIC) != 0;
    char text[1400] = "";
    if (fp32_ok && kb_probe_verdict_rule(&v->pr, 0, nd_ok, c->verdict, c->reasons, text, sizeof text, v->reason,
                                         sizeof v->reason)) {
        v->outcome = KB_OUT_REJECTED;
        kb_append(v->detail, sizeof v->detail, text);
    }
    text[0] = '\0';
    if (tf32_ok && kb_probe_verdict_rule(&v->pr, 1, nd_ok, c->verdict, c->reasons, text, sizeof text,
                                         v->reason_tf32, sizeof v->reason_tf32)) {
        v->outcome_tf32 = KB_OUT_REJECTED;
        kb_append(v->detail_tf32, sizeof v->detail_tf32, text);
    }
    return 0;
}

/* /distributions: one entry per distribution of the protocol. */
static void write_distributions(kb_h5w *w, const kb_cell_stage *c, const vd_run *v)
{
    const char *names[MAX_DISTS] = {0};
    int64_t x[MAX_DISTS] = {0};
    size_t n = v->nd < MAX_DISTS ? v->nd : MAX_DISTS;
    for (size_t d = 0; d < n; d++)
        names[d] = v->dists[d].name;
    kb_h5w_strv(w, "/distributions/name", names, n);
    for (size_t d = 0; d < n; d++)
        x[d] = v->dran[d];
    kb_h5w_i64v(w, "/distributions/ran", x, n, NULL);
    for (size_t d = 0; d < n; d++)
        x[d] = v->checks[d].skipped;
    kb_h5w_i64v(w, "/distributions/skipped", x, n, NULL);
    for (size_t d = 0; d < n; d++)
        x[d] = v->dpass[d];
    kb_h5w_i64v(w, "/distributions/pass", x, n, NULL);
    kb_h5w_i64v(w, "/distributions/seed", v->dseed, n, NULL);
    if (v->tf32_rule == 1) {
        for (size_t d = 0; d < n; d++)
            x[d] = v->dpass_tf32[d];
        kb_h5w_i64v(w, "/distributions/pass_tf32", x, n, NULL);
        kb_h5w_f64v(w, "/distributions/tf32_excess", v->dexcess_tf32, n, NULL);
    }
    for (size_t d = 0; d < n; d++)
        x[d] = v->checks[d].inputs_changed;
    kb_h5w_i64v(w, "/distributions/inputs_changed", x, n, NULL);
    if (c->p->replay) { /* live dropout, strict: what the mask read from each draw's output showed */
        double keep[MAX_DISTS], changed[MAX_DISTS];
        for (size_t d = 0; d < n; d++) {
            const kb_replay_stats *rp = &v->checks[d].replay;
            keep[d] = rp->active && rp->n > 0 ? (double)rp->kept / (double)rp->n : NAN;
            changed[d] = rp->active && rp->changed >= 0.0 ? rp->changed : NAN;
            x[d] = rp->active ? rp->n : 0;
        }
        kb_h5w_f64v(w, "/distributions/dropout_keep", keep, n, NULL);
        kb_h5w_f64v(w, "/distributions/dropout_changed", changed, n, NULL);
        kb_h5w_i64v(w, "/distributions/dropout_read", x, n, NULL);
    }
    for (size_t d = 0; d < n; d++)
        names[d] = v->dran[d] ? kb_outcome_name(v->checks[d].call.outcome) : "not_run";
    kb_h5w_strv(w, "/distributions/outcome", names, n);
    for (size_t d = 0; d < n; d++)
        names[d] = v->dists[d].what;
    kb_h5w_strv(w, "/distributions/what", names, n);
    kb_msg_called calls[MAX_DISTS];
    for (size_t d = 0; d < n; d++)
        calls[d] = v->checks[d].call.called;
    kb_record_calls(w, "/distributions/calls", calls, n);
    for (int i = 0; i < v->n_out; i++) {
        kb_cmp_stats cmp[MAX_DISTS];
        for (size_t d = 0; d < n; d++)
            cmp[d] = v->checks[d].cmp[i];
        char g[256];
        snprintf(g, sizeof g, "/distributions/outputs/%s", c->p->outputs[i].name);
        kb_record_cmp(w, g, cmp, n);
    }
}

/* The largest error over the distributions that ran, in units of the strict bound (tf32: of the
 * TF32 rule's); NaN outside strict. The margins of docs/protocols.md's TF32 rule. */
static double excess_max(const vd_run *v, int tf32)
{
    double m = NAN;
    for (size_t d = 0; d < v->nd && d < MAX_DISTS; d++) {
        if (!v->dran[d] || v->checks[d].skipped || v->checks[d].call.outcome != KB_OUT_OK)
            continue;
        double x = tf32 ? v->dexcess_tf32[d] : 0.0;
        for (int i = 0; !tf32 && i < v->n_out; i++)
            x = fmax(x, v->checks[d].cmp[i].scaled_excess);
        m = isnan(m) ? x : fmax(m, x);
    }
    return m;
}

static int write_artifact(kb_cell_stage *c, const vd_run *v, const char *log_tail, kb_err *err)
{
    kb_h5w *w = kb_gpu_stage_artifact(&c->st, c->out, err);
    if (!w)
        return -1;
    const kb_probe_result *r = &v->pr;
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_RAN, 1);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_VERIFIED, v->outcome == KB_OUT_OK);
    kb_h5w_attr_i64(w, KB_ROOT, "dists_passed", v->n_pass);
    kb_h5w_attr_i64(w, KB_ROOT, "dists_failed", v->n_fail);
    kb_h5w_attr_i64(w, KB_ROOT, "dists_skipped", v->n_skip);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_REASON, v->reason);
    kb_h5w_attr_str(w, KB_ROOT, "scan_verdict", c->verdict);
    kb_h5w_group(w, "/probes");
    kb_h5w_attr_i64(w, "/probes", "deterministic", r->deterministic);
    kb_h5w_attr_i64(w, "/probes", "escaped_calls", r->escapes);
    kb_h5w_attr_i64(w, "/probes", "thread_growth_calls", r->thread_growth);
    kb_h5w_attr_i64(w, "/probes", "inputs_changed_draws", r->inputs_changed);
    kb_h5w_attr_i64(w, "/probes", "stale_cache", r->stale);
    kb_h5w_attr_i64(w, "/probes", "py_ext_called", r->py_calls ? r->py_ext_called : -1);
    kb_h5w_attr_i64(w, "/probes", "precision_downgrade", r->downgrade);
    kb_h5w_attr_f64(w, "/probes", "precision_distance_ratio", r->precision_ratio);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_TF32_RULE, v->tf32_rule);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_VERIFIED_TF32, v->outcome_tf32 == KB_OUT_OK);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_OUTCOME_TF32, kb_outcome_name(v->outcome_tf32));
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_REASON_TF32, v->reason_tf32);
    kb_h5w_attr_str(w, KB_ROOT, "detail_tf32", v->detail_tf32);
    kb_h5w_attr_f64(w, KB_ROOT, "excess_max", kb_config_protocol(&c->st.cfg)->scaled_bound ? excess_max(v, 0) : NAN);
    kb_h5w_attr_f64(w, KB_ROOT, "tf32_excess_max", v->tf32_rule == 1 ? excess_max(v, 1) : NAN);
    kb_h5w_attr_i64(w, "/probes", "stale_cache_tf32", r->stale_tf32);
    kb_h5w_attr_i64(w, "/probes", "precision_downgrade_bf16", r->downgrade_bf16);
    kb_h5w_attr_f64(w, "/probes", "precision_distance_ratio_bf16", r->precision_ratio_bf16);
    kb_h5w_attr_i64(w, "/probes", "fp16_range_fail", r->range_fail);
    kb_h5w_attr_f64(w, "/probes", "fp16_range_excess", r->range_excess);
    write_distributions(w, c, v);
    kb_h5w_text(w, "/log", log_tail ? log_tail : "");
    return kb_gpu_stage_finish(&c->st, w, v->outcome, v->detail, err);
}

int main(int argc, char **argv)
{
    static kb_cell_stage c = {.st = {.name = "verify-dists"}, .bin = "verify-distributions"};
    static vd_run v;
    kb_err err = {0};
    int rc = kb_cell_stage_open(&c, argc, argv,
                                "kb-verify-distributions: the hidden distributions (and, with --protocol strict, the anti-hack probes\n"
                                "and, where PyTorch's TF32 mode uses TF32, the TF32 condition's own verdict: docs/protocols.md).",
                                NULL, 0, 1, &err);
    if (rc != 0)
        return rc > 0 ? 0 : kb_stage_fail(c.bin, &err);
    const kb_protocol *P = kb_config_protocol(&c.st.cfg); /* what the protocol checks: its row */
    kb_call_outcome ready;
    kb_session *s = kb_cell_stage_session(&c, KB_LOCK_SHARED, kb_check_math(&c.st.cfg), P->reject_no_kernel, &ready, &err);
    if (!s)
        return kb_stage_fail(c.bin, &err);

    size_t n_all;
    const kb_dist *all = kb_protocol_dists(&c.st.cfg, &n_all);
    for (size_t d = 0; d < n_all && v.nd < MAX_DISTS; d++)
        if (kb_dist_applies(&all[d], c.p->flags)) {
            v.dindex[v.nd] = (uint32_t)d;
            v.dists[v.nd++] = all[d];
        }
    v.outcome = ready.outcome;
    snprintf(v.detail, sizeof v.detail, "%s", ready.detail);
    v.n_out = (int)c.p->n_outputs; /* at most KB_MAX_OUTPUTS: the loader refuses more */
    kb_probe_result_init(&v.pr);
    v.tf32_rule = -1;
    if (P->scaled_bound && v.outcome == KB_OUT_OK && judge_tf32_rule(&c, s, &v, &err) != 0)
        return kb_stage_fail(c.bin, &err);
    if (check_dists(&c, P, s, &v, &err) != 0)
        return kb_stage_fail(c.bin, &err);
    if (P->probes && (v.outcome == KB_OUT_OK || (v.tf32_rule == 1 && v.outcome_tf32 == KB_OUT_OK)) &&
        kb_session_alive(s)) {
        if (run_probes(&c, s, &v, &err) != 0)
            return kb_stage_fail(c.bin, &err);
    }
    if (P->probes && v.outcome == KB_OUT_WRONG && v.pr.inputs_changed)
        kb_append(v.reason, sizeof v.reason, "modifies inputs");
    if (P->probes && v.tf32_rule == 1 && v.outcome_tf32 == KB_OUT_WRONG && v.pr.inputs_changed)
        kb_append(v.reason_tf32, sizeof v.reason_tf32, "modifies inputs");
    if (v.tf32_rule != 1) { /* no TF32 rule here: the TF32 condition's verdict is the FP32 one */
        v.outcome_tf32 = v.outcome;
        snprintf(v.reason_tf32, sizeof v.reason_tf32, "%s", v.reason);
        snprintf(v.detail_tf32, sizeof v.detail_tf32, "%s", v.detail);
    }
    char *log_tail = kb_session_log_tail(s, 16384);
    kb_session_close(s);
    rc = write_artifact(&c, &v, log_tail, &err);
    free(log_tail);
    if (rc != 0)
        return kb_stage_fail(c.bin, &err);
    char tf32_text[1200] = "";
    if (v.tf32_rule == 1)
        snprintf(tf32_text, sizeof tf32_text, " | TF32 rule: %s%s%s (errors up to %.3g x the TF32 bound, %.3g x the fp32 one)",
                 v.outcome_tf32 == KB_OUT_OK ? "VERIFIED" : kb_outcome_name(v.outcome_tf32), v.reason_tf32[0] ? ", " : "",
                 v.reason_tf32, excess_max(&v, 1), excess_max(&v, 0));
    kb_progress(&c.st, "%s %d/%zu pass, %d skipped%s%s%s", v.outcome == KB_OUT_OK ? "VERIFIED" : kb_outcome_name(v.outcome),
                v.n_pass, v.nd, v.n_skip, v.reason[0] ? " | " : "", v.reason, tf32_text);
    if (v.outcome != KB_OUT_OK && v.detail[0])
        printf("    %s\n", v.detail);
    if (v.tf32_rule == 1 && v.outcome_tf32 != KB_OUT_OK && v.detail_tf32[0])
        printf("    TF32 rule: %s\n", v.detail_tf32);
    return 0;
}
