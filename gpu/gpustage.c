/* gpustage.c -- see kb_gpustage.h. */
#include "kb_gpustage.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kb_gpu.h"
#include "core/kb_problem_load.h"
#include "kb_session.h"
#include "core/kb_schema.h"

int kb_gpu_stage_begin(kb_gpu_stage *st, const char *gpus, int lock_mode, kb_err *err)
{
    st->t0 = kb_now_s();
    if (kb_gpu_acquire(gpus, lock_mode, &st->device, &st->lock_fd, err) != 0)
        return -1;
    kb_gpu_env(st->device, &st->env);
    return 0;
}

kb_h5w *kb_gpu_stage_artifact(kb_gpu_stage *st, const char *path, kb_err *err)
{
    kb_h5w *w = kb_artifact_begin(path, st->name, &st->cell, &st->cfg, err);
    if (w) {
        kb_artifact_env(w, &st->env);
        const char *sb = kb_session_last_sandbox();
        kb_h5w_attr_str(w, KB_ROOT, "sandbox", sb[0] ? sb : "none");
        const char *kind = kb_session_last_kind();
        kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_SUBMISSION_KIND, kind[0] ? kind : "none");
    }
    return w;
}

int kb_gpu_stage_finish(kb_gpu_stage *st, kb_h5w *w, kb_outcome outcome, const char *detail, kb_err *err)
{
    kb_h5w_attr_f64(w, KB_ROOT, KB_ATTR_SM_CLOCK_AFTER, kb_gpu_sm_clock_mhz(st->device));
    kb_h5w_attr_f64(w, KB_ROOT, "stage_wall_s", kb_now_s() - st->t0);
    return kb_artifact_finish(w, outcome, detail, err);
}

int kb_read_compile(const char *path, kb_outcome *outcome, char *detail, size_t dlen, char *verdict, size_t vlen,
                    char *reasons, size_t rlen, kb_err *err)
{
    kb_h5r *r = kb_h5r_open(path, err);
    if (!r)
        return -1;
    char name[64];
    int rc = kb_h5r_attr_str(r, "/", "outcome", name, sizeof name, err);
    if (rc == 0) {
        *outcome = kb_outcome_parse(name);
        if (detail && kb_h5r_attr_str(r, "/", "outcome_detail", detail, dlen, NULL) != 0)
            detail[0] = '\0';
        if (verdict && kb_h5r_attr_str(r, "/symbols", "verdict", verdict, vlen, NULL) != 0)
            snprintf(verdict, vlen, "none");
        if (reasons && kb_h5r_attr_str(r, "/symbols", "reasons", reasons, rlen, NULL) != 0)
            reasons[0] = '\0';
    }
    kb_h5r_close(r);
    return rc;
}

int kb_write_skipped(const char *stage, const char *path, const kb_cell *cell, const kb_config *cfg, kb_outcome outcome,
                     const char *detail, kb_err *err)
{
    kb_h5w *w = kb_artifact_begin(path, stage, cell, cfg, err);
    if (!w)
        return -1;
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_RAN, 0);
    int rc = kb_artifact_finish(w, outcome, detail, err);
    if (rc == 0) {
        char tag[96];
        kb_progress_tag(stage, cell->model, cell->problem, cell->sample, kb_outcome_name(outcome), tag, sizeof tag);
        printf("%s[%-13s] %-14s %-28s %-3s %s (not run)\n", tag, stage, cell->model, cell->problem, cell->sample,
               kb_outcome_name(outcome));
    }
    return rc;
}

kb_math_mode kb_check_math(const kb_config *cfg)
{
    return kb_config_protocol(cfg)->check_math_exact ? KB_MATH_EXACT : KB_MATH_FP32;
}
/* the protocol rows' check flags are these */
_Static_assert((int)KB_PCHECK_POISON == (int)KB_CHECK_POISON && (int)KB_PCHECK_INPUT_HASH == (int)KB_CHECK_INPUT_HASH &&
                   (int)KB_PCHECK_MAGNITUDE == (int)KB_CHECK_MAGNITUDE,
               "KB_PCHECK_* differ from KB_CHECK_*");

void kb_progress(const kb_gpu_stage *st, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char tag[96];
    kb_progress_tag(st->name, st->cell.model, st->cell.problem, st->cell.sample, text, tag, sizeof tag);
    printf("%s[%-13s] %-14s %-28s %-3s %s  [%.1f s]\n", tag, st->name, st->cell.model, st->cell.problem,
           st->cell.sample && st->cell.sample[0] ? st->cell.sample : "-", text, kb_now_s() - st->t0);
    fflush(stdout);
}

double kb_tau_for(const kb_config *cfg, kb_dtype t) { return (t == KB_F16 || t == KB_BF16) ? cfg->tau_lowp : cfg->tau; }

