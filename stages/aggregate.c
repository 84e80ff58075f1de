/*
 * kb-aggregate -- the paper's tables and the plots' data from one protocol tree of artifacts.
 * Needs no GPU and no CUDA: it reads HDF5 files only, so `make report` works anywhere.
 *
 *   kb-aggregate --artifacts artifacts/paper --problems 'level1/001_square_matmul ...' \
 *     --models-csv models.csv --submissions submissions --reference-csv reference/paper-tables.csv \
 *     --out artifacts/paper/tables --plots plots/paper
 *   kb-aggregate --check-models --models-csv models.csv --submissions submissions --model 'demo-naive'
 *
 * Metric definitions: lib/report/kb_metrics.h and docs/metrics.md. Outputs: lib/report/kb_tables.h.
 * Missing artifacts are stages not run (warnings); unreadable ones are errors: the tables are
 * still written, and the exit status is 1 so that Make stops and says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/kb_stage.h"
#include "report/kb_tables.h"

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
    printf("[aggregate]    %s: %zu models x %zu problems, speedups against %s (BASELINE=%s) -> headline (TF32 x verified, pooled):\n",
           r->protocol, d->n_models, d->n_problems, kb_baseline_label(r->baseline), kb_baseline_name(r->baseline));
    for (size_t m = 0; m < d->n_models; m++) {
        kb_metrics h, s;
        kb_metrics_compute(d, m, 0, kb_cond_gate(KB_COND_HEADLINE), kb_cond_base(KB_COND_HEADLINE), &h);
        kb_metrics_compute(d, m, 0, kb_cond_gate(KB_COND_FP32_STD), kb_cond_base(KB_COND_FP32_STD), &s);
        printf("    %-22s speedup %-6.3g corr %5.1f%%  fast@1 %5.1f%%   (FP32 x standard: speedup %.3g, corr %.1f%%)\n",
               r->models[m].display, h.speedup, 100.0 * h.correctness, 100.0 * h.fast[3], s.speedup,
               100.0 * s.correctness);
    }
}

/* --check-models: the Makefile's check before any work (kb_models_check). */
static int check_models(const char *models_csv, const char *submissions, const char *model_list)
{
    kb_err err = {0};
    char *list = strdup(model_list ? model_list : "");
    const char **names = calloc(MAX_PROBLEMS, sizeof *names);
    if (!list || !names) {
        kb_errf(&err, KB_EXIT_FAIL, "out of memory");
    } else {
        size_t n = split_problems(list, names, MAX_PROBLEMS);
        if (n == 0)
            kb_errf(&err, KB_EXIT_USAGE, "--check-models needs --model 'name ...' (the models to be evaluated)");
        else
            kb_models_check(models_csv, submissions, names, n, &err);
    }
    free(names);
    free(list);
    return err.msg[0] ? kb_stage_fail("aggregate", &err) : 0;
}

