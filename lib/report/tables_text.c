/* tables_text.c -- kb-aggregate's Markdown (tables.md) and LaTeX (tables.tex) tables (kb_table.h).
 * The tables both carry are described once (text_table: title and caption, columns, the values
 * and their formats) and written by one renderer in either dialect; the Markdown-only tables
 * follow. */
#include "report/kb_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== the tables of both files ================================================================= */

/* A value of a model at a level under a condition: ours (kb_metrics) or the paper's. */
typedef enum { V_SPEEDUP, V_CORRECTNESS, V_FAST_1, V_MEM_EFF, V_MEM_EFF_PCT, V_MEM_INCREASE } value_kind;
typedef enum { F_SIG, F_PCT } value_fmt; /* kbt_h_sig, kbt_h_pct */

typedef struct value_desc {
    const char *head, *tex_head; /* the column's head (a table of values), LaTeX's if it differs */
    kb_cond cond;
    value_kind value;
    value_fmt fmt;
    const char *paper; /* the metric in reference/paper-tables.csv; NULL: speedup_<condition> */
    int md_only;       /* a column of the Markdown table only */
} value_desc;

/* A table of models (a row each, and the paper's row under it where models.csv maps the model to
 * a paper model), either per level (a column per level, and pooled where `pooled`: the cell its
 * values joined by " / ") or pooled over levels (a column per value). */
typedef struct text_table {
    const char *title; /* Markdown's "## " heading; a format of the pooled problem count where by_value */
    const char *what;  /* Markdown's line under it, or NULL */
    const char *caption, *label; /* LaTeX */
    int by_value;      /* 0: a column per level; 1: a column per value, pooled over levels */
    int pooled;        /* per level: a pooled column after the levels */
    const value_desc *values;
    size_t n_values;
} text_table;

#define HEADLINE(v, f, key) {NULL, NULL, KB_COND_HEADLINE, v, f, key, 0}
static const value_desc v_head[] = {HEADLINE(V_SPEEDUP, F_SIG, "speedup"),
                                    HEADLINE(V_CORRECTNESS, F_PCT, "correctness"),
                                    HEADLINE(V_FAST_1, F_PCT, "fast_1")};
static const value_desc v_memory[] = {HEADLINE(V_MEM_EFF, F_SIG, "mem_eff"), HEADLINE(V_MEM_EFF_PCT, F_PCT, "mem_eff_pct")};
#undef HEADLINE
static const value_desc v_pooled[] = {
    {"Speedup", NULL, KB_COND_HEADLINE, V_SPEEDUP, F_SIG, "speedup", 0},
    {"Corr", NULL, KB_COND_HEADLINE, V_CORRECTNESS, F_PCT, "correctness", 0},
    {"Fast@1", NULL, KB_COND_HEADLINE, V_FAST_1, F_PCT, "fast_1", 0},
    {"Mem Eff", NULL, KB_COND_HEADLINE, V_MEM_EFF, F_SIG, "mem_eff", 0},
    {"Mem Eff %", "Mem Eff \\%", KB_COND_HEADLINE, V_MEM_EFF_PCT, F_PCT, "mem_eff_pct", 0},
    {"correct kernels raising peak memory", NULL, KB_COND_HEADLINE, V_MEM_INCREASE, F_PCT, "mem_increase", 1},
};
#define COND(c) {NULL, NULL, c, V_SPEEDUP, F_SIG, NULL, 0}
static const value_desc v_conditions[] = {COND(KB_COND_FP32_STD), COND(KB_COND_FP32_VER), COND(KB_COND_TF32_STD),
                                          COND(KB_COND_TF32_VER)};
#undef COND
#define VALUES(v) v, sizeof v / sizeof v[0]

