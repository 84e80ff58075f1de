/* tables_csv.c -- kb-aggregate's CSV tables and results.json (kb_tables.h, kb_table.h). Each table
 * is one description (csv_table: its file, its columns, the function that writes its rows); the
 * header, the file and results.json's listing come from it, a column's unit from column_unit. */
#include "report/kb_table.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A CSV table: <name>.csv, with these columns; rows() writes its rows (after the header). */
typedef struct csv_table {
    const char *name;
    const char *const *cols;
    size_t n_cols;
    int (*rows)(const kb_report *r, kbt_out *o, kb_err *err); /* on an error: kbt_out_oom(o) and -1 */
} csv_table;

static int rows_summary(const kb_report *r, kbt_out *o, kb_err *err)
{
    (void)err;
    const kb_data *d = &r->data;
    for (size_t m = 0; m < d->n_models; m++)
        for (int li = 0; li <= r->n_levels; li++) {
            int level = li < r->n_levels ? r->levels[li] : 0;
            char lname[16];
            kbt_level_name(level, lname, sizeof lname);
            kb_sample_counts sc;
            kb_sample_counts_compute(d, m, level, &sc);
            for (int c = 0; c < KB_N_COND; c++) {
                kb_metrics mt;
                kb_gate g = kb_cond_gate((kb_cond)c);
                kb_metrics_compute(d, m, level, g, kb_cond_base((kb_cond)c), &mt);
                kbt_c_str(o, d->models[m]);
                kbt_c_str(o, r->models[m].display);
                kbt_c_str(o, r->protocol);
                kbt_c_str(o, lname);
                kbt_c_str(o, kb_cond_name((kb_cond)c));
                kbt_c_str(o, kb_base_name(kb_cond_base((kb_cond)c)));
                kbt_c_str(o, kb_baseline_name(r->baseline));
                kbt_c_str(o, g.kind == KB_GATE_VERIFIED ? "verified" : "standard");
                kbt_c_int(o, (long long)mt.n_problems);
                kbt_c_int(o, (long long)mt.n_correct);
                kbt_c_num(o, mt.correctness);
                kbt_c_int(o, (long long)mt.n_speedup);
                kbt_c_num(o, mt.speedup);
                for (int k = 0; k < KB_N_FASTP; k++)
                    kbt_c_num(o, mt.fast[k]);
                kbt_c_int(o, (long long)mt.n_mem);
                kbt_c_num(o, mt.mem_eff);
                kbt_c_num(o, mt.mem_eff_pct);
                kbt_c_num(o, mt.mem_increase);
                kbt_c_int(o, (long long)sc.samples);
                kbt_c_int(o, (long long)sc.compiled);
                kbt_c_num(o, sc.compile_rate);
                kbt_c_int(o, (long long)sc.library);
                kbt_c_int(o, (long long)sc.flagged);
                kbt_c_int(o, (long long)sc.std_accepted);
                kbt_c_int(o, (long long)sc.std_rejected);
                kbt_c_int(o, (long long)sc.std_not_run);
                kbt_c_int(o, (long long)sc.ver_accepted);
                kbt_c_int(o, (long long)sc.ver_rejected);
                kbt_c_int(o, (long long)sc.ver_not_run);
                kbt_c_end(o);
            }
        }
    return 0;
}

