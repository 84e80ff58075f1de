/*
 * kb-fidelity -- is the C baseline exactly as fast and as exact as PyTorch eager? For one
 * problem, in both math modes (fp32: PyTorch defaults; tf32: matmul TF32 on), in one process:
 *   1. the problem's own PyTorch Model (problems/levelN/NNN_name.py) runs in a child through the
 *      .py path (py/kbpy/runner.py), on inputs and parameters drawn here; its output is compared
 *      with the C baseline's, computed here on the same tensors in the same math mode;
 *   2. both are timed back to back, PyTorch first, with the same timer and settings, for each
 *      timer (paper, robust): ratio = C time / PyTorch time.
 * The two children (PyTorch's and the C baseline's, each running both modes in turn) are spawned
 * before the stage holds its GPU (their CPU-only start-up overlaps the previous stage under make
 * -j2), get their INIT side by side once it does, and wait idle until their turn.
 * The artifact keeps every raw sample of both; tools/fidelity-csv.sh makes fidelity.csv.
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

typedef struct timed {
    kb_call_outcome co;
    kb_msg_time req;
    kb_msg_timed h;
    kb_msg_sample *samples;
    double ms;
} timed;

static int time_target(kb_session *s, const kb_config *cfg, const kb_problem *p, int timer, timed *t, kb_err *err)
{
    kb_config c = *cfg;
    c.timer = kb_timers[timer].id;
    kb_time_request(&c, &t->req, kb_seed(cfg, p->id, KB_SEED_TIMING, 1));
    t->ms = NAN;
    if (kb_session_time(s, &t->req, &t->h, &t->samples, &t->co, err) != 0)
        return -1;
    if (t->co.outcome == KB_OUT_OK && t->samples)
        t->ms = kb_timing_reported_ms(&t->req, &t->h, t->samples);
    return 0;
}

int main(int argc, char **argv)
{
    const char *problem_so = NULL, *out = NULL, *runner = "build/bin/kb-runner", *gpus = "0", *log = NULL,
               *spec = NULL;
    kb_opt opts[] = {
        {"problem", &problem_so, NULL, "* the problem's shared object"},
        {"spec", &spec, NULL, "* the problem's PyTorch spec (problems/levelN/NNN_name.py)"},
        {"out", &out, NULL, "* the artifact (fidelity.h5)"},
        {"runner", &runner, NULL, "kb-runner executable (default build/bin/kb-runner; libkbrunner.so beside it)"},
        {"gpus", &gpus, NULL, "CUDA ordinals to choose from (default 0)"},
        {"log", &log, NULL, "the children's stdout/stderr (default <out>.log)"},
    };
    kb_gpu_stage st = {.name = "fidelity"};
    kb_config_defaults(&st.cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv,
                            "kb-fidelity: the C baseline against the problem's PyTorch Model (eager), side by side:\n"
                            "output error and time ratio per math mode and timer. Needs $KB_PYTHON with torch.",
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

    static const char *mode_names[2] = {"fp32", "tf32"};
    kb_math_mode modes[2] = {KB_MATH_FP32, KB_MATH_TF32};
    int n_out = (int)p->n_outputs < KB_MAX_OUTPUTS ? (int)p->n_outputs : KB_MAX_OUTPUTS;
    struct {
        kb_call_outcome ready, call;
        kb_cmp_stats cmp[KB_MAX_OUTPUTS];
        timed torch[KB_N_TIMERS], ours[KB_N_TIMERS]; /* every timer of kb_settings.def */
    } R[2];
    memset(R, 0, sizeof R);
    kb_outcome outcome = KB_OUT_OK;
    char detail[1200] = "";
    /* Two children, PyTorch's and the C baseline's, each run both math modes (KB_MSG_MATH
     * switches them): spawned before this stage holds its GPU, so that their exec, libraries and
     * `import torch` (4-7 s, CPU only: no CUDA call until INIT) overlap the previous problem's
     * run under make -j2, while every CUDA step below happens with the GPU held. They sit idle
     * in their own processes until asked, so each timing has the GPU to itself. (Four children,
     * one per mode, made the CPU side the bottleneck at -j2: session 7.) */
    kb_session *S[2] = {NULL, NULL}; /* 0: PyTorch, 1: the C baseline */
    kb_call_outcome ready[2];
    double t_spawn = kb_now_s();
    kb_session_opts so = {runner, problem_so, spec, KB_TARGET_SUBMISSION, modes[0], KB_INIT_MEMTRACK, 0,
                          st.cfg.call_timeout_s, log, 1, modes[0], 0, "Model"};
    kb_session_opts sc = {runner, problem_so, NULL, KB_TARGET_REFERENCE, modes[0], KB_INIT_CACHING, 0,
                          st.cfg.call_timeout_s, log, 0, KB_MATH_FP32, 0, NULL};
    if (!(S[0] = kb_session_spawn(&so, &err)) || !(S[1] = kb_session_spawn(&sc, &err)))
        return kb_stage_fail(st.name, &err);
    if (kb_gpu_stage_begin(&st, gpus, KB_LOCK_TIMING, &err) != 0)
        return kb_stage_fail(st.name, &err);
    double t_start = kb_now_s(), waited_s = t_start - t_spawn;
    for (int k = 0; k < 2; k++)
        if (kb_session_init(S[k], st.device, &ready[k], &err) != 0)
            return kb_stage_fail(st.name, &err);
    double started_s = kb_now_s() - t_start, at[2];
    for (int k = 0; k < 2; k++) {
        if (kb_session_ready(S[k], &ready[k], &err) != 0)
            return kb_stage_fail(st.name, &err);
        at[k] = kb_now_s() - t_start;
    }
    double ready_s = kb_now_s() - t_start;
    {
        /* where the start-up time goes, beside the children's own trace in the log */
        FILE *lf = fopen(log, "a");
        if (lf) {
            fprintf(lf, "kb-fidelity: children spawned %.2f s before the GPU was held; from then: INIT sent by +%.2f s, "
                        "ready at +%.2f (PyTorch), +%.2f (C baseline)\n",
                    waited_s, started_s, at[0], at[1]);
            fclose(lf);
        }
    }
    kb_draw params = {kb_seed(&st.cfg, p->id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    kb_draw in = {kb_seed(&st.cfg, p->id, KB_SEED_TIMING, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    for (int m = 0; m < 2; m++) {
        /* PyTorch eager in the child, in mode m; the C baseline here, on the same tensors */
        kb_session *s = S[0];
        R[m].ready = ready[0];
        R[m].call = R[m].ready;
        if (m > 0 && R[m].call.outcome == KB_OUT_OK && kb_session_set_math(s, modes[m], modes[m], &R[m].call, &err) != 0)
            return kb_stage_fail(st.name, &err);
        if (R[m].call.outcome == KB_OUT_OK) {
            int nonfinite = 0;
            if (kb_session_draw(s, &in, &params, &err) != 0 || kb_session_reference(s, 0, &nonfinite, &err) != 0 ||
                kb_session_poison(s, &err) != 0 || kb_session_call(s, KB_CALL_DEVICE_SYNC, &R[m].call, &err) != 0)
                return kb_stage_fail(st.name, &err);
            for (int i = 0; i < n_out && R[m].call.outcome == KB_OUT_OK; i++)
                if (kb_session_compare(s, (uint32_t)i, kb_tau_for(&st.cfg, p->outputs[i].dtype), 0, 0, &R[m].cmp[i],
                                       &err) != 0)
                    return kb_stage_fail(st.name, &err);
            for (int t = 0; t < KB_N_TIMERS && R[m].call.outcome == KB_OUT_OK; t++)
                if (time_target(s, &st.cfg, p, t, &R[m].torch[t], &err) != 0)
                    return kb_stage_fail(st.name, &err);
        }
        if (R[m].call.outcome != KB_OUT_OK && outcome == KB_OUT_OK) {
            outcome = R[m].call.outcome;
            snprintf(detail, sizeof detail, "%s: PyTorch Model: %s", mode_names[m], R[m].call.detail);
        }
        /* the C baseline, timed right after, as baseline-time times it */
        s = S[1];
        kb_call_outcome co = ready[1];
        if (m > 0 && co.outcome == KB_OUT_OK && kb_session_set_math(s, modes[m], KB_MATH_FP32, &co, &err) != 0)
            return kb_stage_fail(st.name, &err);
        if (co.outcome == KB_OUT_OK &&
            (kb_session_draw(s, &in, &params, &err) != 0 || kb_session_call(s, KB_CALL_DEVICE_SYNC, &co, &err) != 0))
            return kb_stage_fail(st.name, &err);
        for (int t = 0; t < KB_N_TIMERS && co.outcome == KB_OUT_OK; t++)
            if (time_target(s, &st.cfg, p, t, &R[m].ours[t], &err) != 0)
                return kb_stage_fail(st.name, &err);
        if (co.outcome != KB_OUT_OK && outcome == KB_OUT_OK) {
            outcome = co.outcome;
            snprintf(detail, sizeof detail, "%s: C baseline: %s", mode_names[m], co.detail);
        }
    }
    kb_session_close(S[0]);
    kb_session_close(S[1]);
    double work_s = kb_now_s() - t_start - ready_s;

    kb_h5w *w = kb_gpu_stage_artifact(&st, out, &err);
    if (!w)
        return kb_stage_fail(st.name, &err);
    kb_h5w_attr_str(w, KB_ROOT, "spec", spec);
    kb_h5w_attr_f64(w, KB_ROOT, "children_ready_s", ready_s);
    kb_h5w_attr_f64(w, KB_ROOT, "gpu_wait_s", waited_s);
    kb_h5w_attr_f64(w, KB_ROOT, "work_s", work_s);
    char line[512] = "";
    for (int m = 0; m < 2; m++) {
        char g[128];
        snprintf(g, sizeof g, "/%s", mode_names[m]);
        kb_h5w_group(w, g);
        kb_h5w_attr_i64(w, g, "matmul_tf32", modes[m].matmul_tf32);
        kb_h5w_attr_i64(w, g, "cudnn_tf32", modes[m].cudnn_tf32);
        kb_h5w_attr_str(w, g, "torch_outcome", kb_outcome_name(R[m].call.outcome));
        kb_h5w_attr_str(w, g, "torch_outcome_detail", R[m].call.detail);
        kb_h5w_attr_str(w, g, "torch_call_note", R[m].call.called.note);
        /* the worst output: what the table reports */
        double mae = 0, mref = 0, treq = 0;
        for (int i = 0; i < n_out; i++) {
            char og[256];
            snprintf(og, sizeof og, "%s/outputs/%s", g, p->outputs[i].name);
            kb_record_cmp(w, og, &R[m].cmp[i], 1);
            if (R[m].cmp[i].max_abs_err > mae)
                mae = R[m].cmp[i].max_abs_err;
            if (R[m].cmp[i].max_abs_ref > mref)
                mref = R[m].cmp[i].max_abs_ref;
            if (R[m].cmp[i].tau_req > treq)
                treq = R[m].cmp[i].tau_req;
        }
        int ok = R[m].call.outcome == KB_OUT_OK;
        kb_h5w_attr_f64(w, g, "max_abs_err", ok ? mae : NAN);
        kb_h5w_attr_f64(w, g, "max_rel_err", ok && mref > 0 ? mae / mref : NAN);
        kb_h5w_attr_f64(w, g, "tau_req", ok ? treq : NAN);
        for (int t = 0; t < KB_N_TIMERS; t++) {
            char tg[192];
            snprintf(tg, sizeof tg, "%s/%s", g, kb_timers[t].name);
            kb_h5w_group(w, tg);
            kb_h5w_attr_f64(w, tg, "ours_ms", R[m].ours[t].ms);
            kb_h5w_attr_f64(w, tg, "torch_ms", R[m].torch[t].ms);
            kb_h5w_attr_f64(w, tg, "ratio", R[m].ours[t].ms / R[m].torch[t].ms);
            char sg[256];
            if (R[m].ours[t].samples) {
                snprintf(sg, sizeof sg, "%s/ours", tg);
                kb_record_timing(w, sg, &R[m].ours[t].req, &R[m].ours[t].h, R[m].ours[t].samples);
            }
            if (R[m].torch[t].samples) {
                snprintf(sg, sizeof sg, "%s/torch", tg);
                kb_record_timing(w, sg, &R[m].torch[t].req, &R[m].torch[t].h, R[m].torch[t].samples);
            }
            size_t l = strlen(line);
            snprintf(line + l, sizeof line - l, "%s%s/%s %.4f", l ? " " : "", mode_names[m], kb_timers[t].name,
                     R[m].ours[t].ms / R[m].torch[t].ms);
            free(R[m].ours[t].samples);
            free(R[m].torch[t].samples);
        }
        size_t l = strlen(line);
        snprintf(line + l, sizeof line - l, " (err %.2g, tau %.2g) |", mae, treq);
    }
    int rc = kb_gpu_stage_finish(&st, w, outcome, detail, &err);
    if (rc != 0)
        return kb_stage_fail(st.name, &err);
    kb_progress(&st, "%s ratio ours/torch: %s start-up %.1f s, work %.1f s", outcome == KB_OUT_OK ? "ok" : kb_outcome_name(outcome),
                line, ready_s, work_s);
    if (outcome != KB_OUT_OK)
        printf("    %s\n", detail);
    return 0;
}