/* In the order of both files. */
static const text_table shared_tables[] = {
    {"Table 1: verified protocol (TF32 baseline x verified check)", "Speedup / Corr / Fast@1 per level.",
     "Verified protocol (TF32 baseline, hidden-distribution check), best-of-$N$: Correct Speedup / Correctness / "
     "Fast@1.",
     "tab:headline", 0, 0, VALUES(v_head)},
    {"Table 2: memory (TF32 baseline x verified check)", "Mem Eff / Mem Eff % per level.",
     "Memory: Mem Eff (geomean of baseline peak / kernel peak) / Mem Eff \\%.", "tab:memory", 0, 0, VALUES(v_memory)},
    {"Pooled over levels (TF32 x verified, n=%zu)", NULL, "Pooled over levels (TF32 baseline, verified check).",
     "tab:pooled", 1, 0, VALUES(v_pooled)},
    {"Four-condition decomposition (Correct Speedup)",
     "FP32 x standard / FP32 x verified / TF32 x standard / TF32 x verified.",
     "Four-condition decomposition of Correct Speedup: FP32 baseline + standard check / FP32 + hidden / TF32 + "
     "standard / TF32 + hidden.",
     "tab:conditions", 0, 1, VALUES(v_conditions)},
};
#undef VALUES

static double metric_value(const kb_metrics *mt, value_kind v)
{
    switch (v) {
    case V_SPEEDUP:
        return mt->speedup;
    case V_CORRECTNESS:
        return mt->correctness;
    case V_FAST_1:
        return mt->fast[3]; /* kb_fastp_p[3] = 1 */
    case V_MEM_EFF:
        return mt->mem_eff;
    case V_MEM_EFF_PCT:
        return mt->mem_eff_pct;
    case V_MEM_INCREASE:
        return mt->mem_increase;
    }
    return NAN;
}

/* One value of model m at a level, ours or (from_paper) the paper's, formatted. */
static const char *value_text(const kb_report *r, size_t m, int level, const value_desc *v, int from_paper, int tex)
{
    double x;
    if (from_paper) {
        char key[64];
        if (v->paper) {
            snprintf(key, sizeof key, "%s", v->paper);
        } else {
            snprintf(key, sizeof key, "speedup_%s", kb_cond_name(v->cond));
            for (char *q = key; *q; q++)
                if (*q == '-')
                    *q = '_';
        }
        x = kbt_paper(r, m, level, key);
    } else {
        kb_metrics mt;
        kb_metrics_compute(&r->data, m, level, kb_cond_gate(v->cond), kb_cond_base(v->cond), &mt);
        x = metric_value(&mt, v->value);
    }
    return v->fmt == F_SIG ? kbt_h_sig(x, tex) : kbt_h_pct(x, tex);
}

/* The dialects: a table's frame, its head, a row. */
static void head_cell(kbt_out *o, int tex, const char *text)
{
    fprintf(o->f, tex ? " & %s" : " %s |", text);
}

static void begin_row(kbt_out *o, int tex, const kb_report *r, size_t m, int from_paper)
{
    if (!tex)
        fprintf(o->f, from_paper ? "| %s (paper) |" : "| %s |",
                kbt_md_esc(from_paper ? r->models[m].paper : r->models[m].display));
    else
        fprintf(o->f, from_paper ? "\\quad\\textit{paper: %s}" : "%s",
                kbt_tex_esc(from_paper ? r->models[m].paper : r->models[m].display));
}

static void end_row(kbt_out *o, int tex) { fprintf(o->f, tex ? " \\\\\n" : "\n"); }

static int shown(const value_desc *v, int tex) { return !(tex && v->md_only); }