static int rows_problems(const kb_report *r, kbt_out *o, kb_err *err)
{
    (void)err;
    const kb_data *d = &r->data;
    for (size_t m = 0; m < d->n_models; m++)
        for (size_t p = 0; p < d->n_problems; p++) {
            const kb_problem_rec *pr = &d->problems[p];
            const kb_cell_rec *c = kb_data_cell(d, m, p);
            kb_best b[KB_N_COND];
            for (int k = 0; k < KB_N_COND; k++)
                kb_best_of(c, pr, kb_cond_gate((kb_cond)k), kb_cond_base((kb_cond)k), &b[k]);
            size_t compiled = 0;
            for (size_t i = 0; i < c->n; i++)
                compiled += c->samples[i].compiled == 1;
            char reason[1024];
            kbt_problem_reason(c, reason, sizeof reason);
            kbt_c_str(o, d->models[m]);
            kbt_c_str(o, pr->id);
            kbt_c_int(o, pr->level);
            kbt_c_str(o, pr->title);
            kbt_c_int(o, pr->excluded);
            kbt_c_int(o, (long long)c->n);
            kbt_c_int(o, (long long)compiled);
            kbt_c_num(o, pr->flops);
            kbt_c_num(o, pr->bytes);
            kbt_c_str(o, kb_baseline_name(r->baseline));
            kbt_c_num(o, pr->base_ms[KB_BASE_FP32]);
            kbt_c_num(o, pr->base_ms[KB_BASE_TF32]);
            kbt_c_num(o, pr->base_peak[KB_BASE_FP32]);
            kbt_c_num(o, pr->base_peak[KB_BASE_TF32]);
            kbt_c_int(o, b[KB_COND_FP32_STD].idx >= 0);
            kbt_c_int(o, b[KB_COND_FP32_VER].idx >= 0);
            kbt_c_str(o, b[KB_COND_FP32_STD].idx >= 0 ? c->samples[b[KB_COND_FP32_STD].idx].name : "");
            kbt_c_num(o, b[KB_COND_FP32_STD].kernel_ms);
            kbt_c_num(o, b[KB_COND_FP32_STD].kernel_peak);
            kbt_c_num(o, b[KB_COND_FP32_STD].speedup);
            kbt_c_num(o, b[KB_COND_TF32_STD].speedup);
            kbt_c_str(o, b[KB_COND_FP32_VER].idx >= 0 ? c->samples[b[KB_COND_FP32_VER].idx].name : "");
            kbt_c_num(o, b[KB_COND_FP32_VER].kernel_ms);
            kbt_c_num(o, b[KB_COND_FP32_VER].kernel_peak);
            kbt_c_num(o, b[KB_COND_FP32_VER].speedup);
            kbt_c_num(o, b[KB_COND_TF32_VER].speedup);
            kbt_c_num(o, b[KB_COND_TF32_VER].mem_ratio);
            kbt_c_num(o, kb_roofline_fraction(pr->flops, pr->bytes, b[KB_COND_TF32_VER].kernel_ms));
            kbt_c_num(o, kb_roofline_fraction(pr->flops, pr->bytes, pr->base_ms[KB_BASE_FP32]));
            kbt_c_num(o, kb_roofline_fraction(pr->flops, pr->bytes, pr->base_ms[KB_BASE_TF32]));
            kbt_c_str(o, reason);
            kbt_c_end(o);
        }
    return 0;
}

static void dist_failed_list(const kb_sample_rec *s, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t k = 0; k < s->n_dists; k++)
        if (s->dists[k].ran && !s->dists[k].skipped && !s->dists[k].pass) {
            size_t l = strlen(buf);
            snprintf(buf + l, len - l, "%s%s", l ? " " : "", s->dists[k].name);
        }
}

