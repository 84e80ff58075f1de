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
#include "core/kb_problem_load.h"
#include "core/kb_stage.h"
#include "core/kb_schema.h"

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

static const char *mode_names[2] = {"fp32", "tf32"};

/* One problem's run: both math modes, both targets, every timer. */
typedef struct fd_run {
    const char *problem_so, *out, *runner, *gpus, *log, *spec;
    char logbuf[4200];
    kb_gpu_stage st;
    const kb_problem *p;
    int n_out;
    kb_math_mode modes[2];
    kb_session *S[2];          /* 0: PyTorch, 1: the C baseline */
    kb_call_outcome ready[2];
    struct {
        kb_call_outcome call;
        kb_cmp_stats cmp[KB_MAX_OUTPUTS];
        timed torch[KB_N_TIMERS], ours[KB_N_TIMERS]; /* every timer of kb_settings.def */
    } R[2];
    kb_outcome outcome;
    char detail[1200];
    double waited_s, hello_s, ready_s, work_s, t_start;
} fd_run;

/* Two children, PyTorch's and the C baseline's, each run both math modes (KB_MSG_MATH switches
 * them): spawned before this stage holds its GPU, so that their exec, libraries and `import
 * torch` (4-7 s, CPU only: no CUDA call until INIT) overlap the previous problem's run under make
 * -j2, while every CUDA step happens with the GPU held. They sit idle in their own processes
 * until asked, so each timing has the GPU to itself. (Four children, one per mode, made the CPU
 * side the bottleneck at -j2 on the H200.) */
static int start_children(fd_run *f, kb_err *err)
{
    double t_spawn = kb_now_s();
    kb_session_opts so = {f->runner, f->problem_so, f->spec, KB_TARGET_SUBMISSION, f->modes[0], KB_INIT_MEMTRACK, 0,
                          f->st.cfg.call_timeout_s, f->log, 1, f->modes[0], 0, "Model", 0};
    kb_session_opts sc = {f->runner, f->problem_so, NULL, KB_TARGET_REFERENCE, f->modes[0], KB_INIT_CACHING, 0,
                          f->st.cfg.call_timeout_s, f->log, 0, KB_MATH_FP32, 0, NULL, 0};
    if (!(f->S[0] = kb_session_spawn(&so, err)) || !(f->S[1] = kb_session_spawn(&sc, err)))
        return -1;
    /* the GPU is taken once both have started (HELLO): the lock is not first come, first served,
     * and a stage that took it while its child still imported torch held it idle (measured on the H200:
     * 29 of 89 problems, 128 s of one run) */
    for (int k = 0; k < 2; k++)
        kb_session_started(f->S[k], 120.0 + f->st.cfg.call_timeout_s);
    f->hello_s = kb_now_s() - t_spawn;
    if (kb_gpu_stage_begin(&f->st, f->gpus, KB_LOCK_TIMING, err) != 0)
        return -1;
    f->t_start = kb_now_s();
    f->waited_s = f->t_start - t_spawn;
    for (int k = 0; k < 2; k++)
        if (kb_session_init(f->S[k], f->st.device, &f->ready[k], err) != 0)
            return -1;
    double started_s = kb_now_s() - f->t_start, at[2];
    for (int k = 0; k < 2; k++) {
        if (kb_session_ready(f->S[k], &f->ready[k], err) != 0)
            return -1;
        at[k] = kb_now_s() - f->t_start;
    }
    f->ready_s = kb_now_s() - f->t_start;
    FILE *lf = fopen(f->log, "a"); /* where the start-up time goes, beside the children's own trace */
    if (lf) {
        fprintf(lf, "kb-fidelity: children spawned %.2f s before the GPU was held (both started after %.2f s); from "
                    "then: INIT sent by +%.2f s, ready at +%.2f (PyTorch), +%.2f (C baseline)\n",
                f->waited_s, f->hello_s, started_s, at[0], at[1]);
        fclose(lf);
    }
    return 0;
}

/* Mode m: PyTorch eager in its child, its output compared with the C baseline's computed here on
 * the same tensors; then the C baseline's child, timed right after, as baseline-time times it. */