static void text_table_write(kbt_out *o, const kb_report *r, const text_table *t, int tex)
{
    const kb_data *d = &r->data;
    int ncols = 0;
    if (t->by_value) {
        for (size_t k = 0; k < t->n_values; k++)
            ncols += shown(&t->values[k], tex);
    } else {
        ncols = r->n_levels + t->pooled;
    }
    if (tex) {
        fprintf(o->f, "\\begin{table}[t]\n\\centering\n\\small\n\\caption{%s Speedups against %s.}\n\\label{%s}\n\\begin{tabular}{l",
                t->caption, kb_baseline_label(r->baseline), t->label);
        for (int c = 0; c < ncols; c++)
            fprintf(o->f, "c");
        fprintf(o->f, "}\n\\toprule\nModel");
    } else {
        fprintf(o->f, "## ");
        fprintf(o->f, t->title, kbt_level_problems(d, 0));
        fprintf(o->f, "\n\n");
        if (t->what)
            fprintf(o->f, "%s\n\n", t->what);
        fprintf(o->f, "| Model |");
    }
    if (t->by_value) {
        for (size_t k = 0; k < t->n_values; k++)
            if (shown(&t->values[k], tex))
                head_cell(o, tex, tex && t->values[k].tex_head ? t->values[k].tex_head : t->values[k].head);
    } else {
        for (int li = 0; li < ncols; li++) {
            int level = li < r->n_levels ? r->levels[li] : 0;
            char ls[16], head[64];
            kbt_level_short(level, ls, sizeof ls);
            snprintf(head, sizeof head, tex ? "%s ($n=%zu$)" : "%s (n=%zu)", ls, kbt_level_problems(d, level));
            head_cell(o, tex, head);
        }
    }
    if (tex) {
        fprintf(o->f, " \\\\\n\\midrule\n");
    } else {
        fprintf(o->f, "\n|---|");
        for (int c = 0; c < ncols; c++)
            fprintf(o->f, "---|");
        fprintf(o->f, "\n");
    }
    for (size_t m = 0; m < d->n_models; m++)
        for (int src = 0; src < 2; src++) {
            if (src == 1 && !kbt_has_paper(r, m))
                continue;
            begin_row(o, tex, r, m, src);
            if (t->by_value) {
                for (size_t k = 0; k < t->n_values; k++)
                    if (shown(&t->values[k], tex))
                        head_cell(o, tex, value_text(r, m, 0, &t->values[k], src, tex));
            } else {
                for (int li = 0; li < ncols; li++) {
                    int level = li < r->n_levels ? r->levels[li] : 0;
                    char buf[256] = "";
                    for (size_t k = 0; k < t->n_values; k++) {
                        size_t l = strlen(buf);
                        snprintf(buf + l, sizeof buf - l, "%s%s", k ? " / " : "",
                                 value_text(r, m, level, &t->values[k], src, tex));
                    }
                    head_cell(o, tex, buf);
                }
            }
            end_row(o, tex);
        }
    if (tex)
        fprintf(o->f, "\\bottomrule\n\\end{tabular}\n\\end{table}\n\n");
    else {
        if (d->n_models == 0 && !t->by_value)
            fprintf(o->f, "| (no models yet) |%s\n", ncols ? " |" : "");
        fprintf(o->f, "\n");
    }
}

/* ==== the Markdown-only tables ================================================================= */

static void md_fastp(kbt_out *o, const kb_report *r)
{
    const kb_data *d = &r->data;
    fprintf(o->f, "## Fast@p (pooled; share of ALL problems whose best correct sample beats p x the baseline)\n\n"
                  "| Model | condition |");
    for (int k = 0; k < KB_N_FASTP; k++)
        fprintf(o->f, " p=%g |", kb_fastp_p[k]);
    fprintf(o->f, "\n|---|---|");
    for (int k = 0; k < KB_N_FASTP; k++)
        fprintf(o->f, "---|");
    fprintf(o->f, "\n");
    for (size_t m = 0; m < d->n_models; m++)
        for (int c = 0; c < KB_N_COND; c += 3) { /* FP32 x standard (KernelBench) and TF32 x verified */
            kb_metrics mt;
            kb_metrics_compute(d, m, 0, kb_cond_gate((kb_cond)c), kb_cond_base((kb_cond)c), &mt);
            fprintf(o->f, "| %s | %s |", kbt_md_esc(r->models[m].display), kb_cond_label((kb_cond)c));
            for (int k = 0; k < KB_N_FASTP; k++)
                fprintf(o->f, " %s |", kbt_h_pct(mt.fast[k], 0));
            fprintf(o->f, "\n");
        }
    fprintf(o->f, "\n");
}