static int rows_cells(const kb_report *r, kbt_out *o, kb_err *err)
{
    (void)err;
    const kb_data *d = &r->data;
    for (size_t m = 0; m < d->n_models; m++)
        for (size_t p = 0; p < d->n_problems; p++) {
            const kb_problem_rec *pr = &d->problems[p];
            const kb_cell_rec *c = kb_data_cell(d, m, p);
            for (size_t i = 0; i < c->n; i++) {
                const kb_sample_rec *s = &c->samples[i];
                char failed[128];
                dist_failed_list(s, failed, sizeof failed);
                kbt_c_str(o, d->models[m]);
                kbt_c_str(o, pr->id);
                kbt_c_str(o, s->name);
                kbt_c_str(o, s->compile_outcome[0] ? s->compile_outcome : "missing");
                kbt_c_int(o, s->compiled);
                kbt_c_str(o, s->scan_verdict);
                kbt_c_str(o, s->flags);
                kbt_c_int(o, s->calls_library);
                kbt_c_str(o, s->std_outcome[0] ? s->std_outcome : "missing");
                kbt_c_int(o, s->std_correct);
                kbt_c_int(o, s->trials_run);
                kbt_c_int(o, s->trials_passed);
                kbt_c_num(o, s->std_tau_req);
                kbt_c_num(o, s->kernel_ms);
                kbt_c_str(o, s->ver_outcome[0] ? s->ver_outcome : "missing");
                kbt_c_int(o, s->hidden_pass);
                kbt_c_int(o, kb_sample_passes(s, (kb_gate){KB_GATE_VERIFIED, NAN, 0}));
                kbt_c_str(o, s->reason);
                kbt_c_str(o, failed);
                kbt_c_num(o, s->hid_tau_req);
                kbt_c_str(o, s->mem_outcome[0] ? s->mem_outcome : "missing");
                kbt_c_num(o, s->peak_bytes);
                kbt_c_str(o, kb_baseline_name(r->baseline));
                kbt_c_num(o, kb_ratio(pr->base_ms[KB_BASE_FP32], s->kernel_ms));
                kbt_c_num(o, kb_ratio(pr->base_ms[KB_BASE_TF32], s->kernel_ms));
                kbt_c_str(o, s->kind);
                kbt_c_str(o, s->libraries);
                kbt_c_str(o, s->torch_libs);
                kbt_c_num(o, s->kernel_ci_lo_ms);
                kbt_c_num(o, s->kernel_ci_hi_ms);
                kbt_c_end(o);
            }
        }
    return 0;
}

static int rows_tolerance(const kb_report *r, kbt_out *o, kb_err *err)
{
    (void)err;
    const kb_data *d = &r->data;
    for (size_t m = 0; m < d->n_models; m++)
        for (int li = 0; li <= r->n_levels; li++) {
            int level = li < r->n_levels ? r->levels[li] : 0;
            char lname[16];
            kbt_level_name(level, lname, sizeof lname);
            for (int t = 0; t < 3; t++)
                for (int gk = 0; gk < 2; gk++)
                    for (int b = 0; b < KB_N_BASE; b++) {
                        kb_gate g = {(kb_gate_kind)gk, kbt_tol_taus[t], 0};
                        kb_metrics mt;
                        kb_metrics_compute(d, m, level, g, (kb_base)b, &mt);
                        int na = gk == KB_GATE_VERIFIED && !r->hidden_tau_based;
                        kbt_c_str(o, d->models[m]);
                        kbt_c_str(o, lname);
                        kbt_c_num(o, kbt_tol_taus[t]);
                        kbt_c_str(o, gk == KB_GATE_VERIFIED ? "verified" : "standard");
                        kbt_c_str(o, kb_base_name((kb_base)b));
                        kbt_c_str(o, kb_baseline_name(r->baseline));
                        kbt_c_int(o, (long long)mt.n_problems);
                        if (na) {
                            kbt_c_str(o, "");
                            kbt_c_num(o, NAN);
                            kbt_c_num(o, NAN);
                            kbt_c_num(o, NAN);
                            kbt_c_str(o, "");
                            kbt_c_str(o, "the strict protocol's hidden check is not tau-based");
                        } else {
                            kbt_c_int(o, (long long)mt.n_correct);
                            kbt_c_num(o, mt.correctness);
                            kbt_c_num(o, mt.speedup);
                            kbt_c_num(o, mt.fast[3]);
                            kbt_c_int(o, (long long)mt.n_undetermined);
                            kbt_c_str(o, mt.n_undetermined ? "undetermined samples stopped at a wrong trial and count as failures"
                                                        : "");
                        }
                        kbt_c_end(o);
                    }
        }
    return 0;
}

