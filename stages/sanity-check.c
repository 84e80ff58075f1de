/*
 * kb-sanity-check -- the standard (KernelBench) check of one sample, then its timing.
 *
 * Correctness: STD_TRIALS trials, each with fresh inputs from the problem's generators
 * (parameters drawn once), every output compared with the reference computed by this process
 * at PyTorch's default flags, allclose(atol = rtol = TAU). The submission runs in a sandboxed
 * kb-runner child that never sees the reference output. Then, if every trial passed, the kernel
 * is timed on the standard inputs with the protocol's timer (every raw sample kept).
 * The standard check is the same in both protocols (it is KernelBench's); the protocol chooses
 * the timer. --no-timing leaves the timing out (the mutation report's checks: a mutant's time
 * means nothing) and takes the GPU shared, as the other checks do; @timed is then 0 and
 * @timing_skipped 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_gpu.h"
#include "kb_gpustage.h"
#include "core/kb_problem_load.h"
#include "core/kb_stage.h"
#include "core/kb_schema.h"

/* One sample's standard check and timing. */
typedef struct sc_run {
    int T, n_out, ran, passed, timed;
    kb_check *checks;
    int64_t *seeds;
    kb_draw params;
    double worst_tau;
    kb_outcome outcome;
    char detail[1200];
    kb_msg_time treq;
    kb_msg_timed th;
    kb_msg_sample *samples;
} sc_run;

/* Every trial runs unless a call fails (a wrong answer is not fatal): the stored tau_req of all
 * trials lets the tables re-judge the sample at any other tolerance. */
static int run_trials(const kb_cell_stage *c, kb_session *s, sc_run *r, kb_err *err)
{
    for (int t = 0; t < r->T && (r->outcome == KB_OUT_OK || r->outcome == KB_OUT_WRONG); t++) {
        kb_draw in = {kb_seed(&c->st.cfg, c->p->id, KB_SEED_STD_TRIAL, (uint32_t)t), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
        r->seeds[t] = (int64_t)in.seed;
        kb_check *k = &r->checks[t];
        if (kb_check_draw(s, &c->st.cfg, &in, &r->params, 0, k, err) != 0)
            return -1;
        r->ran++;
        if (k->call.outcome != KB_OUT_OK) {
            r->outcome = k->call.outcome;
            snprintf(r->detail, sizeof r->detail, "trial %d: %s", t, k->call.detail);
            break;
        }
        if (k->skipped)
            continue; /* the reference itself is non-finite on this draw */
        for (int i = 0; i < r->n_out && i < KB_MAX_OUTPUTS; i++)
            if (k->cmp[i].tau_req > r->worst_tau)
                r->worst_tau = k->cmp[i].tau_req;
        if (k->pass) {
            r->passed++;
        } else if (r->outcome == KB_OUT_OK) {
            r->outcome = KB_OUT_WRONG;
            const kb_cmp_stats *w = &k->cmp[0];
            for (int i = 0; i < r->n_out && i < KB_MAX_OUTPUTS; i++)
                if (!(k->cmp[i].tau_req <= w->tau))
                    w = &k->cmp[i];
            snprintf(r->detail, sizeof r->detail,
                     "trial %d: %lld of %lld elements not close at tau %g (needs tau %.3g; element %lld: ref %.9g, got %.9g)",
                     t, (long long)w->n_fail, (long long)w->n, w->tau, w->tau_req, (long long)w->worst_index,
                     w->worst_ref, w->worst_out);
        }
    }
    return 0;
}

/* Timing on the standard inputs. KernelBench times correct samples only; we also time samples
 * whose every call succeeded but whose answer was off, so that the tables can be recomputed at
 * any other tolerance from this archive (tolerance sensitivity). */
static int time_kernel(const kb_cell_stage *c, kb_session *s, sc_run *r, kb_err *err)
{
    if (!(r->outcome == KB_OUT_OK || r->outcome == KB_OUT_WRONG) || !kb_session_alive(s))
        return 0;
    kb_draw in = {kb_seed(&c->st.cfg, c->p->id, KB_SEED_TIMING, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    if (kb_session_draw(s, &in, &r->params, err) != 0)
        return -1;
    kb_time_request(&c->st.cfg, &r->treq, kb_seed(&c->st.cfg, c->p->id, KB_SEED_TIMING, 1));
    kb_call_outcome tco = {0};
    if (kb_session_time(s, &r->treq, &r->th, &r->samples, &tco, err) != 0)
        return -1;
    if (tco.outcome == KB_OUT_OK) {
        r->timed = 1;
    } else if (r->outcome == KB_OUT_OK) {
        r->outcome = tco.outcome;
        snprintf(r->detail, sizeof r->detail, "while timing: %s", tco.detail);
    }
    return 0;
}

/* /trials: one entry per trial run. */
static int write_trials(kb_h5w *w, const kb_cell_stage *c, const sc_run *r, kb_err *err)
{
    size_t n = (size_t)r->ran, room = n ? n : 1;
    int64_t *v = calloc(room, sizeof *v);
    const char **names = calloc(room, sizeof *names);
    kb_msg_called *calls = calloc(room, sizeof *calls);
    kb_cmp_stats *cmp = calloc(room, sizeof *cmp);
    int rc = 0;
    if (!v || !names || !calls || !cmp) {
        kb_errf(err, KB_EXIT_FAIL, "out of memory");
        rc = -1;
        goto out;
    }
    kb_h5w_group(w, KB_GRP_TRIALS);
    kb_h5w_i64v(w, "/trials/seed", r->seeds, n, NULL);
    for (size_t t = 0; t < n; t++) {
        v[t] = r->checks[t].pass;
        names[t] = kb_outcome_name(r->checks[t].call.outcome);
        calls[t] = r->checks[t].call.called;
    }
    kb_h5w_i64v(w, "/trials/pass", v, n, NULL);
    for (size_t t = 0; t < n; t++)
        v[t] = r->checks[t].skipped;
    kb_h5w_i64v(w, "/trials/skipped", v, n, NULL);
    kb_h5w_strv(w, "/trials/outcome", names, n);
    kb_record_calls(w, "/trials/calls", calls, n);
    for (int i = 0; i < r->n_out && i < KB_MAX_OUTPUTS; i++) {
        char g[256];
        snprintf(g, sizeof g, "/trials/outputs/%s", c->p->outputs[i].name);
        for (size_t t = 0; t < n; t++)
            cmp[t] = r->checks[t].cmp[i];
        kb_record_cmp(w, g, cmp, n);
    }
out:
    free(v);
    free(names);
    free(calls);
    free(cmp);
    return rc;
}

static int write_artifact(kb_cell_stage *c, const sc_run *r, const char *log_tail, int no_timing, kb_err *err)
{
    kb_h5w *w = kb_gpu_stage_artifact(&c->st, c->out, err);
    if (!w)
        return -1;
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_RAN, 1);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_CORRECT, r->outcome == KB_OUT_OK);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_TRIALS_RUN, r->ran);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_TRIALS_PASSED, r->passed);
    kb_h5w_attr_f64(w, KB_ROOT, "tau_req_max", r->worst_tau);
    kb_h5w_attr_i64(w, KB_ROOT, "resident_bytes", (int64_t)kb_problem_resident_bytes(c->p));
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_TIMED, r->timed);
    kb_h5w_attr_i64(w, KB_ROOT, "timing_skipped", no_timing);
    if (write_trials(w, c, r, err) != 0) {
        kb_h5w_abort(w);
        return -1;
    }
    if (r->timed)
        kb_record_timing(w, "/timing/kernel", &r->treq, &r->th, r->samples);
    kb_h5w_text(w, "/log", log_tail ? log_tail : "");
    return kb_gpu_stage_finish(&c->st, w, r->outcome, r->detail, err);
}

