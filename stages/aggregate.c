/*
 * kb-aggregate -- the paper's tables and the plots' data from one protocol tree of artifacts.
 * Needs no GPU and no CUDA: it reads HDF5 files only, so `make report` works anywhere.
 *
 *   kb-aggregate --artifacts artifacts/paper --problems 'level1/001_square_matmul ...' \
 *     --models-csv models.csv --reference-csv reference/paper-tables.csv \
 *     --out artifacts/paper/tables --plots plots/paper
 *
 * Metric definitions: lib/kb_metrics.h and docs/metrics.md. Outputs: lib/kb_tables.h.
 * Missing artifacts are stages not run (warnings); unreadable ones are errors: the tables are
 * still written, and the exit status is 1 so that Make stops and says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kb_stage.h"
#include "kb_tables.h"

#define MAX_PROBLEMS 4096
#define SHOWN_NOTES 20

/* Splits the whitespace-separated list in place. */
static size_t split_problems(char *list, const char **out, size_t cap)
{
    size_t n = 0;
    for (char *save = NULL, *tok = strtok_r(list, " \t\n", &save); tok && n < cap; tok = strtok_r(NULL, " \t\n", &save))
        out[n++] = tok;
    return n;
}

static void print_headline(const kb_report *r)
{
    const kb_data *d = &r->data;
    printf("[aggregate]    %s: %zu models x %zu problems -> headline (TF32 x verified, pooled):\n", r->protocol,
           d->n_models, d->n_problems);
    for (size_t m = 0; m < d->n_models; m++) {
        kb_metrics h, s;
        kb_metrics_compute(d, m, 0, kb_cond_gate(KB_COND_HEADLINE), kb_cond_base(KB_COND_HEADLINE), &h);
        kb_metrics_compute(d, m, 0, kb_cond_gate(KB_COND_FP32_STD), kb_cond_base(KB_COND_FP32_STD), &s);
        printf("    %-22s speedup %-6.3g corr %5.1f%%  fast@1 %5.1f%%   (FP32 x standard: speedup %.3g, corr %.1f%%)\n",
               r->models[m].display, h.speedup, 100.0 * h.correctness, 100.0 * h.fast[3], s.speedup,
               100.0 * s.correctness);
    }
}

int main(int argc, char **argv)
{
    const char *artifacts = NULL, *problems = NULL, *models_csv = NULL, *reference_csv = NULL, *out = NULL,
               *plots = NULL;
    kb_opt opts[] = {
        {"artifacts", &artifacts, NULL, "* one protocol tree, e.g. artifacts/paper"},
        {"problems", &problems, NULL, "* the problem ids, space-separated (the denominator of every share)"},
        {"models-csv", &models_csv, NULL, "* model,display_name,paper_name,order (table order and names)"},
        {"reference-csv", &reference_csv, NULL, "the paper's numbers (model,level,metric,value), shown side by side"},
        {"out", &out, NULL, "* directory for the tables (CSV, Markdown, LaTeX, warnings.txt)"},
        {"plots", &plots, NULL, "* directory for the .dat files plots/*.gp read"},
    };
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(
        argc, argv,
        "kb-aggregate: best-of-N per problem, the paper's metrics and tables, and the plots' data, from the artifacts\n"
        "of one protocol tree. Needs no GPU. Missing artifacts count as stages not run (listed in <out>/warnings.txt);\n"
        "an unreadable artifact is an error (the tables are still written; exit status 1).\n"
        "Usage: kb-aggregate --artifacts DIR --problems 'level1/001_x ...' --models-csv models.csv\n"
        "                    [--reference-csv reference/paper-tables.csv] --out DIR --plots DIR\n"
        "An existing but empty tree gives empty tables (every problem unsolved); a tree that does not exist is refused.\n"
        "Exit codes: 0 tables written; 1 tables written but some artifact is unreadable, or nothing could be written;\n"
        "2 bad command line; 4 --artifacts does not exist (nothing written).",
        opts, sizeof opts / sizeof opts[0], &cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("aggregate", &err);

    struct stat ast;
    if (stat(artifacts, &ast) != 0 || !S_ISDIR(ast.st_mode)) {
        kb_errf(&err, KB_EXIT_MISSING,
                "--artifacts %s: no such directory (it is one protocol's tree, e.g. artifacts/paper; run make all to "
                "create it); nothing written", artifacts);
        return kb_stage_fail("aggregate", &err);
    }
    char *list = strdup(problems);
    const char **ids = calloc(MAX_PROBLEMS, sizeof *ids);
    if (!list || !ids) {
        kb_errf(&err, KB_EXIT_FAIL, "out of memory");
        return kb_stage_fail("aggregate", &err);
    }
    size_t n = split_problems(list, ids, MAX_PROBLEMS);
    if (n == 0) {
        kb_errf(&err, KB_EXIT_USAGE, "--problems is empty: no problem to aggregate (are there problems/levelN/*.cu?)");
        return kb_stage_fail("aggregate", &err);
    }

    kb_report r;
    if (kb_report_load(&r, artifacts, ids, n, models_csv, reference_csv, &err) != 0)
        return kb_stage_fail("aggregate", &err);
    if (kb_write_tables(&r, out, &err) != 0 || kb_write_plot_data(&r, plots, &err) != 0) {
        kb_report_free(&r);
        return kb_stage_fail("aggregate", &err);
    }
    print_headline(&r);
    printf("[aggregate]    tables in %s, plot data in %s\n", out, plots);

    int rc = 0;
    if (r.notes.n) {
        size_t warnings = r.notes.n - r.notes.n_errors;
        fprintf(stderr, "kb-aggregate: %zu warnings, %zu errors (all in %s/warnings.txt):\n", warnings, r.notes.n_errors,
                out);
        size_t shown = 0;
        for (size_t i = 0; i < r.notes.n; i++) /* errors first: they need action */
            if (!strncmp(r.notes.lines[i], "error", 5) && shown++ < SHOWN_NOTES)
                fprintf(stderr, "  %s\n", r.notes.lines[i]);
        for (size_t i = 0; i < r.notes.n; i++)
            if (strncmp(r.notes.lines[i], "error", 5) && shown++ < SHOWN_NOTES)
                fprintf(stderr, "  %s\n", r.notes.lines[i]);
        if (shown > SHOWN_NOTES)
            fprintf(stderr, "  ... %zu more in %s/warnings.txt\n", shown - SHOWN_NOTES, out);
    }
    if (r.notes.n_errors) {
        fprintf(stderr, "kb-aggregate: %zu unreadable artifacts (above): delete them and re-run make to recreate them\n",
                r.notes.n_errors);
        rc = KB_EXIT_FAIL;
    }
    kb_report_free(&r);
    free(ids);
    free(list);
    return rc;
}