static int rows_reach(const kb_report *r, kbt_out *o, kb_err *err)
{
    const kb_data *d = &r->data;
    int *tm = calloc(d->n_models + 1, sizeof *tm), *hm = calloc(d->n_models + 1, sizeof *hm);
    if (!tm || !hm) {
        free(tm);
        free(hm);
        return kbt_out_oom(o, err);
    }
    for (size_t p = 0; p < d->n_problems; p++) {
        kb_reach_cat cat = kb_reach(d, p, tm, hm);
        char tl[2048], hl[2048];
        kbt_model_list(d, tm, tl, sizeof tl);
        kbt_model_list(d, hm, hl, sizeof hl);
        kbt_c_str(o, d->problems[p].id);
        kbt_c_int(o, d->problems[p].level);
        kbt_c_int(o, d->problems[p].excluded);
        kbt_c_str(o, kb_baseline_name(r->baseline));
        kbt_c_str(o, kb_reach_name(cat));
        kbt_c_int(o, cat == KB_REACH_TF32_ONLY || cat == KB_REACH_BOTH);
        kbt_c_int(o, cat == KB_REACH_HIDDEN_ONLY || cat == KB_REACH_BOTH);
        kbt_c_str(o, tl);
        kbt_c_str(o, hl);
        kbt_c_end(o);
    }
    free(tm);
    free(hm);
    return 0;
}

static int rows_distributions(const kb_report *r, kbt_out *o, kb_err *err)
{
    (void)err;
    const kb_data *d = &r->data;
    for (size_t m = 0; m <= d->n_models; m++)
        for (int best = 0; best < 2; best++) {
            kb_dist_counts v[KBT_MAX_DIST_NAMES];
            size_t n;
            kbt_dist_rows(d, m, best, v, &n);
            for (size_t i = 0; i < n; i++) {
                kbt_c_str(o, m < d->n_models ? d->models[m] : "all");
                kbt_c_str(o, best ? "best" : "all");
                kbt_c_str(o, v[i].name);
                kbt_c_int(o, (long long)v[i].samples);
                kbt_c_int(o, (long long)v[i].ran);
                kbt_c_int(o, (long long)v[i].skipped);
                kbt_c_int(o, (long long)v[i].passed);
                kbt_c_int(o, (long long)v[i].failed);
                kbt_c_int(o, (long long)v[i].not_run);
                kbt_c_end(o);
            }
        }
    return 0;
}

static int rows_verdicts(const kb_report *r, kbt_out *o, kb_err *err)
{
    const kb_data *d = &r->data;
    for (size_t m = 0; m < d->n_models; m++)
        for (int gk = 0; gk < 2; gk++)
            for (int v = 0; v < KB_N_VERDICT; v++) {
                kb_tally t = {0};
                if (kb_verdict_tally(d, m, 0, (kb_gate_kind)gk, (kb_verdict)v, &t) != 0) {
                    kb_tally_free(&t);
                    return kbt_out_oom(o, err);
                }
                kb_tally_sort(&t);
                for (size_t i = 0; i < t.n; i++) {
                    kbt_c_str(o, d->models[m]);
                    kbt_c_str(o, r->protocol);
                    kbt_c_str(o, gk == KB_GATE_VERIFIED ? "verified" : "standard");
                    kbt_c_str(o, kb_verdict_name((kb_verdict)v));
                    kbt_c_str(o, t.keys[i]);
                    kbt_c_int(o, (long long)t.counts[i]);
                    kbt_c_end(o);
                }
                kb_tally_free(&t);
            }
    return 0;
}