int main(int argc, char **argv)
{
    const char *artifacts = NULL, *problems = NULL, *models_csv = NULL, *reference_csv = NULL, *out = NULL,
               *plots = NULL, *submissions = NULL, *model = NULL, *baseline = NULL, *excluded = NULL;
    int check = 0;
    kb_opt opts[] = {
        {"artifacts", &artifacts, NULL, "one protocol tree, e.g. artifacts/paper (required unless --check-models)"},
        {"problems", &problems, NULL, "the problem ids, space-separated: the denominator of every share (required unless --check-models)"},
        {"models-csv", &models_csv, NULL, "* every model's row: " KB_MODELS_COLUMNS},
        {"submissions", &submissions, NULL, "the submissions tree: each <model>/extraction.csv's failed responses count as failed samples"},
        {"reference-csv", &reference_csv, NULL, "the paper's numbers (model,level,metric,value), shown side by side"},
        {"out", &out, NULL, "directory for the tables (CSV, Markdown, LaTeX, warnings.txt) (required unless --check-models)"},
        {"plots", &plots, NULL, "directory for the .dat files plots/*.gp read (required unless --check-models)"},
        {"check-models", NULL, &check, "only check, before any work: models.csv, a row for each --model, their extraction.csv and sample counts in --submissions"},
        {"model", &model, NULL, "with --check-models: the models to check, space-separated"},
        {"baseline", &baseline, NULL, "the speedups' denominator: c (default: the C baseline, baseline-time.h5) or torch (PyTorch eager, timed in the same run by the same timer: fidelity.h5, the paper's denominator)"},
        {"excluded", &excluded, NULL, "the problems their descriptors flag excluded, space-separated: what a problem without a baseline artifact is judged by"},
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
        "                    [--submissions submissions] [--reference-csv reference/paper-tables.csv] --out DIR --plots DIR\n"
        "       kb-aggregate --check-models --models-csv models.csv --submissions submissions --model 'name ...'\n"
        "models.csv has one row per model (columns in any order, others ignored): model (the directory name),\n"
        "display_name, paper_name (the paper's name, or empty), order (a number, or empty), provider, date (YYYY-MM-DD\n"
        "the samples were generated or written, or unknown), sampling (free text; - for hand-written code; or unknown),\n"
        "samples_per_problem (an integer > 0), prompt_style (kernelbench, abi or hand-written). Every model of the tree\n"
        "(and of --submissions with an extraction.csv) needs a row: one without is refused, with the row to add.\n"
        "A response of <submissions>/<model>/extraction.csv whose outcome is not ok is a sample that failed before\n"
        "compiling (compile outcome extract:<outcome>, the row's reason): it counts in samples, never in compiled, and\n"
        "can never be a problem's best; rows of problems outside --problems are left out of this run's tables.\n"
        "An existing but empty tree gives empty tables (every problem unsolved); a tree that does not exist is refused.\n"
        "--baseline c divides by the C baseline's time (<artifacts>/baseline/<problem>/baseline-time.h5); --baseline torch\n"
        "by PyTorch eager's, timed by the fidelity stage in the same math mode under the same timer (fidelity.h5\n"
        "/<fp32|tf32>/<timer> @torch_ms): every output says which (the baseline_impl column, results.json's \"baseline\",\n"
        "the tables' titles, the plot data's #baseline line). Either way the baseline peak is the C baseline's\n"
        "memory-profile.h5 (fidelity.h5 records no eager peak). A problem no model has a sample for needs no baseline:\n"
        "it is a failure in every denominator (its excluded flag from --excluded when it has no baseline artifact).\n"
        "Exit codes: 0 tables written (--check-models: all good); 1 tables written but some artifact is unreadable, or\n"
        "nothing written: models.csv malformed or lacking a model, an extraction.csv malformed, more samples of a problem\n"
        "than samples_per_problem; 2 bad command line; 4 --artifacts does not exist, or --baseline torch and a problem\n"
        "that models have samples for has no fidelity.h5 (the message says what to run; nothing written).",
        opts, sizeof opts / sizeof opts[0], &cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("aggregate", &err);
    if (check)
        return check_models(models_csv, submissions ? submissions : "submissions", model);
    const char *need[] = {"artifacts", "problems", "out", "plots"};
    const char *have[] = {artifacts, problems, out, plots};
    for (size_t i = 0; i < 4; i++)
        if (!have[i]) {
            kb_errf(&err, KB_EXIT_USAGE, "--%s is required (see --help)", need[i]);
            return kb_stage_fail("aggregate", &err);
        }

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

    kb_report_opts ro = {KB_BASELINE_C, NULL, 0};
    if (baseline && kb_baseline_parse(baseline, &ro.baseline) != 0) {
        kb_errf(&err, KB_EXIT_USAGE, "--baseline %s: must be c (the C baseline) or torch (PyTorch eager, fidelity.h5)",
                baseline);
        return kb_stage_fail("aggregate", &err);
    }
    char *xlist = strdup(excluded ? excluded : "");
    const char **xids = calloc(MAX_PROBLEMS, sizeof *xids);
    if (!xlist || !xids) {
        kb_errf(&err, KB_EXIT_FAIL, "out of memory");
        return kb_stage_fail("aggregate", &err);
    }
    ro.n_excluded = split_problems(xlist, xids, MAX_PROBLEMS);
    ro.excluded = xids;

    kb_report r;
    if (kb_report_load(&r, artifacts, ids, n, models_csv, submissions, reference_csv, &ro, &err) != 0)
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
    free(xids);
    free(xlist);
    return rc;
}
