/*
 * kb-import -- model-written KernelBench files, in KernelBench's own layouts, into a submission
 * tree and a models.csv row (docs/prompts.md, "Importing KernelBench files"). Needs no GPU.
 *
 *   kb-import --from runs/my_run --model my-model
 *
 * finds every sample under FROM (lib/llm/kb_import.h lists the layouts), writes
 * submissions/<model>/levelN/NNN_name/sK.py (the file's bytes unchanged) and
 * submissions/<model>/extraction.csv (kb-extract's manifest: one row per sample, failures with
 * their reason), prints every file it did not take and why, and appends a row for the model to
 * models.csv if it has none. Files whose bytes would not change are not touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/kb_import.h"
#include "report/kb_tables.h"
#include "core/kb_stage.h"

#define TAG "[import]       "

static void print_failure(void *ctx, const char *problem, const char *sample, const kb_extract_result *r, const char *source)
{
    (void)ctx;
    if (r->outcome != KB_EX_OK)
        printf(TAG "%s %s: %s: %s (%s)\n", problem, sample, kb_extract_outcome_name(r->outcome), r->reason, source);
}

static void print_summary(const char *model, const kb_import_plan *p, const kb_extract_summary *s)
{
    size_t ok = s->by_outcome[KB_EX_OK];
    printf(TAG "%s: %zu files seen; %zu samples (%zu written, %zu unchanged), %zu failed", model, p->files, ok,
           s->written, s->unchanged, p->n - ok);
    const char *sep = " (";
    for (int k = 1; k < KB_EX_N; k++)
        if (s->by_outcome[k]) {
            printf("%s%s %zu", sep, kb_extract_outcome_name((kb_extract_outcome)k), s->by_outcome[k]);
            sep = ", ";
        }
    printf("%s; %zu not taken", sep[0] == ',' ? ")" : "", p->n_skipped);
    sep = " (";
    for (int k = 0; k < KB_SKIP_N; k++)
        if (p->by_skip[k]) {
            printf("%s%s %zu", sep, kb_import_skip_name((kb_import_skip)k), p->by_skip[k]);
            sep = ", ";
        }
    printf("%s; %zu stale samples deleted; %s%s\n", sep[0] == ',' ? ")" : "", s->removed, s->manifest,
           s->manifest_changed ? "" : " (unchanged)");
}

/* The model's row: appended if it has none (and what the files could not say), else checked as
 * `make all` will check it. 0, or 1 when the pipeline would refuse the model. */
static int models_row(const char *csv, const char *submissions, const char *model, const kb_import_plan *p,
                      const kb_model_info *row)
{
    kb_err err = {0};
    size_t line = 0;
    char added[512];
    if (!row) {
        if (kb_models_append(csv, model, p->samples_per_problem, "kernelbench", &line, added, sizeof added, &err) != 0)
            return kb_stage_fail("import", &err);
        printf(TAG "%s:%zu: a row for %s added: %s\n" TAG "what the files cannot say, fill in (docs/metrics.md): "
               "display_name (the name in tables, now %s), provider (who made the model), date (the day the samples "
               "were generated, YYYY-MM-DD), sampling (e.g. temperature=1.0 top_p=1.0), and paper_name and order if "
               "any; samples_per_problem %d is what the files show (the most samples of one problem, or the largest "
               "sample id + 1): make it the N the run asked for\n",
               csv, line, model, added, model, p->samples_per_problem);
        if (p->config[0])
            printf(TAG "%s names the run's model_name, temperature and num_samples\n", p->config);
    } else {
        printf(TAG "%s:%zu already describes %s: left as it is\n", csv, row->line, model);
        if (strcmp(row->prompt_style, "kernelbench") != 0)
            printf(TAG "note: its prompt_style is %s; the imported files are KernelBench format (kernelbench)\n",
                   row->prompt_style);
        if (row->samples_per_problem < p->max_sample + 1)
            printf(TAG "note: the samples go up to s%ld, its samples_per_problem is %d\n", p->max_sample,
                   row->samples_per_problem);
    }
    const char *models[] = {model};
    if (kb_models_check(csv, submissions, models, 1, &err) == 0)
        return 0;
    kb_stage_fail("import", &err);
    fprintf(stderr, "kb-import: the tree is written and %s was left as it is; make all MODEL=%s would stop there: "
            "correct the row (this import needs samples_per_problem %d at least) and import again\n",
            csv, model, (int)p->most_per_problem);
    return 1;
}