static int rows_flags(const kb_report *r, kbt_out *o, kb_err *err)
{
    const kb_data *d = &r->data;
    for (size_t m = 0; m < d->n_models; m++)
        for (int li = 0; li <= r->n_levels; li++) {
            int level = li < r->n_levels ? r->levels[li] : 0;
            char lname[16];
            kbt_level_name(level, lname, sizeof lname);
            kb_sample_counts sc;
            kb_sample_counts_compute(d, m, level, &sc);
            kbt_c_str(o, d->models[m]);
            kbt_c_str(o, lname);
            kbt_c_str(o, "library");
            kbt_c_str(o, "calls_library");
            kbt_c_int(o, (long long)sc.library);
            kbt_c_end(o);
            kb_tally t = {0};
            if (kb_flag_tally(d, m, level, &t) != 0) {
                kb_tally_free(&t);
                return kbt_out_oom(o, err);
            }
            kb_tally_sort(&t);
            for (size_t i = 0; i < t.n; i++) {
                kbt_c_str(o, d->models[m]);
                kbt_c_str(o, lname);
                kbt_c_str(o, "flag");
                kbt_c_str(o, t.keys[i]);
                kbt_c_int(o, (long long)t.counts[i]);
                kbt_c_end(o);
            }
            kb_tally_free(&t);
        }
    return 0;
}

/* ---- the tables' descriptions --------------------------------------------------------------- */

static const char *const cols_summary[] = {"model", "display_name", "protocol", "level", "condition", "baseline",
                                           "baseline_impl", "gate", "n_problems", "n_correct", "correctness", "n_speedup", "speedup",
                                           "fast_0", "fast_0.5", "fast_0.8", "fast_1", "fast_1.5", "fast_2", "n_mem",
                                           "mem_eff", "mem_eff_pct", "mem_increase", "samples", "compiled",
                                           "compile_rate", "library_samples", "flagged_samples", "std_accepted",
                                           "std_rejected", "std_not_run", "ver_accepted", "ver_rejected",
                                           "ver_not_run"};
static const char *const cols_problems[] = {"model", "problem", "level", "title", "excluded", "samples",
                                            "compiled_samples", "flops", "bytes", "baseline_impl", "base_fp32_ms", "base_tf32_ms",
                                            "base_fp32_peak_bytes", "base_tf32_peak_bytes", "standard_correct",
                                            "verified", "best_standard_sample", "best_standard_ms",
                                            "best_standard_peak_bytes", "speedup_fp32_standard",
                                            "speedup_tf32_standard", "best_verified_sample", "best_verified_ms",
                                            "best_verified_peak_bytes", "speedup_fp32_verified",
                                            "speedup_tf32_verified", "mem_ratio_tf32_verified",
                                            "roofline_kernel_verified", "roofline_base_fp32", "roofline_base_tf32",
                                            "reason"};
static const char *const cols_cells[] = {"model", "problem", "sample", "compile", "compiled", "scan_verdict", "flags",
                                         "calls_library", "sanity", "standard_correct", "trials_run", "trials_passed",
                                         "std_tau_req", "kernel_ms", "verify", "hidden_pass", "verified", "reason",
                                         "dists_failed", "hid_tau_req", "memory", "peak_bytes", "baseline_impl", "speedup_fp32",
                                         "speedup_tf32", "kind", "libraries", "torch_op_libraries", "kernel_ci_lo_ms",
                                         "kernel_ci_hi_ms"};
static const char *const cols_tolerance[] = {"model", "level", "tau", "gate", "baseline", "baseline_impl", "n_problems", "n_correct",
                                             "correctness", "speedup", "fast_1", "undetermined_samples", "note"};
static const char *const cols_reach[] = {"problem", "level", "excluded", "baseline_impl", "category", "tf32_changed", "hidden_changed",
                                         "tf32_models", "hidden_models"};
static const char *const cols_distributions[] = {"model", "scope", "distribution", "samples", "ran", "skipped",
                                                 "passed", "failed", "not_run"};
static const char *const cols_verdicts[] = {"model", "protocol", "check", "verdict", "reason", "samples"};
static const char *const cols_flags[] = {"model", "level", "kind", "category", "samples"};

