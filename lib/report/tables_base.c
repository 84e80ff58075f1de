/* tables_base.c -- the baselines of kb-aggregate's reader (kb_tables.h, kb_table.h): a problem's
 * baseline directory, with the C baseline's times (BASELINE=c) or PyTorch eager's from fidelity.h5
 * (BASELINE=torch), the C baseline's memory profile under either, and what the problem is. */
#include "report/kb_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/problem.h"
#include "core/kb_artifact.h"
#include "core/kb_h5.h"
#include "core/kb_schema.h"

const char *kb_baseline_name(kb_baseline b) { return b == KB_BASELINE_TORCH ? "torch" : "c"; }

const char *kb_baseline_label(kb_baseline b) { return b == KB_BASELINE_TORCH ? "PyTorch eager" : "the C baseline"; }

int kb_baseline_parse(const char *name, kb_baseline *out)
{
    if (name && !strcmp(name, "c"))
        *out = KB_BASELINE_C;
    else if (name && !strcmp(name, "torch"))
        *out = KB_BASELINE_TORCH;
    else
        return -1;
    return 0;
}

/* What a problem is (title, FLOPs, bytes, flags) from the root of a baseline artifact. */
static void load_problem_attrs(kb_h5r *r, kb_problem_rec *p)
{
    kbt_attr_str(r, KB_ROOT, KB_ATTR_TITLE, p->title, sizeof p->title);
    p->flops = kbt_attr_f64(r, KB_ROOT, KB_ATTR_FLOPS, NAN);
    p->bytes = kbt_attr_f64(r, KB_ROOT, KB_ATTR_BYTES, NAN);
    p->excluded = (kbt_attr_i64(r, KB_ROOT, KB_ATTR_PROBLEM_FLAGS, 0) & KB_PROB_EXCLUDED) != 0;
}

static void load_baseline_memory(const char *dir, kb_problem_rec *p, kb_notes *notes)
{
    char path[2048];
    kb_h5r *r = kbt_open_stage(dir, KB_FILE_MEMORY, KB_STAGE_MEMORY " (baseline)", path, sizeof path, notes);
    if (r) {
        for (int b = 0; b < KB_N_BASE; b++) {
            char g[32], out[64];
            snprintf(g, sizeof g, "/%s", kb_base_name((kb_base)b));
            kbt_attr_str(r, g, KB_ATTR_OUTCOME, out, sizeof out);
            if (!strcmp(out, kb_outcome_name(KB_OUT_OK)) && kbt_attr_i64(r, g, KB_ATTR_TRACKED, 1) != 0)
                p->base_peak[b] = kbt_attr_f64(r, g, KB_ATTR_PEAK_BYTES, NAN);
        }
        kb_h5r_close(r);
    }
}

void kb_load_baseline(const char *dir, kb_problem_rec *p, kb_notes *notes)
{
    static const char *files[] = {KB_FILE_BASELINE, KB_FILE_MEMORY};
    notes = kbt_notes_unless_all_missing(dir, files, 2, "the baseline stages have", notes);
    char path[2048];
    kb_h5r *r = kbt_open_stage(dir, KB_FILE_BASELINE, KB_STAGE_BASELINE, path, sizeof path, notes);
    if (r) {
        load_problem_attrs(r, p);
        kbt_attr_str(r, KB_ROOT, KB_ATTR_GPU_UUID, p->gpu_uuid, sizeof p->gpu_uuid);
        kbt_attr_str(r, KB_GRP_CONFIG, KB_CONF_TIMER, p->timer, sizeof p->timer);
        for (int b = 0; b < KB_N_BASE; b++) {
            char g[32], tg[48], out[64];
            snprintf(g, sizeof g, "/%s", kb_base_name((kb_base)b));
            snprintf(tg, sizeof tg, "/%s/" KB_GRP_TIMING, kb_base_name((kb_base)b));
            kbt_attr_str(r, g, KB_ATTR_OUTCOME, out, sizeof out);
            p->base_ms[b] = !strcmp(out, kb_outcome_name(KB_OUT_OK)) ? kbt_attr_f64(r, tg, KB_ATTR_REPORTED_MS, NAN) : NAN;
            if (!isfinite(p->base_ms[b]))
                kb_note(notes, 0, "%s: the %s baseline has no time (outcome '%s'): speedups against it are NaN", path,
                        kb_base_name((kb_base)b), out);
        }
        kb_h5r_close(r);
    }
    load_baseline_memory(dir, p, notes);
}

