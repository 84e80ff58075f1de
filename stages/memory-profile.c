/*
 * kb-memory-profile -- peak device memory of a forward call, for a sample or for the baseline,
 * with the same accounting for both: the target runs in a kb-runner child whose every device
 * allocation (runtime and driver APIs, stream-ordered pools, library workspaces) is counted by
 * CUPTI from before the target is loaded (kb_memtrack.h). Two calls are made (the first may
 * create handles and caches, the second is the steady state); the peak covers both.
 *
 * Reported as the paper defines it: peak_bytes = resident inputs, parameters and outputs +
 * the peak of what the target allocated; and as extra_bytes = the latter alone. The baseline is
 * profiled in both math modes, with its allocator returning memory at once (like PyTorch's
 * allocated-bytes counter, which does not count cached blocks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_gpu.h"
#include "kb_gpustage.h"
#include "core/kb_problem_load.h"
#include "core/kb_stage.h"
#include "core/kb_schema.h"

typedef struct profile {
    kb_call_outcome co;
    kb_msg_called calls[2];
    int n_calls;
    kb_msg_mem mem;
} profile;

static int run_profile(kb_gpu_stage *st, kb_session_opts *so, profile *pf, kb_err *err)
{
    kb_session *s = kb_session_open(so, &pf->co, err);
    if (!s)
        return -1;
    const kb_problem *p = kb_session_problem(s);
    kb_draw params = {kb_seed(&st->cfg, p->id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    kb_draw in = {kb_seed(&st->cfg, p->id, KB_SEED_TIMING, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    if (pf->co.outcome == KB_OUT_OK && kb_session_draw(s, &in, &params, err) != 0) {
        kb_session_close(s);
        return -1;
    }
    for (int i = 0; i < 2 && pf->co.outcome == KB_OUT_OK; i++) {
        if (kb_session_call(s, KB_CALL_DEVICE_SYNC, &pf->co, err) != 0) {
            kb_session_close(s);
            return -1;
        }
        pf->calls[pf->n_calls++] = pf->co.called;
    }
    kb_call_outcome mco;
    if (kb_session_alive(s) && kb_session_memory(s, &pf->mem, &mco, err) != 0) {
        kb_session_close(s);
        return -1;
    }
    kb_session_close(s);
    return 0;
}

static void record(kb_h5w *w, const char *g, const profile *pf, uint64_t resident)
{
    kb_h5w_group(w, g);
    kb_h5w_attr_str(w, g, "outcome", kb_outcome_name(pf->co.outcome));
    kb_h5w_attr_str(w, g, "outcome_detail", pf->co.detail);
    kb_h5w_attr_i64(w, g, "tracked", pf->mem.tracked);
    kb_h5w_attr_i64(w, g, "resident_bytes", (int64_t)resident);
    kb_h5w_attr_i64(w, g, "extra_bytes", pf->mem.peak_bytes);
    kb_h5w_attr_i64(w, g, "peak_bytes", (int64_t)resident + pf->mem.peak_bytes);
    kb_h5w_attr_i64(w, g, "first_call_extra_bytes", pf->mem.first_call_peak_bytes);
    kb_h5w_attr_i64(w, g, "kept_bytes", pf->mem.live_bytes);
    kb_h5w_attr_i64(w, g, "n_allocs", pf->mem.n_allocs);
    kb_h5w_attr_i64(w, g, "n_frees", pf->mem.n_frees);
    kb_h5w_attr_i64(w, g, "n_failed", pf->mem.n_failed);
    kb_h5w_attr_i64(w, g, "largest_failed_bytes", pf->mem.largest_failed);
    kb_h5w_attr_i64(w, g, "ctx_peak_bytes", pf->mem.ctx_peak_bytes);
    /* a .py target: PyTorch's allocator's own peak (torch.cuda.max_memory_allocated, the paper's
     * figure) beside the accounting of every device allocation above; -1 for other kinds */
    kb_h5w_attr_i64(w, g, "torch_alloc_extra_bytes", pf->mem.alloc_peak_bytes);
    kb_h5w_attr_i64(w, g, "torch_alloc_peak_bytes",
                    pf->mem.alloc_peak_bytes >= 0 ? (int64_t)resident + pf->mem.alloc_peak_bytes : -1);
    kb_h5w_attr_i64(w, g, "torch_alloc_first_call_extra_bytes", pf->mem.alloc_first_call_peak_bytes);
    char cg[256];
    snprintf(cg, sizeof cg, "%s/calls", g);
    kb_record_calls(w, cg, pf->calls, (size_t)pf->n_calls);
}