#define TABLE(name) {#name, cols_##name, sizeof cols_##name / sizeof cols_##name[0], rows_##name}
/* In results.json's order; kb_write_tables writes the first (summary.csv, make's target) last. */
static const csv_table csv_tables[] = {TABLE(summary), TABLE(problems),      TABLE(cells),    TABLE(tolerance),
                                       TABLE(reach),   TABLE(distributions), TABLE(verdicts), TABLE(flags)};
#undef TABLE
#define N_CSV_TABLES (sizeof csv_tables / sizeof csv_tables[0])

static int write_csv(const csv_table *t, const kb_report *r, const char *dir, kb_err *err)
{
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    kbt_c_header(&o, t->cols, t->n_cols);
    if (t->rows(r, &o, err) != 0)
        return -1; /* o dropped (kbt_out_oom) */
    char name[64];
    snprintf(name, sizeof name, "%s.csv", t->name);
    return kbt_out_commit(&o, dir, name, err);
}

static int write_warnings(const kb_report *r, const char *dir, kb_err *err)
{
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    for (size_t i = 0; i < r->notes.n; i++)
        fprintf(o.f, "%s\n", r->notes.lines[i]);
    return kbt_out_commit(&o, dir, "warnings.txt", err);
}

/* ---- results.json: every CSV table, its columns with units ------------------------------------ */

/* The unit of a table column: what a number in it counts or measures (docs/metrics.md). */
static const char *column_unit(const char *c)
{
    size_t n = strlen(c);
    static const struct { const char *name, *unit; } exact[] = {
        {"correctness", "fraction of the problems (0..1)"},
        {"compile_rate", "fraction of the samples (0..1)"},
        {"mem_eff", "ratio: baseline peak bytes / kernel peak bytes (geometric mean)"},
        {"mem_eff_pct", "fraction of the problems (0..1)"},
        {"mem_increase", "fraction of the correctly solved problems (0..1)"},
        {"speedup", "ratio: baseline time / kernel time (geometric mean)"},
        {"tau", "allclose atol = rtol (dimensionless)"},
        {"flops", "floating-point operations"},
        {"bytes", "bytes"},
        {"level", NULL},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(c, exact[i].name))
            return exact[i].unit;
    if (!strncmp(c, "fast_", 5))
        return "fraction of the problems (0..1)";
    if (!strncmp(c, "speedup_", 8))
        return "ratio: baseline time / kernel time";
    if (n > 3 && !strcmp(c + n - 3, "_ms"))
        return "ms";
    if (n > 6 && !strcmp(c + n - 6, "_bytes"))
        return "bytes";
    if (n > 8 && !strcmp(c + n - 8, "_tau_req"))
        return "dimensionless: the tau the output would need";
    if (!strncmp(c, "n_", 2) || !strcmp(c, "samples") || !strncmp(c, "trials_", 7) || strstr(c, "_samples") ||
        !strcmp(c, "ran") || !strcmp(c, "skipped") || !strcmp(c, "passed") || !strcmp(c, "failed") ||
        !strcmp(c, "not_run") || !strncmp(c, "std_", 4) || !strncmp(c, "ver_", 4) || !strcmp(c, "compiled") ||
        !strcmp(c, "compiled_samples") || !strcmp(c, "tf32_models") || !strcmp(c, "hidden_models"))
        return "count";
    return NULL; /* a name, a label, a flag or a reason */
}

static void json_str(FILE *f, const char *v)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* a cell: a JSON number when it is one whole (NaN, inf -> null), else a string */
static void json_cell(FILE *f, const char *v)
{
    char *end;
    if (!*v) {
        fputs("null", f);
        return;
    }
    double d = strtod(v, &end);
    if (*end == '\0' && end != v) {
        if (isfinite(d))
            fputs(v, f);
        else
            fputs("null", f);
    } else {
        json_str(f, v);
    }
}

