/*
 * kb-sanity-check -- the standard (KernelBench) check of one sample, then its timing.
 *
 * Correctness: STD_TRIALS trials, each with fresh inputs from the problem's generators
 * (parameters drawn once), every output compared with the reference computed by this process
 * at PyTorch's default flags, allclose(atol = rtol = TAU). The submission runs in a sandboxed
 * kb-runner child that never sees the reference output. Then, if every trial passed, the kernel
 * is timed on the standard inputs with the protocol's timer (every raw sample kept).
 * The standard check is the same in both protocols (it is KernelBench's); the protocol chooses
 * the timer.
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

int main(int argc, char **argv)
{
    const char *problem_so = NULL, *submission = NULL, *compile_h5 = NULL, *out = NULL, *model = NULL, *sample = NULL;
    const char *runner = "build/bin/kb-runner", *gpus = "0", *log = NULL;
    kb_opt opts[] = {
        {"problem", &problem_so, NULL, "* the problem's shared object"},
        {"submission", &submission, NULL, "* the sample from kb-compile: its shared object, or a .py's DIR/kernel.py"},
        {"compile", &compile_h5, NULL, "* the sample's compile.h5 (a failed compile is recorded, not run)"},
        {"out", &out, NULL, "* the artifact (sanity-check.h5)"},
        {"model", &model, NULL, "* model name"},
        {"sample", &sample, NULL, "* sample name"},
        {"runner", &runner, NULL, "kb-runner executable (default build/bin/kb-runner)"},
        {"gpus", &gpus, NULL, "CUDA ordinals to choose from (default 0)"},
        {"log", &log, NULL, "the child's stdout/stderr (default <out>.log)"},
    };
    kb_gpu_stage st = {.name = "sanity-check"};
    kb_config_defaults(&st.cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv,
                            "kb-sanity-check: the standard check (STD_TRIALS trials, allclose TAU) and the kernel's timing.",
                            opts, sizeof opts / sizeof opts[0], &st.cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail(st.name, &err);
    char logbuf[4200];
    if (!log) {
        kb_fmt(logbuf, sizeof logbuf, "%s.log", out);
        log = logbuf;
    }
    void *ph;
    const kb_problem *p = kb_problem_load(problem_so, &ph, &err);
    if (!p)
        return kb_stage_fail(st.name, &err);
    st.cell = (kb_cell){model, p->id, sample};

    kb_outcome cout;
    char cdetail[512];
    if (kb_read_compile(compile_h5, &cout, cdetail, sizeof cdetail, NULL, 0, NULL, 0, &err) != 0)
        return kb_stage_fail(st.name, &err);
    if (cout != KB_OUT_OK)
        return kb_write_skipped(st.name, out, &st.cell, &st.cfg, cout, cdetail, &err) ? kb_stage_fail(st.name, &err) : 0;

    if (kb_gpu_stage_begin(&st, gpus, KB_LOCK_TIMING, &err) != 0)
        return kb_stage_fail(st.name, &err);
    kb_session_opts so = {runner, problem_so, submission, KB_TARGET_SUBMISSION, KB_MATH_FP32,
                          KB_INIT_SANDBOX | KB_INIT_MEMTRACK, st.device, st.cfg.call_timeout_s, log, 1,
                          KB_MATH_FP32, 0, NULL};
    kb_call_outcome ready;
    kb_session *s = kb_session_open(&so, &ready, &err);
    if (!s)
        return kb_stage_fail(st.name, &err);

    int T = st.cfg.std_trials, n_out = (int)p->n_outputs;
    kb_check *checks = calloc((size_t)T, sizeof *checks);
    int64_t *seeds = calloc((size_t)T, sizeof *seeds);
    if (!checks || !seeds) {
        kb_errf(&err, KB_EXIT_FAIL, "out of memory");
        return kb_stage_fail(st.name, &err);
    }
    kb_outcome outcome = ready.outcome;
    char detail[1200];
    snprintf(detail, sizeof detail, "%s", ready.detail);
    int passed = 0, ran = 0;
    kb_draw params = {kb_seed(&st.cfg, p->id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    double worst_tau = 0.0;
    /* Every trial runs unless a call fails (a wrong answer is not fatal): the stored tau_req of
     * all trials lets the tables re-judge the sample at any other tolerance. */
    for (int t = 0; t < T && (outcome == KB_OUT_OK || outcome == KB_OUT_WRONG); t++) {
        kb_draw in = {kb_seed(&st.cfg, p->id, KB_SEED_STD_TRIAL, (uint32_t)t), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
        seeds[t] = (int64_t)in.seed;
        if (kb_check_draw(s, &st.cfg, &in, &params, 0, &checks[t], &err) != 0)
            return kb_stage_fail(st.name, &err);
        ran++;
        if (checks[t].call.outcome != KB_OUT_OK) {
            outcome = checks[t].call.outcome;
            snprintf(detail, sizeof detail, "trial %d: %s", t, checks[t].call.detail);
            break;
        }
        if (checks[t].skipped)
            continue; /* the reference itself is non-finite on this draw */
        for (int i = 0; i < n_out && i < KB_MAX_OUTPUTS; i++)
            if (checks[t].cmp[i].tau_req > worst_tau)
                worst_tau = checks[t].cmp[i].tau_req;
        if (checks[t].pass) {
            passed++;
        } else if (outcome == KB_OUT_OK) {
            outcome = KB_OUT_WRONG;
            const kb_cmp_stats *c = &checks[t].cmp[0];
            for (int i = 0; i < n_out && i < KB_MAX_OUTPUTS; i++)
                if (!(checks[t].cmp[i].tau_req <= c->tau))
                    c = &checks[t].cmp[i];
            snprintf(detail, sizeof detail,
                     "trial %d: %lld of %lld elements not close at tau %g (needs tau %.3g; element %lld: ref %.9g, got %.9g)",
                     t, (long long)c->n_fail, (long long)c->n, c->tau, c->tau_req, (long long)c->worst_index,
                     c->worst_ref, c->worst_out);
        }
    }

    /* Timing on the standard inputs. KernelBench times correct samples only; we also time samples
     * whose every call succeeded but whose answer was off, so that the tables can be recomputed
     * at any other tolerance from this archive (tolerance sensitivity). */
    kb_msg_time treq;
    kb_msg_timed th = {0};
    kb_msg_sample *samples = NULL;
    kb_call_outcome tco = {0};
    int timed = 0;
    if ((outcome == KB_OUT_OK || outcome == KB_OUT_WRONG) && kb_session_alive(s)) {
        kb_draw in = {kb_seed(&st.cfg, p->id, KB_SEED_TIMING, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
        if (kb_session_draw(s, &in, &params, &err) != 0)
            return kb_stage_fail(st.name, &err);
        kb_time_request(&st.cfg, &treq, kb_seed(&st.cfg, p->id, KB_SEED_TIMING, 1));
        if (kb_session_time(s, &treq, &th, &samples, &tco, &err) != 0)
            return kb_stage_fail(st.name, &err);
        if (tco.outcome != KB_OUT_OK) {
            if (outcome == KB_OUT_OK) {
                outcome = tco.outcome;
                snprintf(detail, sizeof detail, "while timing: %s", tco.detail);
            }
        } else {
            timed = 1;
        }
    }
    char *log_tail = kb_session_log_tail(s, 16384);
    kb_session_close(s);

    kb_h5w *w = kb_gpu_stage_artifact(&st, out, &err);
    if (!w)
        return kb_stage_fail(st.name, &err);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_RAN, 1);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_CORRECT, outcome == KB_OUT_OK);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_TRIALS_RUN, ran);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_TRIALS_PASSED, passed);
    kb_h5w_attr_f64(w, KB_ROOT, "tau_req_max", worst_tau);
    kb_h5w_attr_i64(w, KB_ROOT, "resident_bytes", (int64_t)kb_problem_resident_bytes(p));
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_TIMED, timed);
    kb_h5w_group(w, KB_GRP_TRIALS);
    kb_h5w_i64v(w, "/trials/seed", seeds, (size_t)ran, NULL);
    {
        int64_t *v = calloc((size_t)(ran ? ran : 1), sizeof *v);
        const char **names = calloc((size_t)(ran ? ran : 1), sizeof *names);
        kb_msg_called *calls = calloc((size_t)(ran ? ran : 1), sizeof *calls);
        kb_cmp_stats *cmp = calloc((size_t)(ran ? ran : 1), sizeof *cmp);
        if (!v || !names || !calls || !cmp) {
            kb_h5w_abort(w);
            kb_errf(&err, KB_EXIT_FAIL, "out of memory");
            return kb_stage_fail(st.name, &err);
        }
        for (int t = 0; t < ran; t++) {
            v[t] = checks[t].pass;
            names[t] = kb_outcome_name(checks[t].call.outcome);
            calls[t] = checks[t].call.called;
        }
        kb_h5w_i64v(w, "/trials/pass", v, (size_t)ran, NULL);
        for (int t = 0; t < ran; t++)
            v[t] = checks[t].skipped;
        kb_h5w_i64v(w, "/trials/skipped", v, (size_t)ran, NULL);
        kb_h5w_strv(w, "/trials/outcome", names, (size_t)ran);
        kb_record_calls(w, "/trials/calls", calls, (size_t)ran);
        for (int i = 0; i < n_out && i < KB_MAX_OUTPUTS; i++) {
            char g[256];
            snprintf(g, sizeof g, "/trials/outputs/%s", p->outputs[i].name);
            for (int t = 0; t < ran; t++)
                cmp[t] = checks[t].cmp[i];
            kb_record_cmp(w, g, cmp, (size_t)ran);
        }
        free(v);
        free(names);
        free(calls);
        free(cmp);
    }
    if (timed)
        kb_record_timing(w, "/timing/kernel", &treq, &th, samples);
    kb_h5w_text(w, "/log", log_tail ? log_tail : "");
    int rc = kb_gpu_stage_finish(&st, w, outcome, detail, &err);
    if (rc != 0)
        return kb_stage_fail(st.name, &err);
    char tbuf[64] = "-";
    if (timed)
        kb_fmt_ms(tbuf, sizeof tbuf, kb_timing_reported_ms(&treq, &th, samples));
    kb_progress(&st, "%s %d/%d tau_req %.2g | kernel %s", outcome == KB_OUT_OK ? "PASS" : kb_outcome_name(outcome),
                passed, T, worst_tau, tbuf);
    if (outcome != KB_OUT_OK)
        printf("    %s\n", detail);
    free(samples);
    free(log_tail);
    free(checks);
    free(seeds);
    return 0;
}