static void md_tolerance(kbt_out *o, const kb_report *r)
{
    const kb_data *d = &r->data;
    fprintf(o->f, "## Tolerance sensitivity (pooled; re-evaluated from the archived tau_req, no re-run)\n\n"
                  "Standard = FP32 baseline x standard check at tau; verified = TF32 baseline x (standard and hidden "
                  "checks at tau)%s.\n\n"
                  "| Model | tau | Corr std | Speedup std | Fast@1 std | Corr verified | Speedup verified | Fast@1 verified | undetermined samples |\n"
                  "|---|---|---|---|---|---|---|---|---|\n",
            r->hidden_tau_based ? "" : " (not tau-based in the strict protocol: --)");
    for (size_t m = 0; m < d->n_models; m++)
        for (int t = 0; t < 3; t++) {
            kb_metrics s, v;
            kb_metrics_compute(d, m, 0, (kb_gate){KB_GATE_STANDARD, kbt_tol_taus[t], 0}, KB_BASE_FP32, &s);
            kb_metrics_compute(d, m, 0, (kb_gate){KB_GATE_VERIFIED, kbt_tol_taus[t], 0}, KB_BASE_TF32, &v);
            int na = !r->hidden_tau_based;
            fprintf(o->f, "| %s | %s | %s | %s | %s | %s | %s | %s | %zu |\n", kbt_md_esc(r->models[m].display),
                    kbt_h_tau(kbt_tol_taus[t]), kbt_h_pct(s.correctness, 0), kbt_h_sig(s.speedup, 0), kbt_h_pct(s.fast[3], 0),
                    na ? "–" : kbt_h_pct(v.correctness, 0), na ? "–" : kbt_h_sig(v.speedup, 0), na ? "–" : kbt_h_pct(v.fast[3], 0),
                    s.n_undetermined);
        }
    fprintf(o->f, "\n");
}

static void md_reach(kbt_out *o, const kb_report *r)
{
    const kb_data *d = &r->data;
    size_t cnt[4] = {0};
    int *tm = calloc(d->n_models + 1, sizeof *tm), *hm = calloc(d->n_models + 1, sizeof *hm);
    if (!tm || !hm) {
        free(tm);
        free(hm);
        return;
    }
    for (size_t p = 0; p < d->n_problems; p++)
        cnt[kb_reach(d, p, NULL, NULL)]++;
    size_t n = d->n_problems;
    fprintf(o->f, "## Per-problem reach (union over models; share of the %zu listed problems)\n\n"
                  "A problem is changed by TF32 if some model's best sample is fast@1 under FP32 x standard and not "
                  "under TF32 x standard; by the hidden check if fast@1 under FP32 x standard and not under FP32 x verified.\n\n"
                  "| category | problems | share | paper |\n|---|---|---|---|\n",
            n);
    static const char *refkey[4] = {"", "reach_tf32_only", "reach_hidden_only", "reach_both"};
    for (int c = 1; c <= 3; c++) {
        double pv = kb_ref_value(r->ref, r->n_ref, "union", "all", refkey[c]);
        char pbuf[64];
        if (isnan(pv))
            snprintf(pbuf, sizeof pbuf, "–");
        else
            snprintf(pbuf, sizeof pbuf, "%.0f (%s)", pv,
                     kbt_h_pct(kb_ref_value(r->ref, r->n_ref, "union", "all", "problems_listed") > 0
                               ? pv / kb_ref_value(r->ref, r->n_ref, "union", "all", "problems_listed")
                               : NAN,
                           0));
        fprintf(o->f, "| %s | %zu | %s | %s |\n", kb_reach_name((kb_reach_cat)c), cnt[c],
                kbt_h_pct(n ? (double)cnt[c] / (double)n : NAN, 0), pbuf);
    }
    fprintf(o->f, "| neither | %zu | %s | |\n\n", cnt[0], kbt_h_pct(n ? (double)cnt[0] / (double)n : NAN, 0));
    int any = 0;
    for (size_t p = 0; p < d->n_problems; p++) {
        kb_reach_cat c = kb_reach(d, p, tm, hm);
        if (c == KB_REACH_NEITHER)
            continue;
        if (!any++)
            fprintf(o->f, "| problem | category | models losing fast@1 to TF32 | models losing fast@1 to the hidden check |\n"
                          "|---|---|---|---|\n");
        char tl[2048], hl[2048];
        kbt_model_list(d, tm, tl, sizeof tl);
        kbt_model_list(d, hm, hl, sizeof hl);
        fprintf(o->f, "| %s | %s | %s | %s |\n", d->problems[p].id, kb_reach_name(c), tl, hl);
    }
    if (any)
        fprintf(o->f, "\n");
    free(tm);
    free(hm);
}