int kb_check_draw(kb_session *s, const kb_config *cfg, const kb_draw *inputs, const kb_draw *params, unsigned flags,
                  kb_check *c, kb_err *err)
{
    memset(c, 0, sizeof *c);
    const kb_problem *p = kb_session_problem(s);
    c->n_outputs = (int)p->n_outputs; /* at most KB_MAX_OUTPUTS: the loader refuses more */
    int nonfinite = 0;
    if (!(flags & KB_CHECK_NO_DRAW) && kb_session_draw(s, inputs, params, err) != 0)
        return -1;
    if (kb_session_reference(s, 0, &nonfinite, err) != 0)
        return -1;
    if (nonfinite) {
        c->skipped = 1;
        return 0;
    }
    if ((flags & KB_CHECK_POISON) && kb_session_poison(s, err) != 0)
        return -1;
    uint64_t h0 = 0, h1 = 0;
    if ((flags & KB_CHECK_INPUT_HASH) && kb_session_inputs_hash(s, &h0, err) != 0)
        return -1;
    if (kb_session_call(s, KB_CALL_DEVICE_SYNC, &c->call, err) != 0)
        return -1;
    if (c->call.outcome != KB_OUT_OK)
        return 0;
    if ((flags & KB_CHECK_INPUT_HASH) && kb_session_inputs_hash(s, &h1, err) != 0)
        return -1;
    c->inputs_changed = (flags & KB_CHECK_INPUT_HASH) && h0 != h1;
    /* strict, live dropout: the reference again with the mask the call drew (docs/protocols.md) */
    if ((flags & KB_CHECK_MAGNITUDE) && kb_session_replay(s, &c->replay, err) != 0)
        return -1;
    if ((flags & KB_CHECK_MAGNITUDE) && kb_session_reference(s, 1, NULL, err) != 0)
        return -1;
    c->pass = 1;
    for (int i = 0; i < c->n_outputs; i++) {
        double tau = kb_tau_for(cfg, p->outputs[i].dtype);
        double srtol = 0.0, satol = 1e-30;
        if (flags & KB_CHECK_MAGNITUDE) {
            /* strict bound: r x (|ref| + |ref(|x|)|) + r x rms(ref), r = 16 x 2^-24 x
             * sqrt(max(terms, 1)). The elementwise term scales with what was summed; the rms
             * term is the output's own scale, for outputs whose error does not shrink with the
             * element (a normalisation's error comes from its statistics, not from y). */
            double terms = p->outputs[i].terms > 1 ? (double)p->outputs[i].terms : 1.0;
            srtol = 16.0 * 5.960464477539063e-08 * sqrt(terms);
            kb_cmp_stats self;
            if (kb_session_compare_refs_self(s, (uint32_t)i, &self, err) != 0)
                return -1;
            double rms = self.n > 0 ? sqrt(self.sum_sq_ref / (double)self.n) : 0.0;
            if (isfinite(rms) && srtol * rms > satol)
                satol = srtol * rms;
        }
        if (kb_session_compare(s, (uint32_t)i, tau, satol, srtol, &c->cmp[i], err) != 0)
            return -1;
        if (!(c->cmp[i].tau_req <= tau))
            c->pass = 0;
        if ((flags & KB_CHECK_MAGNITUDE) && (flags & KB_CHECK_TF32)) {
            /* the TF32 rule: the same bound with the operands' TF32 rounding added to its rtol */
            double rt = srtol + KB_TF32_OPERAND_RTOL, at = satol * (rt / srtol);
            kb_cmp_stats t;
            if (kb_session_compare(s, (uint32_t)i, tau, at, rt, &t, err) != 0)
                return -1;
            c->tf32_excess[i] = t.scaled_excess;
        }
    }
    return 0;
}

int kb_check_replay_ok(const kb_check *c)
{
    return !c->replay.active || (fabs(c->replay.z) <= KB_REPLAY_MAX_Z && !c->replay.repeated);
}

int kb_check_strict_pass(const kb_check *c)
{
    if (c->call.outcome != KB_OUT_OK || c->inputs_changed || !kb_check_replay_ok(c))
        return 0;
    for (int i = 0; i < c->n_outputs; i++)
        if (!(c->cmp[i].scaled_excess <= 1.0) || c->cmp[i].n_nan_out)
            return 0;
    return 1;
}

int kb_check_strict_pass_tf32(const kb_check *c)
{
    if (c->call.outcome != KB_OUT_OK || c->inputs_changed || !kb_check_replay_ok(c))
        return 0;
    for (int i = 0; i < c->n_outputs; i++)
        if (!(c->tf32_excess[i] <= 1.0) || c->cmp[i].n_nan_out)
            return 0;
    return 1;
}

double kb_check_tf32_excess(const kb_check *c)
{
    double m = 0.0;
    for (int i = 0; i < c->n_outputs; i++)
        m = fmax(m, c->tf32_excess[i]);
    return m;
}

int kb_sanity_fatal(const char *path, kb_outcome *outcome, char *detail, size_t len)
{
    if (!path || !kb_file_exists(path))
        return 0;
    kb_outcome o;
    char d[1024];
    if (kb_artifact_outcome(path, &o, d, sizeof d, NULL) != 0)
        return 0;
    if (o == KB_OUT_OK || o == KB_OUT_WRONG || o == KB_OUT_HARNESS_ERROR || o == KB_OUT_REJECTED)
        return 0;
    *outcome = o;
    snprintf(detail, len, "not run: the standard check ended with %s (%s)", kb_outcome_name(o), d);
    return 1;
}