int main(int argc, char **argv)
{
    const char *problem_so = NULL, *submission = NULL, *compile_h5 = NULL, *out = NULL, *model = "baseline",
               *sample = "", *runner = "build/bin/kb-runner", *gpus = "0", *log = NULL, *sanity_h5 = NULL;
    int baseline = 0;
    kb_opt opts[] = {
        {"problem", &problem_so, NULL, "* the problem's shared object"},
        {"out", &out, NULL, "* the artifact (memory-profile.h5)"},
        {"baseline", NULL, &baseline, "profile the problem's reference (both math modes) instead of a sample"},
        {"submission", &submission, NULL, "the sample from kb-compile: its shared object, or a .py's DIR/kernel.py (unless --baseline)"},
        {"compile", &compile_h5, NULL, "the sample's compile.h5 (unless --baseline)"},
        {"model", &model, NULL, "model name (unless --baseline)"},
        {"sample", &sample, NULL, "sample name (unless --baseline)"},
        {"sanity", &sanity_h5, NULL, "the sample's sanity-check.h5: a fatal outcome there is recorded, not re-run"},
        {"runner", &runner, NULL, "kb-runner executable (default build/bin/kb-runner)"},
        {"gpus", &gpus, NULL, "CUDA ordinals to choose from (default 0)"},
        {"log", &log, NULL, "the child's stdout/stderr (default <out>.log)"},
    };
    kb_gpu_stage st = {.name = "memory"};
    kb_config_defaults(&st.cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv, "kb-memory-profile: peak device memory of a forward call (sample or baseline).",
                            opts, sizeof opts / sizeof opts[0], &st.cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("memory-profile", &err);
    if (!baseline && (!submission || !compile_h5)) {
        kb_errf(&err, KB_EXIT_USAGE, "--submission and --compile are required unless --baseline");
        return kb_stage_fail("memory-profile", &err);
    }
    char logbuf[4200];
    if (!log) {
        kb_fmt(logbuf, sizeof logbuf, "%s.log", out);
        log = logbuf;
    }
    void *ph;
    const kb_problem *p = kb_problem_load(problem_so, &ph, &err);
    if (!p)
        return kb_stage_fail("memory-profile", &err);
    st.cell = (kb_cell){baseline ? "baseline" : model, p->id, baseline ? "" : sample};
    uint64_t resident = kb_problem_resident_bytes(p);

    if (!baseline) {
        kb_outcome cout;
        char cdetail[512];
        if (kb_read_compile(compile_h5, &cout, cdetail, sizeof cdetail, NULL, 0, NULL, 0, &err) != 0)
            return kb_stage_fail("memory-profile", &err);
        if (cout != KB_OUT_OK)
            return kb_write_skipped("memory", out, &st.cell, &st.cfg, cout, cdetail, &err)
                       ? kb_stage_fail("memory-profile", &err)
                       : 0;
    }
    if (!baseline) {
        kb_outcome so_out;
        char so_detail[1200];
        if (kb_sanity_fatal(sanity_h5, &so_out, so_detail, sizeof so_detail))
            return kb_write_skipped("memory", out, &st.cell, &st.cfg, so_out, so_detail, &err)
                       ? kb_stage_fail("memory-profile", &err)
                       : 0;
    }
    if (kb_gpu_stage_begin(&st, gpus, KB_LOCK_SHARED, &err) != 0)
        return kb_stage_fail("memory-profile", &err);

    profile pf[2];
    memset(pf, 0, sizeof pf);
    const char *groups[2] = {"/memory", NULL};
    int n = 1;
    if (baseline) {
        kb_session_opts so = {runner, problem_so, NULL, KB_TARGET_REFERENCE, KB_MATH_FP32, KB_INIT_MEMTRACK, st.device,
                              st.cfg.call_timeout_s, log, 0, KB_MATH_FP32, 0, NULL, 0};
        if (run_profile(&st, &so, &pf[0], &err) != 0)
            return kb_stage_fail("memory-profile", &err);
        so.target_math = KB_MATH_TF32;
        if (run_profile(&st, &so, &pf[1], &err) != 0)
            return kb_stage_fail("memory-profile", &err);
        groups[0] = "/fp32";
        groups[1] = "/tf32";
        n = 2;
    } else {
        kb_session_opts so = {runner, problem_so, submission, KB_TARGET_SUBMISSION, KB_MATH_FP32,
                              KB_INIT_SANDBOX | KB_INIT_MEMTRACK, st.device, st.cfg.call_timeout_s, log, 0,
                              KB_MATH_FP32, 0, NULL, 0};
        if (run_profile(&st, &so, &pf[0], &err) != 0)
            return kb_stage_fail("memory-profile", &err);
    }
    kb_h5w *w = kb_gpu_stage_artifact(&st, out, &err);
    if (!w)
        return kb_stage_fail("memory-profile", &err);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_RAN, 1);
    kb_h5w_attr_i64(w, KB_ROOT, "resident_bytes", (int64_t)resident);
    kb_outcome outcome = KB_OUT_OK;
    char detail[1100] = "", line[256] = "";
    for (int i = 0; i < n; i++) {
        record(w, groups[i], &pf[i], resident);
        if (pf[i].co.outcome != KB_OUT_OK && outcome == KB_OUT_OK) {
            outcome = pf[i].co.outcome;
            snprintf(detail, sizeof detail, "%s: %s", groups[i] + 1, pf[i].co.detail);
        }
        char pk[32], ex[32];
        kb_fmt_bytes(pk, sizeof pk, (double)resident + (double)pf[i].mem.peak_bytes);
        kb_fmt_bytes(ex, sizeof ex, (double)pf[i].mem.peak_bytes);
        size_t l = strlen(line);
        snprintf(line + l, sizeof line - l, "%s%s peak %s (extra %s)", l ? " | " : "", groups[i] + 1, pk, ex);
    }
    int rc = kb_gpu_stage_finish(&st, w, outcome, detail, &err);
    if (rc != 0)
        return kb_stage_fail("memory-profile", &err);
    kb_progress(&st, "%s %s", outcome == KB_OUT_OK ? "ok" : kb_outcome_name(outcome), line);
    if (outcome != KB_OUT_OK)
        printf("    %s\n", detail);
    return 0;
}