static void md_distributions(kbt_out *o, const kb_report *r)
{
    const kb_data *d = &r->data;
    /* the union of names, in first-seen order */
    char names[KBT_MAX_DIST_NAMES][KBT_DIST_NAME_LEN];
    size_t nn = 0;
    for (size_t m = 0; m <= d->n_models; m++) {
        kb_dist_counts v[KBT_MAX_DIST_NAMES];
        size_t n;
        kbt_dist_rows(d, m, 0, v, &n);
        for (size_t i = 0; i < n; i++)
            nn = kbt_dist_name_add(names, nn, v[i].name);
    }
    fprintf(o->f, "## Hidden-distribution failures (failed / ran; \"best\" = the best standard-correct sample per problem)\n\n");
    if (nn == 0) {
        fprintf(o->f, "(no verify-distributions artifacts yet)\n\n");
        return;
    }
    fprintf(o->f, "| Model | samples |");
    for (size_t j = 0; j < nn; j++)
        fprintf(o->f, " %s |", names[j]);
    fprintf(o->f, "\n|---|---|");
    for (size_t j = 0; j < nn; j++)
        fprintf(o->f, "---|");
    fprintf(o->f, "\n");
    for (size_t m = 0; m <= d->n_models; m++)
        for (int best = 0; best < 2; best++) {
            kb_dist_counts v[KBT_MAX_DIST_NAMES];
            size_t n;
            kbt_dist_rows(d, m, best, v, &n);
            fprintf(o->f, "| %s | %s |", m < d->n_models ? kbt_md_esc(r->models[m].display) : "all models",
                    best ? "best" : "all");
            for (size_t j = 0; j < nn; j++) {
                size_t i = 0;
                while (i < n && strcmp(v[i].name, names[j]))
                    i++;
                if (i < n)
                    fprintf(o->f, " %zu / %zu%s |", v[i].failed, v[i].ran,
                            v[i].skipped ? (v[i].skipped == 1 ? " (1 skipped)" : " (skips)") : "");
                else
                    fprintf(o->f, " – |");
            }
            fprintf(o->f, "\n");
        }
    fprintf(o->f, "\n");
}

static void md_verdicts(kbt_out *o, const kb_report *r)
{
    const kb_data *d = &r->data;
    fprintf(o->f, "## Verdicts (samples, protocol %s)\n\n"
                  "| Model | samples | compiled | compile rate | call a library | flagged | standard accepted / rejected / not run | verified accepted / rejected / not run | why the verified check rejected |\n"
                  "|---|---|---|---|---|---|---|---|---|\n",
            r->protocol);
    for (size_t m = 0; m < d->n_models; m++) {
        kb_sample_counts sc;
        kb_sample_counts_compute(d, m, 0, &sc);
        kb_tally t = {0};
        kb_verdict_tally(d, m, 0, KB_GATE_VERIFIED, KB_VERDICT_REJECTED, &t);
        kb_tally_sort(&t);
        char why[1024] = "";
        for (size_t i = 0; i < t.n; i++) {
            size_t l = strlen(why);
            snprintf(why + l, sizeof why - l, "%s%s x%zu", l ? "; " : "", kbt_md_esc(t.keys[i]), t.counts[i]);
        }
        kb_tally_free(&t);
        fprintf(o->f, "| %s | %zu | %zu | %s | %zu | %zu | %zu / %zu / %zu | %zu / %zu / %zu | %s |\n",
                kbt_md_esc(r->models[m].display), sc.samples, sc.compiled, kbt_h_pct(sc.compile_rate, 0), sc.library, sc.flagged,
                sc.std_accepted, sc.std_rejected, sc.std_not_run, sc.ver_accepted, sc.ver_rejected, sc.ver_not_run, why);
    }
    fprintf(o->f, "\n");
    int any = 0;
    for (size_t m = 0; m < d->n_models; m++) {
        kb_tally t = {0};
        kb_flag_tally(d, m, 0, &t);
        kb_tally_sort(&t);
        for (size_t i = 0; i < t.n; i++) {
            if (!any++)
                fprintf(o->f, "Symbol-scan flags (samples per category):\n\n| Model | category | samples |\n|---|---|---|\n");
            fprintf(o->f, "| %s | %s | %zu |\n", kbt_md_esc(r->models[m].display), kbt_md_esc(t.keys[i]), t.counts[i]);
        }
        kb_tally_free(&t);
    }
    if (any)
        fprintf(o->f, "\n");
}