int main(int argc, char **argv)
{
    const char *from = NULL, *model = NULL, *submissions = "submissions", *problems = "problems",
               *models_csv = "models.csv";
    int quiet = 0;
    setvbuf(stdout, NULL, _IOLBF, 0); /* the report's lines and the errors on stderr stay in order */
    kb_opt opts[] = {
        {"from", &from, NULL, "* the directory of KernelBench files (read down to 8 directories deep)"},
        {"model", &model, NULL, "* the model's name: the tree goes to <submissions>/<model>/"},
        {"submissions", &submissions, NULL, "the submissions root (default submissions)"},
        {"problems", &problems, NULL, "the problems root: every sample must name a problem there (default problems)"},
        {"models-csv", &models_csv, NULL, "the models table to add the model's row to (default models.csv)"},
        {"quiet", NULL, &quiet, "no line per failed sample or file not taken (the summary only)"},
    };
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(
        argc, argv,
        "kb-import: model-written KernelBench files into submissions/<model>/ (docs/prompts.md). Layouts, anywhere under\n"
        "FROM (L: level 1-3; P: problem id, 1-based, our NNN; S: sample id, 0-based, our sS):\n"
        "  level_{L}_problem_{P}_sample_{S}_kernel.py    a KernelBench run folder (runs/<run>/); <run>_level_..._kernel.py too\n"
        "  level_{L}_problem_{P}.py, ..._sample_{S}.py   a generated_kernels folder (no sample id: sample 0)\n"
        "  level_{L}/problem_{P}/kernel.py               KernelBench's per-problem layout (sample 0), and\n"
        "  level_{L}/problem_{P}/sample_{S}/kernel.py\n"
        "  levelN/NNN_name/sK.py                         a submission tree, taken as it is\n"
        "  levelN/NNN_name/sK.txt                        raw answers (make extract's responses): the one python block\n"
        "  level_{L}_problem_{P}_sample_{S}_response.txt a run's raw answer with no kernel file beside it: the same\n"
        "P must name problems/level{L}/{PPP}_name.py. A .py file is written unchanged when it is KernelBench format (text,\n"
        "not empty, a top-level class ModelNew), else recorded as a failed sample (not_text, empty, wrong_name; answers:\n"
        "extraction's outcomes). Every sample gets a row in submissions/<model>/extraction.csv (kb-extract's format).\n"
        "Not taken, each printed with its reason: other names, levels other than 1-3, unknown problems, KernelBench's\n"
        "eval_results.json, pass_at_k_results.json and generation_config.yaml, prompts, answers beside their kernel,\n"
        "hidden entries, duplicates (a second file of the same sample; the first by path is taken) and every file of a\n"
        "sample two different files claim (none is written). The model directory must be absent, empty or an earlier\n"
        "import's or extraction's: samples of it this import does not take are deleted; unchanged files are not\n"
        "touched. A model without a row in models.csv gets one (display_name = the model, provider, date, sampling\n"
        "unknown, samples_per_problem = what the files show, prompt_style kernelbench); an existing row is left as it is.\n"
        "Usage: kb-import --from DIR --model NAME [--models-csv FILE] [--submissions DIR] [--problems DIR]\n"
        "Exit codes: 0 imported, and models.csv describes the model as make all needs; 1 nothing written (the model\n"
        "directory was not made by an import or extraction, no file is a sample, models.csv is malformed, an I/O\n"
        "error), or the tree written but the model not ready: two different files claim a sample (not written), or\n"
        "the model's existing row has too small a samples_per_problem (models.csv left as it is); 2 bad command line\n"
        "or model name; 4 DIR does not exist.",
        opts, sizeof opts / sizeof opts[0], &cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("import", &err);
    kb_import_opts o = {.from = from, .submissions = submissions, .model = model, .problems = problems};
    kb_import_plan p;
    kb_model_info *rows = NULL;
    size_t n_rows = 0;
    int rc = kb_import_plan_make(&o, &p, &err) != 0 ? kb_stage_fail("import", &err) : 0;
    for (size_t i = 0; rc == 0 && !quiet && i < p.n_skipped; i++)
        printf(TAG "%s: not taken: %s\n", p.skipped[i].path, p.skipped[i].why);
    /* models.csv is read before anything is written: a malformed one stops the import here */
    if (rc == 0 && kb_file_exists(models_csv) && kb_read_models_csv(models_csv, &rows, &n_rows, &err) != 0) {
        rc = kb_stage_fail("import", &err);
        fprintf(stderr, "kb-import: nothing written: correct %s first\n", models_csv);
    }
    kb_extract_summary s;
    if (rc == 0 && kb_import_write(&p, quiet ? NULL : print_failure, NULL, &s, &err) != 0)
        rc = kb_stage_fail("import", &err);
    int written = rc == 0;
    if (written) {
        print_summary(model, &p, &s);
        rc = models_row(models_csv, submissions, model, &p, kb_model_find(rows, n_rows, model));
    }
    if (written && p.by_skip[KB_SKIP_CONFLICT]) {
        fprintf(stderr, "kb-import: %zu files claim samples that other, different files claim too (%s): those "
                "samples were not written; keep one file of each and import again\n", p.by_skip[KB_SKIP_CONFLICT],
                quiet ? "without --quiet, each is listed as not taken" : "listed above as not taken");
        rc = rc ? rc : 1;
    }
    free(rows);
    kb_import_plan_free(&p);
    return rc;
}