static int run_mode(fd_run *f, int m, const kb_draw *in, const kb_draw *params, kb_err *err)
{
    kb_session *s = f->S[0];
    kb_call_outcome *call = &f->R[m].call;
    *call = f->ready[0];
    if (m > 0 && call->outcome == KB_OUT_OK && kb_session_set_math(s, f->modes[m], f->modes[m], call, err) != 0)
        return -1;
    if (call->outcome == KB_OUT_OK) {
        int nonfinite = 0;
        if (kb_session_draw(s, in, params, err) != 0 || kb_session_reference(s, 0, &nonfinite, err) != 0 ||
            kb_session_poison(s, err) != 0 || kb_session_call(s, KB_CALL_DEVICE_SYNC, call, err) != 0)
            return -1;
        /* live dropout: ours again with the mask eager drew, read from its output (docs/protocols.md) */
        kb_replay_stats rs;
        if (call->outcome == KB_OUT_OK && kb_session_replay(s, &rs, err) != 0)
            return -1;
        if (call->outcome == KB_OUT_OK && rs.active)
            kb_progress(&f->st, "%s: eager's dropout mask replayed: keeps %lld of %lld (%.1f sigmas from 1 - p)",
                              mode_names[m], (long long)rs.kept, (long long)rs.n, rs.z);
        for (int i = 0; i < f->n_out && call->outcome == KB_OUT_OK; i++)
            if (kb_session_compare(s, (uint32_t)i, kb_tau_for(&f->st.cfg, f->p->outputs[i].dtype), 0, 0,
                                   &f->R[m].cmp[i], err) != 0)
                return -1;
        for (int t = 0; t < KB_N_TIMERS && call->outcome == KB_OUT_OK; t++)
            if (time_target(s, &f->st.cfg, f->p, t, &f->R[m].torch[t], err) != 0)
                return -1;
    }
    if (call->outcome != KB_OUT_OK && f->outcome == KB_OUT_OK) {
        f->outcome = call->outcome;
        snprintf(f->detail, sizeof f->detail, "%s: PyTorch Model: %s", mode_names[m], call->detail);
    }
    s = f->S[1];
    kb_call_outcome co = f->ready[1];
    if (m > 0 && co.outcome == KB_OUT_OK && kb_session_set_math(s, f->modes[m], KB_MATH_FP32, &co, err) != 0)
        return -1;
    if (co.outcome == KB_OUT_OK &&
        (kb_session_draw(s, in, params, err) != 0 || kb_session_call(s, KB_CALL_DEVICE_SYNC, &co, err) != 0))
        return -1;
    for (int t = 0; t < KB_N_TIMERS && co.outcome == KB_OUT_OK; t++)
        if (time_target(s, &f->st.cfg, f->p, t, &f->R[m].ours[t], err) != 0)
            return -1;
    if (co.outcome != KB_OUT_OK && f->outcome == KB_OUT_OK) {
        f->outcome = co.outcome;
        snprintf(f->detail, sizeof f->detail, "%s: C baseline: %s", mode_names[m], co.detail);
    }
    return 0;
}

/* Group /<mode>: the worst output's errors (what the table reports), every output's comparison,
 * and per timer both times, their ratio and every raw sample; appends the progress line. */
static void write_mode(kb_h5w *w, fd_run *f, int m, char *line, size_t llen)
{
    char g[128];
    snprintf(g, sizeof g, "/%s", mode_names[m]);
    kb_h5w_group(w, g);
    kb_h5w_attr_i64(w, g, "matmul_tf32", f->modes[m].matmul_tf32);
    kb_h5w_attr_i64(w, g, "cudnn_tf32", f->modes[m].cudnn_tf32);
    kb_h5w_attr_str(w, g, KB_ATTR_TORCH_OUTCOME, kb_outcome_name(f->R[m].call.outcome));
    kb_h5w_attr_str(w, g, "torch_outcome_detail", f->R[m].call.detail);
    kb_h5w_attr_str(w, g, "torch_call_note", f->R[m].call.called.note);
    double mae = 0, mref = 0, treq = 0;
    for (int i = 0; i < f->n_out; i++) {
        const kb_cmp_stats *c = &f->R[m].cmp[i];
        char og[256];
        snprintf(og, sizeof og, "%s/outputs/%s", g, f->p->outputs[i].name);
        kb_record_cmp(w, og, c, 1);
        mae = c->max_abs_err > mae ? c->max_abs_err : mae;
        mref = c->max_abs_ref > mref ? c->max_abs_ref : mref;
        treq = c->tau_req > treq ? c->tau_req : treq;
    }
    int ok = f->R[m].call.outcome == KB_OUT_OK;
    kb_h5w_attr_f64(w, g, "max_abs_err", ok ? mae : NAN);
    kb_h5w_attr_f64(w, g, "max_rel_err", ok && mref > 0 ? mae / mref : NAN);
    kb_h5w_attr_f64(w, g, "tau_req", ok ? treq : NAN);
    for (int t = 0; t < KB_N_TIMERS; t++) {
        timed *ours = &f->R[m].ours[t], *torch = &f->R[m].torch[t];
        char tg[192], sg[256];
        snprintf(tg, sizeof tg, "%s/%s", g, kb_timers[t].name);
        kb_h5w_group(w, tg);
        kb_h5w_attr_f64(w, tg, KB_ATTR_OURS_MS, ours->ms);
        kb_h5w_attr_f64(w, tg, KB_ATTR_TORCH_MS, torch->ms);
        kb_h5w_attr_f64(w, tg, "ratio", ours->ms / torch->ms);
        if (ours->samples) {
            snprintf(sg, sizeof sg, "%s/ours", tg);
            kb_record_timing(w, sg, &ours->req, &ours->h, ours->samples);
        }
        if (torch->samples) {
            snprintf(sg, sizeof sg, "%s/torch", tg);
            kb_record_timing(w, sg, &torch->req, &torch->h, torch->samples);
        }
        size_t l = strlen(line);
        snprintf(line + l, llen - l, "%s%s/%s %.4f", l ? " " : "", mode_names[m], kb_timers[t].name, ours->ms / torch->ms);
        free(ours->samples);
        free(torch->samples);
        ours->samples = torch->samples = NULL;
    }
    size_t l = strlen(line);
    snprintf(line + l, llen - l, " (err %.2g, tau %.2g) |", mae, treq);
}

