/*
 * kb-baseline-time -- time a problem's eager-faithful reference in both math modes:
 *   fp32: PyTorch defaults (matmul TF32 off, cuDNN TF32 on): the paper's standard baseline;
 *   tf32: matmul TF32 on as well: the paper's verified baseline.
 * The reference runs in a kb-runner child, exactly like a submission, and is timed by the same
 * timer with the same settings (kb_timer.h), on the same inputs the kernel is timed on.
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

typedef struct mode_result {
    const char *name;
    kb_math_mode math;
    kb_call_outcome co;
    kb_msg_called call;
    kb_msg_time req;
    kb_msg_timed h;
    kb_msg_sample *samples;
} mode_result;

static int run_mode(kb_gpu_stage *st, const char *problem_so, const char *runner, const char *log, mode_result *m,
                    kb_err *err)
{
    kb_session_opts so = {runner, problem_so, NULL, KB_TARGET_REFERENCE, m->math, KB_INIT_CACHING, st->device,
                          st->cfg.call_timeout_s, log, 0, KB_MATH_FP32, 0, NULL, 0};
    kb_session *s = kb_session_open(&so, &m->co, err);
    if (!s)
        return -1;
    const kb_problem *p = kb_session_problem(s);
    kb_draw params = {kb_seed(&st->cfg, p->id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    kb_draw in = {kb_seed(&st->cfg, p->id, KB_SEED_TIMING, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    int rc = 0;
    if (m->co.outcome == KB_OUT_OK) {
        if (kb_session_draw(s, &in, &params, err) != 0 || kb_session_call(s, KB_CALL_DEVICE_SYNC, &m->co, err) != 0)
            rc = -1;
        m->call = m->co.called;
    }
    if (rc == 0 && m->co.outcome == KB_OUT_OK) {
        kb_time_request(&st->cfg, &m->req, kb_seed(&st->cfg, p->id, KB_SEED_TIMING, 1));
        if (kb_session_time(s, &m->req, &m->h, &m->samples, &m->co, err) != 0)
            rc = -1;
    }
    kb_session_close(s);
    return rc;
}

int main(int argc, char **argv)
{
    const char *problem_so = NULL, *out = NULL, *runner = "build/bin/kb-runner", *gpus = "0", *log = NULL;
    kb_opt opts[] = {
        {"problem", &problem_so, NULL, "* the problem's shared object"},
        {"out", &out, NULL, "* the artifact (baseline-time.h5)"},
        {"runner", &runner, NULL, "kb-runner executable (default build/bin/kb-runner)"},
        {"gpus", &gpus, NULL, "CUDA ordinals to choose from (default 0)"},
        {"log", &log, NULL, "the child's stdout/stderr (default <out>.log)"},
    };
    kb_gpu_stage st = {.name = "baseline-time"};
    kb_config_defaults(&st.cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv,
                            "kb-baseline-time: time the problem's reference in FP32 (PyTorch defaults) and TF32 modes.",
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
    st.cell = (kb_cell){"baseline", p->id, ""};
    if (kb_gpu_stage_begin(&st, gpus, KB_LOCK_TIMING, &err) != 0)
        return kb_stage_fail(st.name, &err);

    mode_result modes[2];
    memset(modes, 0, sizeof modes);
    modes[0].name = "fp32";
    modes[0].math = KB_MATH_FP32;
    modes[1].name = "tf32";
    modes[1].math = KB_MATH_TF32;
    for (int i = 0; i < 2; i++)
        if (run_mode(&st, problem_so, runner, log, &modes[i], &err) != 0)
            return kb_stage_fail(st.name, &err);

    kb_h5w *w = kb_gpu_stage_artifact(&st, out, &err);
    if (!w)
        return kb_stage_fail(st.name, &err);
    /* What the tables need about the problem, so that they never have to load it. */
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_TITLE, p->title);
    kb_h5w_attr_f64(w, KB_ROOT, KB_ATTR_FLOPS, p->flops);
    kb_h5w_attr_f64(w, KB_ROOT, KB_ATTR_BYTES, kb_problem_bytes(p));
    kb_h5w_attr_i64(w, KB_ROOT, "resident_bytes", (int64_t)kb_problem_resident_bytes(p));
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_PROBLEM_FLAGS, p->flags);
    kb_outcome outcome = KB_OUT_OK;
    char detail[1100] = "";
    char line[256] = "";
    for (int i = 0; i < 2; i++) {
        mode_result *m = &modes[i];
        char g[64], tg[96];
        snprintf(g, sizeof g, "/%s", m->name);
        snprintf(tg, sizeof tg, "/%s/timing", m->name);
        kb_h5w_group(w, g);
        kb_h5w_attr_i64(w, g, "matmul_tf32", m->math.matmul_tf32);
        kb_h5w_attr_i64(w, g, "cudnn_tf32", m->math.cudnn_tf32);
        kb_h5w_attr_str(w, g, "outcome", kb_outcome_name(m->co.outcome));
        kb_h5w_attr_str(w, g, "outcome_detail", m->co.detail);
        char cg[96];
        snprintf(cg, sizeof cg, "/%s/first_call", m->name);
        kb_record_calls(w, cg, &m->call, 1);
        if (m->co.outcome == KB_OUT_OK && m->samples) {
            kb_record_timing(w, tg, &m->req, &m->h, m->samples);
            char t[32];
            kb_fmt_ms(t, sizeof t, kb_timing_reported_ms(&m->req, &m->h, m->samples));
            size_t l = strlen(line);
            snprintf(line + l, sizeof line - l, "%s%s %s", l ? " | " : "", m->name, t);
        } else if (outcome == KB_OUT_OK) {
            outcome = m->co.outcome == KB_OUT_OK ? KB_OUT_HARNESS_ERROR : m->co.outcome;
            snprintf(detail, sizeof detail, "%s: %s", m->name, m->co.detail);
        }
    }
    int rc = kb_gpu_stage_finish(&st, w, outcome, detail, &err);
    if (rc != 0)
        return kb_stage_fail(st.name, &err);
    kb_progress(&st, "%s %s", outcome == KB_OUT_OK ? "ok" : kb_outcome_name(outcome), line);
    if (outcome != KB_OUT_OK)
        printf("    %s\n", detail);
    free(modes[0].samples);
    free(modes[1].samples);
    return 0;
}