static int write_results_json(const kb_report *r, const char *out_dir, kb_err *err)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/results.json", out_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return kb_errf(err, KB_EXIT_FAIL, "cannot write %s: %s", tmp, strerror(errno));
    const char *rev = getenv("KB_GIT_REV");
    fprintf(f, "{\n  \"schema\": 1,\n  \"protocol\": ");
    json_str(f, r->protocol);
    fprintf(f, ",\n  \"baseline\": ");
    json_str(f, kb_baseline_name(r->baseline));
    fprintf(f, ",\n  \"baseline_time\": ");
    if (r->baseline == KB_BASELINE_TORCH) {
        char what[128];
        snprintf(what, sizeof what, "PyTorch eager: fidelity.h5 /<fp32|tf32>/%s @torch_ms", r->base_timer[0] ? r->base_timer : "<timer>");
        json_str(f, what);
    } else {
        json_str(f, "the C baseline: baseline-time.h5 /<fp32|tf32>/timing @reported_ms");
    }
    fprintf(f, ",\n  \"artifacts\": ");
    json_str(f, r->artifacts);
    fprintf(f, ",\n  \"harness_rev\": ");
    json_str(f, rev && rev[0] ? rev : "unknown");
    fprintf(f, ",\n  \"doc\": \"docs/metrics.md (metrics, tables), docs/artifacts.md (raw data)\",\n  \"tables\": {");
    int rc = 0;
    for (size_t t = 0; t < N_CSV_TABLES && rc == 0; t++) {
        char csv[4200];
        snprintf(csv, sizeof csv, "%s/%s.csv", out_dir, csv_tables[t].name);
        kbt_csv ct;
        if (kbt_csv_read(csv, &ct, err) != 0) {
            rc = -1;
            break;
        }
        fprintf(f, "%s\n    \"%s\": {\n      \"columns\": [", t ? "," : "", csv_tables[t].name);
        size_t n_cols = ct.n ? ct.ncols[0] : 0;
        for (size_t c = 0; c < n_cols; c++) {
            const char *u = column_unit(ct.rows[0][c]);
            fprintf(f, "%s\n        {\"name\": ", c ? "," : "");
            json_str(f, ct.rows[0][c]);
            fprintf(f, ", \"unit\": ");
            if (u)
                json_str(f, u);
            else
                fputs("null", f);
            fputc('}', f);
        }
        fprintf(f, "\n      ],\n      \"rows\": [");
        int first = 1;
        for (size_t row = 1; row < ct.n; row++) {
            if (kbt_csv_blank(&ct, row))
                continue;
            fprintf(f, "%s\n        [", first ? "" : ",");
            first = 0;
            for (size_t c = 0; c < n_cols; c++) {
                if (c)
                    fputs(", ", f);
                json_cell(f, kbt_csv_cell(&ct, row, (int)c));
            }
            fputc(']', f);
        }
        fprintf(f, "\n      ]\n    }");
        kbt_csv_free(&ct);
    }
    fprintf(f, "\n  }\n}\n");
    if (fclose(f) != 0 && rc == 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "cannot write %s: %s", tmp, strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "cannot rename %s: %s", tmp, strerror(errno));
    if (rc != 0)
        unlink(tmp);
    return rc;
}

int kb_write_tables(const kb_report *r, const char *out_dir, kb_err *err)
{
    if (kb_mkdirs(out_dir, err) != 0)
        return -1;
    for (size_t t = 1; t < N_CSV_TABLES; t++)
        if (write_csv(&csv_tables[t], r, out_dir, err) != 0)
            return -1;
    if (kbt_write_markdown(r, out_dir, err) || kbt_write_latex(r, out_dir, err) || write_warnings(r, out_dir, err))
        return -1;
    /* summary.csv is make's target: written last, and removed again if results.json fails */
    if (write_csv(&csv_tables[0], r, out_dir, err) != 0)
        return -1;
    if (write_results_json(r, out_dir, err) != 0) {
        char p[4200];
        snprintf(p, sizeof p, "%s/summary.csv", out_dir);
        unlink(p);
        return -1;
    }
    return 0;
}