int main(int argc, char **argv)
{
    static kb_cell_stage c = {.st = {.name = "sanity-check"}, .bin = "sanity-check"};
    static sc_run r;
    static int no_timing;
    kb_err err = {0};
    kb_opt extra[] = {{"no-timing", NULL, &no_timing, "the standard check only, GPU shared (the mutation report's checks)"}};
    int rc = kb_cell_stage_open(&c, argc, argv,
                                "kb-sanity-check: the standard check (STD_TRIALS trials, allclose TAU) and the kernel's timing.",
                                extra, 1, 0, &err);
    if (rc != 0)
        return rc > 0 ? 0 : kb_stage_fail(c.bin, &err);
    kb_call_outcome ready;
    kb_session *s = kb_cell_stage_session(&c, no_timing ? KB_LOCK_SHARED : KB_LOCK_TIMING, KB_MATH_FP32, 0, &ready, &err);
    if (!s)
        return kb_stage_fail(c.bin, &err);
    r.T = c.st.cfg.std_trials;
    r.n_out = (int)c.p->n_outputs;
    r.checks = calloc((size_t)r.T, sizeof *r.checks);
    r.seeds = calloc((size_t)r.T, sizeof *r.seeds);
    if (!r.checks || !r.seeds) {
        kb_errf(&err, KB_EXIT_FAIL, "out of memory");
        return kb_stage_fail(c.bin, &err);
    }
    r.outcome = ready.outcome;
    snprintf(r.detail, sizeof r.detail, "%s", ready.detail);
    r.params = (kb_draw){kb_seed(&c.st.cfg, c.p->id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    if (run_trials(&c, s, &r, &err) != 0 || (!no_timing && time_kernel(&c, s, &r, &err) != 0))
        return kb_stage_fail(c.bin, &err);
    char *log_tail = kb_session_log_tail(s, 16384);
    kb_session_close(s);
    rc = write_artifact(&c, &r, log_tail, no_timing, &err);
    if (rc != 0)
        return kb_stage_fail(c.bin, &err);
    char tbuf[64] = "-";
    if (r.timed)
        kb_fmt_ms(tbuf, sizeof tbuf, kb_timing_reported_ms(&r.treq, &r.th, r.samples));
    kb_progress(&c.st, "%s %d/%d tau_req %.2g | kernel %s", r.outcome == KB_OUT_OK ? "PASS" : kb_outcome_name(r.outcome),
                r.passed, r.T, r.worst_tau, tbuf);
    if (r.outcome != KB_OUT_OK)
        printf("    %s\n", r.detail);
    free(r.samples);
    free(log_tail);
    free(r.checks);
    free(r.seeds);
    return 0;
}