int kb_cell_stage_open(kb_cell_stage *c, int argc, char **argv, const char *usage, const kb_opt *extra,
                       size_t n_extra, int sanity, kb_err *err)
{
    enum { N_COMMON = 10, MAX_OPTS = 32 };
    char out_help[96];
    snprintf(out_help, sizeof out_help, "* the artifact (%s.h5)", c->bin);
    kb_opt opts[MAX_OPTS] = {
        {"problem", &c->problem_so, NULL, "* the problem's shared object"},
        {"submission", &c->submission, NULL, "* the sample from kb-compile: its shared object, or a .py's DIR/kernel.py"},
        {"compile", &c->compile_h5, NULL, "* the sample's compile.h5 (a failed compile is recorded, not run)"},
        {"out", &c->out, NULL, out_help},
        {"model", &c->model, NULL, "* model name"},
        {"sample", &c->sample, NULL, "* sample name"},
        {"runner", &c->runner, NULL, "kb-runner executable (default build/bin/kb-runner)"},
        {"gpus", &c->gpus, NULL, "CUDA ordinals to choose from (default 0)"},
        {"log", &c->log, NULL, "the child's stdout/stderr (default <out>.log)"},
        {"sanity", &c->sanity_h5, NULL, "the sample's sanity-check.h5: a fatal outcome there is recorded, not re-run"},
    };
    size_t n = sanity ? N_COMMON : N_COMMON - 1;
    if (n + n_extra > MAX_OPTS) {
        kb_errf(err, KB_EXIT_FAIL, "kb_cell_stage_open: %zu options, at most %d", n + n_extra, MAX_OPTS);
        return -1;
    }
    for (size_t i = 0; i < n_extra; i++)
        opts[n++] = extra[i];
    c->runner = "build/bin/kb-runner";
    c->gpus = "0";
    kb_config_defaults(&c->st.cfg, KB_PROTO_PAPER);
    int pr = kb_stage_parse(argc, argv, usage, opts, n, &c->st.cfg, err);
    if (pr != 0)
        return pr == 1 ? 1 : -1;
    if (!c->log) {
        kb_fmt(c->logbuf, sizeof c->logbuf, "%s.log", c->out);
        c->log = c->logbuf;
    }
    if (!(c->p = kb_problem_load(c->problem_so, &c->ph, err)))
        return -1;
    c->st.cell = (kb_cell){c->model, c->p->id, c->sample};
    kb_outcome cout;
    char cdetail[1200];
    if (kb_read_compile(c->compile_h5, &cout, cdetail, sizeof cdetail, c->verdict, sizeof c->verdict, c->reasons,
                        sizeof c->reasons, err) != 0)
        return -1;
    if (cout == KB_OUT_OK && !(sanity && kb_sanity_fatal(c->sanity_h5, &cout, cdetail, sizeof cdetail)))
        return 0;
    return kb_write_skipped(c->st.name, c->out, &c->st.cell, &c->st.cfg, cout, cdetail, err) ? -1 : 1;
}

kb_session *kb_cell_stage_session(kb_cell_stage *c, int lock_mode, kb_math_mode check_math, int reject_no_kernel,
                                  kb_call_outcome *ready, kb_err *err)
{
    /* The child starts before the GPU is held and the lock is taken once it has said HELLO: a
     * .py submission's `import torch` (4-11 s) holds no GPU time that others wait for. */
    kb_session_opts so = {c->runner, c->problem_so, c->submission, KB_TARGET_SUBMISSION, KB_MATH_FP32,
                          KB_INIT_SANDBOX | KB_INIT_MEMTRACK, -1, c->st.cfg.call_timeout_s, c->log, 1,
                          check_math, reject_no_kernel, NULL, 0};
    double t_spawn = kb_now_s();
    kb_session *s = kb_session_spawn(&so, err);
    if (!s)
        return NULL;
    kb_session_started(s, 120.0 + c->st.cfg.call_timeout_s);
    double t_started = kb_now_s();
    if (kb_gpu_stage_begin(&c->st, c->gpus, lock_mode, err) != 0) {
        kb_session_close(s);
        return NULL;
    }
    double t_held = kb_now_s();
    if (kb_session_init(s, c->st.device, ready, err) != 0 || kb_session_ready(s, ready, err) != 0) {
        kb_session_close(s);
        return NULL;
    }
    FILE *lf = fopen(c->log, "a"); /* where the start-up went (tests/gpu/run.sh reads it) */
    if (lf) {
        fprintf(lf, "kb-stage: child started %.2f s after its spawn; GPU held %.2f s later; ready at +%.2f s\n",
                t_started - t_spawn, t_held - t_started, kb_now_s() - t_held);
        fclose(lf);
    }
    return s;
}