static int write_artifact(fd_run *f, char *line, size_t llen, kb_err *err)
{
    kb_h5w *w = kb_gpu_stage_artifact(&f->st, f->out, err);
    if (!w)
        return -1;
    kb_h5w_attr_str(w, KB_ROOT, "spec", f->spec);
    /* what the problem is, as baseline-time.h5 says it: BASELINE=torch's tables need no C timing */
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_TITLE, f->p->title);
    kb_h5w_attr_f64(w, KB_ROOT, KB_ATTR_FLOPS, f->p->flops);
    kb_h5w_attr_f64(w, KB_ROOT, KB_ATTR_BYTES, kb_problem_bytes(f->p));
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_PROBLEM_FLAGS, f->p->flags);
    kb_h5w_attr_f64(w, KB_ROOT, "children_ready_s", f->ready_s);
    kb_h5w_attr_f64(w, KB_ROOT, "gpu_wait_s", f->waited_s);
    kb_h5w_attr_f64(w, KB_ROOT, "work_s", f->work_s);
    for (int m = 0; m < 2; m++)
        write_mode(w, f, m, line, llen);
    return kb_gpu_stage_finish(&f->st, w, f->outcome, f->detail, err);
}

int main(int argc, char **argv)
{
    static fd_run f = {.runner = "build/bin/kb-runner", .gpus = "0", .st = {.name = "fidelity"}};
    kb_opt opts[] = {
        {"problem", &f.problem_so, NULL, "* the problem's shared object"},
        {"spec", &f.spec, NULL, "* the problem's PyTorch spec (problems/levelN/NNN_name.py)"},
        {"out", &f.out, NULL, "* the artifact (fidelity.h5)"},
        {"runner", &f.runner, NULL, "kb-runner executable (default build/bin/kb-runner; libkbrunner.so beside it)"},
        {"gpus", &f.gpus, NULL, "CUDA ordinals to choose from (default 0)"},
        {"log", &f.log, NULL, "the children's stdout/stderr (default <out>.log)"},
    };
    kb_config_defaults(&f.st.cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv,
                            "kb-fidelity: the C baseline against the problem's PyTorch Model (eager), side by side:\n"
                            "output error and time ratio per math mode and timer. Needs $KB_PYTHON with torch.",
                            opts, sizeof opts / sizeof opts[0], &f.st.cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail(f.st.name, &err);
    if (!f.log) {
        kb_fmt(f.logbuf, sizeof f.logbuf, "%s.log", f.out);
        f.log = f.logbuf;
    }
    void *ph;
    if (!(f.p = kb_problem_load(f.problem_so, &ph, &err)))
        return kb_stage_fail(f.st.name, &err);
    f.st.cell = (kb_cell){"baseline", f.p->id, ""};
    f.n_out = (int)f.p->n_outputs; /* at most KB_MAX_OUTPUTS: the loader refuses more */
    f.modes[0] = KB_MATH_FP32;
    f.modes[1] = KB_MATH_TF32;
    f.outcome = KB_OUT_OK;
    if (start_children(&f, &err) != 0)
        return kb_stage_fail(f.st.name, &err);
    kb_draw params = {kb_seed(&f.st.cfg, f.p->id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    kb_draw in = {kb_seed(&f.st.cfg, f.p->id, KB_SEED_TIMING, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    for (int m = 0; m < 2; m++)
        if (run_mode(&f, m, &in, &params, &err) != 0)
            return kb_stage_fail(f.st.name, &err);
    kb_session_close(f.S[0]);
    kb_session_close(f.S[1]);
    f.work_s = kb_now_s() - f.t_start - f.ready_s;
    char line[512] = "";
    if (write_artifact(&f, line, sizeof line, &err) != 0)
        return kb_stage_fail(f.st.name, &err);
    kb_progress(&f.st, "%s ratio ours/torch: %s start-up %.1f s, work %.1f s",
                f.outcome == KB_OUT_OK ? "ok" : kb_outcome_name(f.outcome), line, f.ready_s, f.work_s);
    if (f.outcome != KB_OUT_OK)
        printf("    %s\n", f.detail);
    return 0;
}