static void md_problems(kbt_out *o, const kb_report *r)
{
    const kb_data *d = &r->data;
    for (size_t m = 0; m < d->n_models; m++) {
        fprintf(o->f, "## Per problem: %s\n\n"
                      "Kernel = the best verified sample (else the best standard-correct one, marked \"std\"). Speedups "
                      "are baseline time / kernel time; baseline peak is the TF32 mode's.\n\n"
                      "| problem | standard | verified | best | kernel ms | FP32 baseline ms | TF32 baseline ms | x FP32 | x TF32 | kernel peak | baseline peak | note |\n"
                      "|---|---|---|---|---|---|---|---|---|---|---|---|\n",
                kbt_md_esc(r->models[m].display));
        for (size_t p = 0; p < d->n_problems; p++) {
            const kb_problem_rec *pr = &d->problems[p];
            const kb_cell_rec *c = kb_data_cell(d, m, p);
            kb_best bv, bs;
            kb_best_of(c, pr, kb_cond_gate(KB_COND_TF32_VER), KB_BASE_TF32, &bv);
            kb_best_of(c, pr, kb_cond_gate(KB_COND_TF32_STD), KB_BASE_TF32, &bs);
            const kb_best *b = bv.idx >= 0 ? &bv : &bs;
            char best[64] = "–", reason[1024];
            if (b->idx >= 0)
                snprintf(best, sizeof best, "%s%s", c->samples[b->idx].name, bv.idx >= 0 ? "" : " (std)");
            kbt_problem_reason(c, reason, sizeof reason);
            if (pr->excluded)
                snprintf(reason, sizeof reason, "excluded");
            fprintf(o->f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", pr->id,
                    bs.idx >= 0 ? "yes" : "no", bv.idx >= 0 ? "yes" : "no", best, kbt_h_sig(b->kernel_ms, 0),
                    kbt_h_sig(pr->base_ms[KB_BASE_FP32], 0), kbt_h_sig(pr->base_ms[KB_BASE_TF32], 0),
                    kbt_h_sig(kb_ratio(pr->base_ms[KB_BASE_FP32], b->kernel_ms), 0),
                    kbt_h_sig(kb_ratio(pr->base_ms[KB_BASE_TF32], b->kernel_ms), 0), kbt_h_bytes(b->kernel_peak, 0),
                    kbt_h_bytes(pr->base_peak[KB_BASE_TF32], 0), kbt_md_esc(reason));
        }
        fprintf(o->f, "\n");
    }
}

/* Who each model is, as models.csv describes it: what a table citing its numbers must say. One
 * writer for both formats. */
static void models_table(kbt_out *o, const kb_report *r, int tex)
{
    static const char *const head[] = {"Model", "provider", "samples made", "sampling", "samples per problem",
                                       "prompt style", "paper's name"};
    const size_t nh = sizeof head / sizeof head[0];
    if (tex)
        fprintf(o->f, "\\begin{tabular}{lllllll}\n\\toprule\n");
    else
        fprintf(o->f, "## Models\n\n");
    for (size_t i = 0; i < nh; i++)
        fprintf(o->f, tex ? "%s%s" : "%s%s", i ? (tex ? " & " : " | ") : (tex ? "" : "| "), head[i]);
    fprintf(o->f, tex ? " \\\\\n\\midrule\n" : " |\n|---|---|---|---|---|---|---|\n");
    for (size_t m = 0; m < r->data.n_models; m++) {
        const kb_model_info *mi = &r->models[m];
        const char *v[] = {mi->display, mi->provider[0] ? mi->provider : "?", mi->date[0] ? mi->date : "?",
                           mi->sampling[0] ? mi->sampling : "?", NULL, mi->prompt_style[0] ? mi->prompt_style : "?",
                           mi->paper[0] ? mi->paper : "-"};
        char spp[32];
        snprintf(spp, sizeof spp, mi->samples_per_problem > 0 ? "%d" : "?", mi->samples_per_problem);
        v[4] = spp;
        for (size_t i = 0; i < nh; i++)
            fprintf(o->f, "%s%s", i ? (tex ? " & " : " | ") : (tex ? "" : "| "), tex ? kbt_tex_esc(v[i]) : kbt_md_esc(v[i]));
        fprintf(o->f, tex ? " \\\\\n" : " |\n");
    }
    fprintf(o->f, tex ? "\\bottomrule\n\\end{tabular}\n\n" : "\n");
}

