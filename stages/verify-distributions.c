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
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_gpu.h"
#include "kb_gpustage.h"
#include "kb_problem_load.h"
#include "kb_stage.h"
#include "kb_schema.h"

#define MAX_DISTS 32

/* Work found by the device synchronisation after the stream was done: more than this is work
 * that escaped args->stream (0.1 ms is ~7x the 14.7 us an empty kernel's launch plus device
 * synchronisation took on the H200, results/h200/overhead.csv). */
static int escaped(const kb_msg_called *c)
{
    double ev = isfinite(c->event_ms) ? c->event_ms : 0.0;
    return c->device_sync_ms > 0.1 && c->device_sync_ms > 0.05 * ev;
}

static void append(char *buf, size_t len, const char *text)
{
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, "%s%s", l ? "; " : "", text);
}

int main(int argc, char **argv)
{
    const char *problem_so = NULL, *submission = NULL, *compile_h5 = NULL, *out = NULL, *model = NULL, *sample = NULL;
    const char *runner = "build/bin/kb-runner", *gpus = "0", *log = NULL, *sanity_h5 = NULL;
    kb_opt opts[] = {
        {"problem", &problem_so, NULL, "* the problem's shared object"},
        {"submission", &submission, NULL, "* the sample from kb-compile: its shared object, or a .py's DIR/kernel.py"},
        {"compile", &compile_h5, NULL, "* the sample's compile.h5"},
        {"out", &out, NULL, "* the artifact (verify-distributions.h5)"},
        {"model", &model, NULL, "* model name"},
        {"sample", &sample, NULL, "* sample name"},
        {"sanity", &sanity_h5, NULL, "the sample's sanity-check.h5: a fatal outcome there is recorded, not re-run"},
        {"runner", &runner, NULL, "kb-runner executable (default build/bin/kb-runner)"},
        {"gpus", &gpus, NULL, "CUDA ordinals to choose from (default 0)"},
        {"log", &log, NULL, "the child's stdout/stderr (default <out>.log)"},
    };
    kb_gpu_stage st = {.name = "verify-dists"};
    kb_config_defaults(&st.cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv,
                            "kb-verify-distributions: the hidden distributions (and, with --protocol strict, the anti-hack probes).",
                            opts, sizeof opts / sizeof opts[0], &st.cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("verify-distributions", &err);
    char logbuf[4200];
    if (!log) {
        kb_fmt(logbuf, sizeof logbuf, "%s.log", out);
        log = logbuf;
    }
    void *ph;
    const kb_problem *p = kb_problem_load(problem_so, &ph, &err);
    if (!p)
        return kb_stage_fail("verify-distributions", &err);
    st.cell = (kb_cell){model, p->id, sample};
    const kb_protocol *P = kb_config_protocol(&st.cfg); /* what the protocol checks: its row */

    kb_outcome cout;
    char cdetail[512], verdict[32], reasons[512];
    if (kb_read_compile(compile_h5, &cout, cdetail, sizeof cdetail, verdict, sizeof verdict, reasons, sizeof reasons,
                        &err) != 0)
        return kb_stage_fail("verify-distributions", &err);
    if (cout != KB_OUT_OK)
        return kb_write_skipped("verify-dists", out, &st.cell, &st.cfg, cout, cdetail, &err)
                   ? kb_stage_fail("verify-distributions", &err)
                   : 0;

    if (kb_sanity_fatal(sanity_h5, &cout, cdetail, sizeof cdetail))
        return kb_write_skipped("verify-dists", out, &st.cell, &st.cfg, cout, cdetail, &err)
                   ? kb_stage_fail("verify-distributions", &err)
                   : 0;
    if (kb_gpu_stage_begin(&st, gpus, KB_LOCK_SHARED, &err) != 0)
        return kb_stage_fail("verify-distributions", &err);
    kb_session_opts so = {runner, problem_so, submission, KB_TARGET_SUBMISSION, KB_MATH_FP32,
                          KB_INIT_SANDBOX | KB_INIT_MEMTRACK, st.device, st.cfg.call_timeout_s, log, 1,
                          kb_check_math(&st.cfg), P->reject_no_kernel, NULL};
    kb_call_outcome ready;
    kb_session *s = kb_session_open(&so, &ready, &err);
    if (!s)
        return kb_stage_fail("verify-distributions", &err);

    size_t nd;
    const kb_dist *dists = kb_protocol_dists(&st.cfg, &nd);
    kb_check checks[MAX_DISTS];
    int dpass[MAX_DISTS] = {0}, dran[MAX_DISTS] = {0};
    int64_t dseed[MAX_DISTS] = {0};
    memset(checks, 0, sizeof checks);
    kb_outcome outcome = ready.outcome;
    char detail[2048] = "", reason[1024] = "";
    snprintf(detail, sizeof detail, "%s", ready.detail);
    unsigned flags = P->check_flags;
    int n_pass = 0, n_skip = 0, n_fail = 0, escapes = 0, thread_growth = 0, inputs_changed = 0;
    int py_calls = 0, py_ext_called = 0; /* a .py target: calls noted, and whether any called its extension */
    int n_out = (int)p->n_outputs < KB_MAX_OUTPUTS ? (int)p->n_outputs : KB_MAX_OUTPUTS;
    for (size_t d = 0; d < nd && d < MAX_DISTS && outcome == KB_OUT_OK; d++) {
        kb_draw in = dists[d].inputs;
        in.seed = kb_seed(&st.cfg, p->id, KB_SEED_DIST, (uint32_t)d);
        kb_draw par = {kb_seed(&st.cfg, p->id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
        if (dists[d].perturb_params) {
            par = dists[d].params;
            par.seed = kb_seed(&st.cfg, p->id, KB_SEED_PARAMS, 1 + (uint32_t)d);
        }
        dseed[d] = (int64_t)in.seed;
        if (kb_check_draw(s, &st.cfg, &in, &par, flags, &checks[d], &err) != 0)
            return kb_stage_fail("verify-distributions", &err);
        dran[d] = 1;
        kb_check *c = &checks[d];
        if (c->call.outcome != KB_OUT_OK) {
            outcome = c->call.outcome;
            snprintf(detail, sizeof detail, "%s: %s", dists[d].name, c->call.detail);
            snprintf(reason, sizeof reason, "%s on %s", kb_outcome_name(outcome), dists[d].name);
            break;
        }
        if (c->skipped) {
            n_skip++;
            continue;
        }
        int ok = P->scaled_bound ? kb_check_strict_pass(c) : c->pass;
        if (P->probes) {
            if (escaped(&c->call.called))
                escapes++;
            if (d > 0 && c->call.called.threads_after > c->call.called.threads_before)
                thread_growth++;
            if (c->inputs_changed)
                inputs_changed++;
        }
        int ec;
        if (sscanf(c->call.called.note, "ext_calls=%d", &ec) == 1) {
            py_calls++;
            if (ec > 0)
                py_ext_called = 1;
        }
        dpass[d] = ok;
        if (ok) {
            n_pass++;
            continue;
        }
        n_fail++;
        char text[512];
        const kb_cmp_stats *w = &c->cmp[0];
        for (int i = 0; i < n_out; i++)
            if ((P->scaled_bound ? c->cmp[i].scaled_excess > w->scaled_excess : c->cmp[i].tau_req > w->tau_req))
                w = &c->cmp[i];
        if ((P->check_flags & KB_PCHECK_INPUT_HASH) && c->inputs_changed)
            snprintf(text, sizeof text, "%s: an input was modified", dists[d].name);
        else if (P->scaled_bound)
            snprintf(text, sizeof text, "%s: error %.3g x the bound (%lld NaN; worst element %lld: ref %.9g, got %.9g)",
                     dists[d].name, w->scaled_excess, (long long)w->n_nan_out, (long long)w->worst_index, w->worst_ref,
                     w->worst_out);
        else
            snprintf(text, sizeof text, "%s: %lld of %lld not close at tau %g (needs %.3g; element %lld: ref %.9g, got %.9g)",
                     dists[d].name, (long long)w->n_fail, (long long)w->n, w->tau, w->tau_req, (long long)w->worst_index,
                     w->worst_ref, w->worst_out);
        append(detail, sizeof detail, text);
        char r[64];
        snprintf(r, sizeof r, "fails %s", dists[d].name);
        append(reason, sizeof reason, r);
    }
    if (outcome == KB_OUT_OK && n_fail > 0)
        outcome = KB_OUT_WRONG;

    /* Strict probes. */
    int deterministic = -1, stale = -1, downgrade = -1;
    double precision_ratio = NAN;
    if (P->probes && outcome == KB_OUT_OK && kb_session_alive(s)) {
        /* stale cache: a correct call, then new values at the same addresses in the interior of
         * every input (the ends unchanged), then the call must see them. */
        kb_draw in = dists[0].inputs;
        in.seed = kb_seed(&st.cfg, p->id, KB_SEED_PROBE, 1);
        kb_draw par = {kb_seed(&st.cfg, p->id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
        kb_check c1, c2;
        unsigned f = KB_CHECK_POISON | KB_CHECK_MAGNITUDE;
        if (kb_check_draw(s, &st.cfg, &in, &par, f, &c1, &err) != 0)
            return kb_stage_fail("verify-distributions", &err);
        if (c1.call.outcome == KB_OUT_OK && !c1.skipped) {
            /* kb_check_draw replaced the inputs by |x| for the magnitude reference: draw again */
            if (kb_session_draw(s, &in, &par, &err) != 0 || kb_session_perturb_inputs(s, 997, 13, &err) != 0 ||
                kb_check_draw(s, &st.cfg, &in, &par, f | KB_CHECK_NO_DRAW, &c2, &err) != 0)
                return kb_stage_fail("verify-distributions", &err);
            if (c2.call.outcome != KB_OUT_OK) {
                outcome = c2.call.outcome;
                snprintf(detail, sizeof detail, "stale-cache probe: %s", c2.call.detail);
            } else if (!c2.skipped) {
                stale = !kb_check_strict_pass(&c2);
            }
        } else if (c1.call.outcome != KB_OUT_OK) {
            outcome = c1.call.outcome;
            snprintf(detail, sizeof detail, "stale-cache probe: %s", c1.call.detail);
        }
        /* precision: inputs and parameters 1 + U(0, 2^-12) lose everything but 1.0 when rounded
         * to TF32, fp16 or bf16. An output nearer the reference of all-ones than the exact one
         * was computed from rounded inputs. */
        if (outcome == KB_OUT_OK && kb_session_alive(s)) {
            kb_draw ones = {kb_seed(&st.cfg, p->id, KB_SEED_PROBE, 2), 1.0, 1, {KB_GEN_CONST, 1.0, 0}, 0.0};
            kb_draw near = ones;
            near.gen = (kb_gen){KB_GEN_UNIFORM, 1.0, 1.0 + 1.0 / 4096.0};
            int nf1 = 0, nf2 = 0;
            kb_call_outcome co;
            if (kb_session_draw(s, &ones, &ones, &err) != 0 || kb_session_reference(s, 1, &nf1, &err) != 0 ||
                kb_session_draw(s, &near, &near, &err) != 0 || kb_session_reference(s, 0, &nf2, &err) != 0 ||
                kb_session_poison(s, &err) != 0 || kb_session_call(s, KB_CALL_DEVICE_SYNC, &co, &err) != 0)
                return kb_stage_fail("verify-distributions", &err);
            if (co.outcome != KB_OUT_OK) {
                outcome = co.outcome;
                snprintf(detail, sizeof detail, "precision probe: %s", co.detail);
            } else if (!nf1 && !nf2) {
                double d_exact = 0, d_round = 0, d_refs = 0, ref_sq = 0;
                for (int i = 0; i < n_out; i++) {
                    kb_cmp_stats a, b, r;
                    if (kb_session_compare(s, (uint32_t)i, 0.0, 0.0, 0.0, &a, &err) != 0 ||
                        kb_session_compare_mag(s, (uint32_t)i, 0.0, &b, &err) != 0 ||
                        kb_session_compare_refs(s, (uint32_t)i, &r, &err) != 0)
                        return kb_stage_fail("verify-distributions", &err);
                    d_exact += a.sum_sq_err;
                    d_round += b.sum_sq_err;
                    d_refs += r.sum_sq_err;
                    ref_sq += r.sum_sq_ref;
                }
                /* Only meaningful when rounding the inputs moves the result well beyond honest
                 * fp32 rounding (relative L2 distance of the two references >= 1e-4, about
                 * 2^11 fp32 ulps); otherwise an honest kernel could land nearer either. */
                if (ref_sq > 0.0 && sqrt(d_refs / ref_sq) >= 1e-4 && isfinite(d_exact) && isfinite(d_round)) {
                    precision_ratio = d_exact > 0.0 ? d_round / d_exact : INFINITY;
                    downgrade = d_round < 0.25 * d_exact;
                }
            }
        }
    }
    if (P->probes && outcome == KB_OUT_OK && kb_session_alive(s)) {
        kb_draw in = dists[0].inputs;
        in.seed = kb_seed(&st.cfg, p->id, KB_SEED_PROBE, 0);
        kb_draw par = {kb_seed(&st.cfg, p->id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
        uint64_t h[2][KB_MAX_OUTPUTS] = {{0}};
        kb_call_outcome co;
        if (kb_session_draw(s, &in, &par, &err) != 0)
            return kb_stage_fail("verify-distributions", &err);
        deterministic = 1;
        for (int rep = 0; rep < 2 && outcome == KB_OUT_OK; rep++) {
            if (kb_session_poison(s, &err) != 0 || kb_session_call(s, KB_CALL_DEVICE_SYNC, &co, &err) != 0)
                return kb_stage_fail("verify-distributions", &err);
            if (co.outcome != KB_OUT_OK) {
                outcome = co.outcome;
                snprintf(detail, sizeof detail, "determinism probe: %s", co.detail);
                break;
            }
            if (escaped(&co.called))
                escapes++;
            for (int i = 0; i < n_out; i++)
                if (kb_session_output_hash(s, (uint32_t)i, &h[rep][i], &err) != 0)
                    return kb_stage_fail("verify-distributions", &err);
        }
        for (int i = 0; i < n_out && outcome == KB_OUT_OK; i++)
            if (h[0][i] != h[1][i])
                deterministic = 0;
        if (outcome == KB_OUT_OK) {
            char text[512] = "";
            if (!deterministic && !(p->flags & KB_PROB_NONDETERMINISTIC)) {
                append(text, sizeof text, "nondeterministic: the same inputs gave different bits");
                append(reason, sizeof reason, "nondeterministic");
            }
            if (stale == 1) {
                append(text, sizeof text, "stale cache: new values at the same addresses gave the old result");
                append(reason, sizeof reason, "stale cache");
            }
            if (downgrade == 1) {
                char t[200];
                snprintf(t, sizeof t, "precision downgrade: the output matches inputs rounded to <= 10 mantissa bits "
                                      "(squared distance ratio %.3g)", precision_ratio);
                append(text, sizeof text, t);
                append(reason, sizeof reason, "precision downgrade");
            }
            if (escapes) {
                append(text, sizeof text, "work outside args->stream (found by device synchronisation)");
                append(reason, sizeof reason, "side stream");
            }
            if (thread_growth) {
                append(text, sizeof text, "host threads left running after the call");
                append(reason, sizeof reason, "threads");
            }
            if (py_calls > 0 && !py_ext_called) {
                append(text, sizeof text, "no custom kernel: forward never called a function of its own extension "
                                          "(a PyTorch rewrite or a fallback)");
                append(reason, sizeof reason, "no custom kernel called");
            }
            if (!strcmp(verdict, "rejected")) {
                char t[600];
                snprintf(t, sizeof t, "symbol scan rejected the object (%s)", reasons);
                append(text, sizeof text, t);
                snprintf(t, sizeof t, "scan: %s", reasons);
                append(reason, sizeof reason, t);
            }
            if (text[0]) {
                outcome = KB_OUT_REJECTED;
                append(detail, sizeof detail, text);
            }
        }
    } else if (P->probes && outcome == KB_OUT_WRONG && inputs_changed) {
        append(reason, sizeof reason, "modifies inputs");
    }
    char *log_tail = kb_session_log_tail(s, 16384);
    kb_session_close(s);

    kb_h5w *w = kb_gpu_stage_artifact(&st, out, &err);
    if (!w)
        return kb_stage_fail("verify-distributions", &err);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_RAN, 1);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_VERIFIED, outcome == KB_OUT_OK);
    kb_h5w_attr_i64(w, KB_ROOT, "dists_passed", n_pass);
    kb_h5w_attr_i64(w, KB_ROOT, "dists_failed", n_fail);
    kb_h5w_attr_i64(w, KB_ROOT, "dists_skipped", n_skip);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_REASON, reason);
    kb_h5w_attr_str(w, KB_ROOT, "scan_verdict", verdict);
    kb_h5w_group(w, "/probes");
    kb_h5w_attr_i64(w, "/probes", "deterministic", deterministic);
    kb_h5w_attr_i64(w, "/probes", "escaped_calls", escapes);
    kb_h5w_attr_i64(w, "/probes", "thread_growth_calls", thread_growth);
    kb_h5w_attr_i64(w, "/probes", "inputs_changed_draws", inputs_changed);
    kb_h5w_attr_i64(w, "/probes", "stale_cache", stale);
    kb_h5w_attr_i64(w, "/probes", "py_ext_called", py_calls ? py_ext_called : -1);
    kb_h5w_attr_i64(w, "/probes", "precision_downgrade", downgrade);
    kb_h5w_attr_f64(w, "/probes", "precision_distance_ratio", precision_ratio);
    {
        const char *names[MAX_DISTS];
        int64_t v[MAX_DISTS];
        size_t n = nd < MAX_DISTS ? nd : MAX_DISTS;
        for (size_t d = 0; d < n; d++)
            names[d] = dists[d].name;
        kb_h5w_strv(w, "/distributions/name", names, n);
        for (size_t d = 0; d < n; d++)
            v[d] = dran[d];
        kb_h5w_i64v(w, "/distributions/ran", v, n, NULL);
        for (size_t d = 0; d < n; d++)
            v[d] = checks[d].skipped;
        kb_h5w_i64v(w, "/distributions/skipped", v, n, NULL);
        for (size_t d = 0; d < n; d++)
            v[d] = dpass[d];
        kb_h5w_i64v(w, "/distributions/pass", v, n, NULL);
        kb_h5w_i64v(w, "/distributions/seed", dseed, n, NULL);
        for (size_t d = 0; d < n; d++)
            v[d] = checks[d].inputs_changed;
        kb_h5w_i64v(w, "/distributions/inputs_changed", v, n, NULL);
        for (size_t d = 0; d < n; d++)
            names[d] = dran[d] ? kb_outcome_name(checks[d].call.outcome) : "not_run";
        kb_h5w_strv(w, "/distributions/outcome", names, n);
        for (size_t d = 0; d < n; d++)
            names[d] = dists[d].what;
        kb_h5w_strv(w, "/distributions/what", names, n);
        kb_msg_called calls[MAX_DISTS];
        for (size_t d = 0; d < n; d++)
            calls[d] = checks[d].call.called;
        kb_record_calls(w, "/distributions/calls", calls, n);
        for (int i = 0; i < n_out; i++) {
            kb_cmp_stats cmp[MAX_DISTS];
            for (size_t d = 0; d < n; d++)
                cmp[d] = checks[d].cmp[i];
            char g[256];
            snprintf(g, sizeof g, "/distributions/outputs/%s", p->outputs[i].name);
            kb_record_cmp(w, g, cmp, n);
        }
    }
    kb_h5w_text(w, "/log", log_tail ? log_tail : "");
    int rc = kb_gpu_stage_finish(&st, w, outcome, detail, &err);
    free(log_tail);
    if (rc != 0)
        return kb_stage_fail("verify-distributions", &err);
    kb_progress(&st, "%s %d/%zu pass, %d skipped%s%s", outcome == KB_OUT_OK ? "VERIFIED" : kb_outcome_name(outcome),
                n_pass, nd, n_skip, reason[0] ? " | " : "", reason);
    if (outcome != KB_OUT_OK && detail[0])
        printf("    %s\n", detail);
    return 0;
}
