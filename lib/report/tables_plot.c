/* tables_plot.c -- kb-aggregate's data files for the gnuplot scripts in plots/ (kb_tables.h). */
#include "report/kb_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Strings in gnuplot data files: double-quoted, no embedded quotes. */
static const char *gq(const char *s)
{
    char *b = kbt_ring_next();
    size_t k = 0;
    b[k++] = '"';
    for (; *s && k + 2 < KBT_RING_LEN; s++)
        b[k++] = *s == '"' ? '\'' : *s;
    b[k++] = '"';
    b[k] = '\0';
    return b;
}

static void g_num(FILE *f, double v)
{
    char buf[64];
    kbt_fmt_full(buf, sizeof buf, isfinite(v) ? v : NAN);
    fprintf(f, " %s", buf);
}

static void problem_label(const char *id, char *buf, size_t len)
{
    int lv = kb_problem_level(id);
    const char *slash = strchr(id, '/');
    if (lv && slash)
        snprintf(buf, len, "L%d/%s", lv, slash + 1);
    else
        snprintf(buf, len, "%s", id);
}

static int plot_speedup_conditions(const kb_report *r, const char *dir, kb_err *err)
{
    const kb_data *d = &r->data;
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    size_t points = 0;
    char *body = NULL;
    size_t blen = 0;
    FILE *b = open_memstream(&body, &blen);
    if (!b) {
        return kbt_out_oom(&o, err);
    }
    for (size_t m = 0; m < d->n_models; m++)
        for (int li = 0; li <= r->n_levels; li++) {
            int level = li < r->n_levels ? r->levels[li] : 0;
            char ls[16], group[200];
            kbt_level_short(level, ls, sizeof ls);
            snprintf(group, sizeof group, "%s %s", r->models[m].display, ls);
            fprintf(b, "%s", gq(group));
            size_t nsp[KB_N_COND];
            for (int c = 0; c < KB_N_COND; c++) {
                kb_metrics mt;
                kb_metrics_compute(d, m, level, kb_cond_gate((kb_cond)c), kb_cond_base((kb_cond)c), &mt);
                g_num(b, mt.speedup);
                nsp[c] = mt.n_speedup;
                points += isfinite(mt.speedup) != 0;
            }
            for (int c = 0; c < KB_N_COND; c++) /* the geomean's n, printed on each bar */
                fprintf(b, " %zu", nsp[c]);
            fprintf(b, "\n");
        }
    fclose(b);
    fprintf(o.f, "# Correct Speedup (geometric mean over correctly solved problems) per model and level, under the\n"
                 "# four conditions; protocol %s. Written by kb-aggregate, read by plots/speedup_conditions.gp.\n"
                 "#protocol: %s\n#baseline: %s\n#models: %zu\n#rows: %zu\n#points: %zu\n"
                 "\"group\" \"FP32 x standard\" \"FP32 x verified\" \"TF32 x standard\" \"TF32 x verified\" "
                 "\"n1\" \"n2\" \"n3\" \"n4\"\n%s",
            r->protocol, r->protocol, kb_baseline_name(r->baseline), d->n_models, d->n_models * (size_t)(r->n_levels + 1), points, body ? body : "");
    free(body);
    return kbt_out_commit(&o, dir, "speedup_conditions.dat", err);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int plot_fastp(const kb_report *r, const char *dir, kb_err *err)
{
    const kb_data *d = &r->data;
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    kb_gate g = kb_cond_gate(KB_COND_HEADLINE);
    kb_base base = kb_cond_base(KB_COND_HEADLINE);
    size_t points = 0;
    double *sp = calloc(d->n_problems + 1, sizeof *sp);
    if (!sp) {
        return kbt_out_oom(&o, err);
    }
    for (size_t m = 0; m < d->n_models; m++)
        points += kbt_level_problems(d, 0) > 0;
    fprintf(o.f, "# Fast@p (share of ALL problems whose best verified sample is faster than p x the TF32 baseline),\n"
                 "# pooled over levels, one block per model: p, Fast@p. Exact step function: a point at p = 0 and at\n"
                 "# every best speedup. Protocol %s. Read by plots/fastp.gp.\n#protocol: %s\n#baseline: %s\n#models: %zu\n#points: %zu\n",
            r->protocol, r->protocol, kb_baseline_name(r->baseline), d->n_models, points);
    for (size_t m = 0; m < d->n_models; m++) {
        size_t n = 0;
        for (size_t p = 0; p < d->n_problems; p++) {
            if (!kb_problem_counts(&d->problems[p], 0))
                continue;
            kb_best b;
            kb_best_of(kb_data_cell(d, m, p), &d->problems[p], g, base, &b);
            if (isfinite(b.speedup))
                sp[n++] = b.speedup;
        }
        qsort(sp, n, sizeof *sp, cmp_double);
        fprintf(o.f, "%s%s\n", m ? "\n\n" : "", gq(r->models[m].display));
        fprintf(o.f, "0");
        g_num(o.f, kb_fast_p(d, m, 0, g, base, 0.0));
        fprintf(o.f, "\n");
        for (size_t i = 0; i < n; i++) {
            if (i && sp[i] == sp[i - 1])
                continue;
            g_num(o.f, sp[i]);
            g_num(o.f, kb_fast_p(d, m, 0, g, base, sp[i]));
            fprintf(o.f, "\n");
        }
        double last = n && sp[n - 1] * 1.05 > 4.0 ? sp[n - 1] * 1.05 : 4.0;
        g_num(o.f, last);
        g_num(o.f, kb_fast_p(d, m, 0, g, base, last));
        fprintf(o.f, "\n");
    }
    free(sp);
    return kbt_out_commit(&o, dir, "fastp.dat", err);
}

static int plot_speedup_memory(const kb_report *r, const char *dir, kb_err *err)
{
    const kb_data *d = &r->data;
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    size_t points = 0;
    for (size_t m = 0; m < d->n_models; m++)
        for (size_t p = 0; p < d->n_problems; p++) {
            kb_best b;
            kb_best_of(kb_data_cell(d, m, p), &d->problems[p], kb_cond_gate(KB_COND_HEADLINE),
                       kb_cond_base(KB_COND_HEADLINE), &b);
            points += kb_problem_counts(&d->problems[p], 0) && isfinite(b.speedup) && isfinite(b.mem_ratio);
        }
    fprintf(o.f, "# Speedup (TF32 baseline time / kernel time) against memory ratio (baseline peak / kernel peak) of\n"
                 "# the best verified sample, one point per model x problem, one block per model: mem_ratio speedup\n"
                 "# problem. Protocol %s. Read by plots/speedup_memory.gp.\n#protocol: %s\n#baseline: %s\n#models: %zu\n#points: %zu\n",
            r->protocol, r->protocol, kb_baseline_name(r->baseline), d->n_models, points);
    for (size_t m = 0; m < d->n_models; m++) {
        fprintf(o.f, "%s%s\n", m ? "\n\n" : "", gq(r->models[m].display));
        int any = 0;
        for (size_t p = 0; p < d->n_problems; p++) {
            if (!kb_problem_counts(&d->problems[p], 0))
                continue;
            kb_best b;
            kb_best_of(kb_data_cell(d, m, p), &d->problems[p], kb_cond_gate(KB_COND_HEADLINE),
                       kb_cond_base(KB_COND_HEADLINE), &b);
            if (!isfinite(b.speedup) || !isfinite(b.mem_ratio))
                continue;
            char label[160];
            problem_label(d->problems[p].id, label, sizeof label);
            g_num(o.f, b.mem_ratio);
            g_num(o.f, b.speedup);
            fprintf(o.f, " %s\n", gq(label));
            any = 1;
        }
        if (!any)
            fprintf(o.f, "NaN NaN \"\"\n"); /* keeps the block (and the model's legend slot) */
    }
    return kbt_out_commit(&o, dir, "speedup_memory.dat", err);
}

static int plot_hidden_failures(const kb_report *r, const char *dir, kb_err *err)
{
    const kb_data *d = &r->data;
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    char names[KBT_MAX_DIST_NAMES][KBT_DIST_NAME_LEN];
    size_t nn = 0, points = 0, maxf = 0;
    for (size_t m = 0; m < d->n_models; m++) {
        kb_dist_counts v[KBT_MAX_DIST_NAMES];
        size_t n = kb_dist_tally(d, m, 0, v, KBT_MAX_DIST_NAMES);
        for (size_t i = 0; i < n; i++) {
            nn = kbt_dist_name_add(names, nn, v[i].name);
            points += v[i].ran > 0;
            if (v[i].failed > maxf)
                maxf = v[i].failed;
        }
    }
    fprintf(o.f, "# Hidden-distribution failures (samples that ran the draw, were not skipped, and failed), per\n"
                 "# distribution (rows) and model (columns). Block 0: over all samples; block 1: over the best\n"
                 "# standard-correct sample per problem. Protocol %s. Read by plots/hidden_failures.gp.\n"
                 "#protocol: %s\n#baseline: %s\n#models: %zu\n#points: %zu\n#max: %zu\n",
            r->protocol, r->protocol, kb_baseline_name(r->baseline), d->n_models, points, maxf);
    for (int best = 0; best < 2; best++) {
        fprintf(o.f, "%s\"distribution\"", best ? "\n\n" : "");
        for (size_t m = 0; m < d->n_models; m++)
            fprintf(o.f, " %s", gq(r->models[m].display));
        fprintf(o.f, "\n");
        kb_dist_counts (*v)[KBT_MAX_DIST_NAMES] = calloc(d->n_models + 1, sizeof *v);
        size_t *nv = calloc(d->n_models + 1, sizeof *nv);
        if (!v || !nv) {
            free(v);
            free(nv);
            return kbt_out_oom(&o, err);
        }
        for (size_t m = 0; m < d->n_models; m++)
            nv[m] = kb_dist_tally(d, m, best, v[m], KBT_MAX_DIST_NAMES);
        for (size_t j = 0; j < nn; j++) {
            fprintf(o.f, "%s", gq(names[j]));
            for (size_t m = 0; m < d->n_models; m++) {
                size_t i = 0;
                while (i < nv[m] && strcmp(v[m][i].name, names[j]))
                    i++;
                fprintf(o.f, " %zu", i < nv[m] ? v[m][i].failed : (size_t)0);
            }
            fprintf(o.f, "\n");
        }
        free(v);
        free(nv);
    }
    return kbt_out_commit(&o, dir, "hidden_failures.dat", err);
}

static int plot_roofline(const kb_report *r, const char *dir, kb_err *err)
{
    const kb_data *d = &r->data;
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    size_t points = 0;
    for (size_t p = 0; p < d->n_problems; p++) {
        const kb_problem_rec *pr = &d->problems[p];
        for (int b = 0; b < KB_N_BASE; b++)
            points += isfinite(kb_roofline_fraction(pr->flops, pr->bytes, pr->base_ms[b])) != 0;
    }
    fprintf(o.f, "# Roofline fraction per problem: floor / time, floor = max(flops / %.3g FLOP/s, bytes / %.3g B/s)\n"
                 "# (H200 FP32 SIMT peak; measured device-to-device copy bandwidth). Block 0: the baseline in both\n"
                 "# math modes (idx, problem, FP32, TF32); then one block per model: idx, problem, fraction of the best\n"
                 "# verified sample. Protocol %s. Read by plots/roofline.gp.\n#protocol: %s\n#baseline: %s\n#models: %zu\n#problems: %zu\n"
                 "#points: %zu\n",
            KB_ROOF_FLOPS, KB_ROOF_BW, r->protocol, r->protocol, kb_baseline_name(r->baseline), d->n_models, d->n_problems, points);
    if (r->n_unscoped)
        fprintf(o.f, "# %zu problems have no baseline (no model has a sample for them): NaN in block 0\n", r->n_unscoped);
    fprintf(o.f, "\"idx\" \"problem\" \"PyTorch eager (FP32 matmul)\" \"PyTorch eager (TF32 matmul)\"\n");
    for (size_t p = 0; p < d->n_problems; p++) {
        const kb_problem_rec *pr = &d->problems[p];
        char label[160];
        problem_label(pr->id, label, sizeof label);
        fprintf(o.f, "%zu %s", p, gq(label));
        for (int b = 0; b < KB_N_BASE; b++)
            g_num(o.f, kb_roofline_fraction(pr->flops, pr->bytes, pr->base_ms[b]));
        fprintf(o.f, "\n");
    }
    for (size_t m = 0; m < d->n_models; m++) {
        fprintf(o.f, "\n\n\"idx\" \"problem\" %s\n", gq(r->models[m].display));
        for (size_t p = 0; p < d->n_problems; p++) {
            const kb_problem_rec *pr = &d->problems[p];
            kb_best b;
            kb_best_of(kb_data_cell(d, m, p), pr, kb_cond_gate(KB_COND_HEADLINE), kb_cond_base(KB_COND_HEADLINE), &b);
            char label[160];
            problem_label(pr->id, label, sizeof label);
            fprintf(o.f, "%zu %s", p, gq(label));
            g_num(o.f, kb_roofline_fraction(pr->flops, pr->bytes, b.kernel_ms));
            fprintf(o.f, "\n");
        }
    }
    return kbt_out_commit(&o, dir, "roofline.dat", err);
}

int kb_write_plot_data(const kb_report *r, const char *plots_dir, kb_err *err)
{
    if (kb_mkdirs(plots_dir, err) != 0)
        return -1;
    if (plot_speedup_conditions(r, plots_dir, err) || plot_fastp(r, plots_dir, err) ||
        plot_speedup_memory(r, plots_dir, err) || plot_hidden_failures(r, plots_dir, err) ||
        plot_roofline(r, plots_dir, err))
        return -1;
    return 0;
}