/* BASELINE=torch: eager's times from fidelity.h5 (/<mode> @torch_outcome, /<mode>/<timer>
 * @torch_ms under the timer of its /config), its board; title, FLOPs, bytes and flags from
 * baseline-time.h5 where it exists (its times are not read), else from fidelity.h5's root; the peak
 * from the C baseline's memory-profile.h5. */
int kb_load_baseline_eager(const char *dir, kb_problem_rec *p, char *timer, size_t timer_len, kb_notes *notes)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/" KB_FILE_FIDELITY, dir);
    if (!kb_file_exists(path))
        return -1;
    kb_h5r *r = kbt_open_stage(dir, KB_FILE_FIDELITY, KB_STAGE_FIDELITY, path, sizeof path, notes);
    if (r) {
        load_problem_attrs(r, p);
        kbt_attr_str(r, KB_ROOT, KB_ATTR_GPU_UUID, p->gpu_uuid, sizeof p->gpu_uuid);
        kbt_attr_str(r, KB_GRP_CONFIG, KB_CONF_TIMER, p->timer, sizeof p->timer);
        if (!p->timer[0]) /* a record without its config: the protocol's own timer */
            snprintf(p->timer, sizeof p->timer, "%s", kb_timer_name(KB_TIMER_PAPER));
        snprintf(timer, timer_len, "%s", p->timer);
        for (int b = 0; b < KB_N_BASE; b++) {
            char g[32], tg[64], out[64];
            snprintf(g, sizeof g, "/%s", kb_base_name((kb_base)b));
            snprintf(tg, sizeof tg, "/%s/%s", kb_base_name((kb_base)b), p->timer);
            kbt_attr_str(r, g, KB_ATTR_TORCH_OUTCOME, out, sizeof out);
            p->base_ms[b] = !strcmp(out, kb_outcome_name(KB_OUT_OK)) ? kbt_attr_f64(r, tg, KB_ATTR_TORCH_MS, NAN) : NAN;
            if (!isfinite(p->base_ms[b]))
                kb_note(notes, 0, "%s: PyTorch eager has no %s time under the %s timer (outcome '%s'): speedups "
                        "against it are NaN", path, kb_base_name((kb_base)b), p->timer, out[0] ? out : "none");
        }
        kb_h5r_close(r);
    }
    char bpath[2048];
    snprintf(bpath, sizeof bpath, "%s/" KB_FILE_BASELINE, dir);
    if (kb_file_exists(bpath)) {
        int st;
        kb_h5r *b = kbt_open_artifact(bpath, KB_STAGE_BASELINE, notes, &st);
        if (b) {
            load_problem_attrs(b, p);
            kb_h5r_close(b);
        }
    }
    load_baseline_memory(dir, p, notes);
    return 0;
}

/* Does the baseline directory hold any of the baseline's artifacts? */
int kbt_baseline_dir_used(const char *dir)
{
    static const char *files[] = {KB_FILE_BASELINE, KB_FILE_MEMORY, KB_FILE_FIDELITY};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[2200];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (kb_file_exists(path))
            return 1;
    }
    return 0;
}

/* A problem that no model has a sample for, without eager's time: what it is, from baseline-time.h5
 * if there is one (no note: no table needs its baseline). */
void kbt_load_problem_quietly(const char *dir, kb_problem_rec *p)
{
    char path[2200];
    snprintf(path, sizeof path, "%s/" KB_FILE_BASELINE, dir);
    kb_notes quiet = {0};
    int st;
    kb_h5r *r = kb_file_exists(path) ? kbt_open_artifact(path, KB_STAGE_BASELINE, &quiet, &st) : NULL;
    if (r) {
        load_problem_attrs(r, p);
        kb_h5r_close(r);
    }
    kb_notes_free(&quiet);
}