/* ==== the files ================================================================================ */

#define N_SHARED (sizeof shared_tables / sizeof shared_tables[0])

int kbt_write_markdown(const kb_report *r, const char *dir, kb_err *err)
{
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    const kb_data *d = &r->data;
    fprintf(o.f, "# KernelBench-Verified tables: protocol %s, speedups against %s (BASELINE=%s)\n\n", r->protocol,
            kb_baseline_label(r->baseline), kb_baseline_name(r->baseline));
    fprintf(o.f, "Made by kb-aggregate from `%s` (%zu models, %zu problems", r->artifacts, d->n_models, d->n_problems);
    for (int li = 0; li < r->n_levels; li++)
        fprintf(o.f, "; level%d: %zu", r->levels[li], kbt_level_problems(d, r->levels[li]));
    fprintf(o.f, "; tau %s). Best-of-N per problem: the fastest correct sample. Speedup = geometric mean over "
                 "correctly solved problems only; Corr, Fast@p and Mem Eff %% are shares of ALL problems (docs/metrics.md). "
                 "Rows marked (paper) are the paper's published numbers (247 problems, 7 models, H200) for the model "
                 "models.csv maps to them: compare them knowing the problem sets differ.\n\n",
            isnan(r->tau) ? "unknown" : kbt_h_tau(r->tau));
    if (r->baseline == KB_BASELINE_TORCH)
        fprintf(o.f, "Baseline: PyTorch eager, timed by the fidelity stage in the same run, in each math mode, under the %s "
                     "timer (fidelity.h5 @torch_ms): the paper's denominator, so the (paper) rows compare like for like. "
                     "The baseline peak (Mem Eff) is the C baseline's memory profile: fidelity.h5 records no eager peak.\n\n",
                r->base_timer[0] ? r->base_timer : "run's");
    else
        fprintf(o.f, "Baseline: the C baseline (problems/levelN/NNN_name.c, baseline-time.h5), timed by the harness's timer "
                     "in each math mode. The paper divides by PyTorch eager: BASELINE=torch gives those tables "
                     "(tables-torch/).\n\n");
    if (r->n_unscoped)
        fprintf(o.f, "%zu of the %zu problems have no baseline: no model has a sample for them (make baselines MODEL=... "
                     "makes baselines only for the problems its models have samples for). Each counts as a failure in "
                     "every share's denominator, as any problem without a sample does; their baseline columns are –.\n\n",
                r->n_unscoped, d->n_problems);
    models_table(&o, r, 0);
    for (size_t t = 0; t < N_SHARED; t++)
        text_table_write(&o, r, &shared_tables[t], 0);
    md_fastp(&o, r);
    md_tolerance(&o, r);
    md_reach(&o, r);
    md_distributions(&o, r);
    md_verdicts(&o, r);
    md_problems(&o, r);
    if (r->notes.n)
        fprintf(o.f, "## Warnings\n\n%zu warnings and errors: see warnings.txt.\n", r->notes.n);
    return kbt_out_commit(&o, dir, "tables.md", err);
}

int kbt_write_latex(const kb_report *r, const char *dir, kb_err *err)
{
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    fprintf(o.f, "%% KernelBench-Verified tables, protocol %s, speedups against %s (BASELINE=%s): made by kb-aggregate from %s.\n"
                 "%% Needs \\usepackage{booktabs}. Rows in italics are the paper's published numbers.\n\n",
            r->protocol, kb_baseline_label(r->baseline), kb_baseline_name(r->baseline), r->artifacts);
    models_table(&o, r, 1);
    for (size_t t = 0; t < N_SHARED; t++)
        text_table_write(&o, r, &shared_tables[t], 1);
    return kbt_out_commit(&o, dir, "tables.tex", err);
}
