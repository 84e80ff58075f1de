/*
 * kb_tables.h -- kb-aggregate's library: reads one protocol tree of HDF5 artifacts
 * (docs/artifacts.md) into the records of kb_metrics.h, and writes the tables (CSV with libcsv,
 * Markdown, LaTeX), the data files of the gnuplot scripts in plots/, and the warnings.
 *
 * Tolerance of a half-made tree: a missing artifact is a stage "not run" for that cell (its
 * fields stay unknown and the sample fails every gate that needs it) and adds a warning; an
 * artifact that is not readable HDF5, or lacks the root attributes every artifact has, adds an
 * error naming the file and the fix (delete it, re-run make) and is treated as missing. The
 * library never exits and never prints: notes are collected in kb_report.notes for the main.
 *
 * Ownership: kb_report owns everything it holds (kb_report_free). Output files are written
 * atomically (kb_write_file_atomic), so a reader never sees half a table.
 *
 * Its parts (the reader, the metrics, the emitters) and what they share: kb_table.h; the names of
 * the artifact format: kb_schema.h.
 */
#ifndef KB_TABLES_H
#define KB_TABLES_H

#include <stddef.h>

#include "report/kb_metrics.h"
#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- notes: warnings and errors for the user ------------------------------------------------ */
typedef struct kb_notes {
    char **lines; /* "warning: ..." or "error: ..." */
    size_t n, cap;
    size_t n_errors;
} kb_notes;

int kb_note(kb_notes *n, int is_error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void kb_notes_free(kb_notes *n);

/* ---- models.csv and reference/paper-tables.csv --------------------------------------------- */
/* models.csv: what the tables need to cite a model, one row per directory of submissions/ and of
 * the artifact trees. A header naming these columns (any order; other columns are ignored): */
#define KB_MODELS_COLUMNS "model,display_name,paper_name,order,provider,date,sampling,samples_per_problem,prompt_style"
#define KB_MODELS_N_STYLES 3
extern const char *const kb_model_styles[KB_MODELS_N_STYLES]; /* kernelbench, abi, hand-written */

typedef struct kb_model_info {
    char model[128];      /* directory name under submissions/ and artifacts/<protocol>/ */
    char display[128];    /* name in tables and legends (non-empty in models.csv) */
    char paper[128];      /* the paper's name for it ("GPT-5.5"), "" if not a paper model */
    double order;         /* position in tables; NaN: after the listed ones, alphabetically */
    char provider[128];   /* who made the model ("OpenAI"; "this project" for hand-written code) */
    char date[16];        /* YYYY-MM-DD the samples were generated or written, or "unknown" */
    char sampling[256];   /* free text ("temperature=1.0, top_p=1.0", "-" hand-written, "unknown") */
    int samples_per_problem; /* N of best-of-N: no problem may hold more samples */
    char prompt_style[16];   /* one of kb_model_styles */
    size_t line;          /* its line in models.csv (0: not from the file) */
} kb_model_info;

/* Reads and validates models.csv: every column of KB_MODELS_COLUMNS present, every row
 * well-formed (model a directory name, listed once; display_name and provider non-empty; order a
 * number or empty; date YYYY-MM-DD or unknown; sampling non-empty; samples_per_problem an
 * integer > 0; prompt_style known). The error lists every bad field as "path:line: column
 * 'name': what is wrong; what a valid value looks like". */
int kb_read_models_csv(const char *path, kb_model_info **out, size_t *n, kb_err *err);
/* The row of `model`, or NULL. */
const kb_model_info *kb_model_find(const kb_model_info *v, size_t n, const char *model);
/* Every one of models[] has a row: 0, else -1 with an error that names models_csv, the missing
 * models and prints the header with a ready-to-fill row for each. */
int kb_models_require(const kb_model_info *v, size_t n, const char *models_csv, const char *const *models,
                      size_t n_models, kb_err *err);
/* n_samples samples of one problem (`where`: the directory or file that holds them) within the
 * row's samples_per_problem: 0, else -1 with an error saying which problem and what to change. */
int kb_model_check_samples(const kb_model_info *mi, const char *models_csv, const char *where, size_t n_samples,
                           kb_err *err);
/* A row for a model whose files say little of it (kb-import): `model` as model and display_name,
 * provider, date and sampling "unknown", paper_name and order empty, samples_per_problem and
 * prompt_style as given, in the order of the file's header (columns it has besides these empty).
 * Appended: every byte already in models_csv stays (a newline added after a last line without
 * one), and the file is replaced atomically; an absent file is created with the header
 * KB_MODELS_COLUMNS. The caller has read the file (kb_read_models_csv) and found no row for the
 * model. *line: the new row's line in the file; row (row_len bytes): the row as written. */
int kb_models_append(const char *models_csv, const char *model, int samples_per_problem, const char *prompt_style,
                     size_t *line, char *row, size_t row_len, kb_err *err);

/* submissions/<model>/extraction.csv (kb-extract, docs/prompts.md): its header is exactly
 * problem,sample,outcome,reason,source and every outcome one of kb_extract_outcome_name's. */
typedef struct kb_extract_row {
    char problem[128]; /* levelN/NNN_name */
    char sample[32];   /* sK */
    char outcome[32];  /* "ok", "truncated", ... */
    char reason[256];
    size_t line;
} kb_extract_row;
int kb_read_extraction_csv(const char *path, kb_extract_row **out, size_t *n, kb_err *err);

/* The check before any work (kb-aggregate --check-models, run by the Makefile): models.csv valid,
 * a row for each of models[], their extraction.csv (if any) well-formed, and no problem of
 * submissions/<model>/ holding more samples (sK.cu, sK.py, and extraction.csv rows that gave no
 * sample) than the row's samples_per_problem. */
int kb_models_check(const char *models_csv, const char *submissions, const char *const *models, size_t n_models,
                    kb_err *err);

typedef struct kb_ref_row {
    char model[128];  /* the paper's name ("GPT-5.5"), or "union" for per-problem reach */
    char level[16];   /* level1, level2, level3, all */
    char metric[64];  /* speedup, correctness, fast_1, mem_eff, mem_eff_pct, speedup_<condition>, ... */
    double value;     /* shares as fractions in [0, 1] */
} kb_ref_row;

/* reference/paper-tables.csv: columns model, level, metric, value. */
int kb_read_reference_csv(const char *path, kb_ref_row **out, size_t *n, kb_err *err);
/* NaN if the table has no such row. */
double kb_ref_value(const kb_ref_row *rows, size_t n, const char *model, const char *level, const char *metric);

/* ---- loading a protocol tree --------------------------------------------------------------- */
/* Which time a speedup divides (BASELINE=c|torch, docs/metrics.md "Which baseline"): the C
 * baseline's (baseline-time.h5 /<mode>/timing @reported_ms) or PyTorch eager's, timed in the same
 * run by the same timer (fidelity.h5 /<mode>/<timer> @torch_ms, the timer being fidelity.h5's
 * /config @timer). Either way the baseline peak is the C baseline's memory-profile.h5 (fidelity.h5
 * records no eager peak). */
typedef enum kb_baseline { KB_BASELINE_C = 0, KB_BASELINE_TORCH = 1 } kb_baseline;
const char *kb_baseline_name(kb_baseline b);  /* "c", "torch" */
const char *kb_baseline_label(kb_baseline b); /* "the C baseline", "PyTorch eager" */
/* "c" or "torch": 0, else -1. */
int kb_baseline_parse(const char *name, kb_baseline *out);

/* What kb_report_load is asked besides the tree (NULL: the defaults, all zero). */
typedef struct kb_report_opts {
    kb_baseline baseline;
    /* the problems flagged excluded by their descriptors (the Makefile reads them from the sources):
     * what a problem without a baseline artifact (no model has a sample for it) is judged by */
    const char *const *excluded;
    size_t n_excluded;
} kb_report_opts;

typedef struct kb_report {
    kb_data data;
    kb_model_info *models;  /* aligned with data.models (display names resolved) */
    char artifacts[1024];   /* the tree read */
    char protocol[32];      /* from the artifacts' @protocol, else the tree's directory name */
    double tau;             /* the protocol's tau (sanity-check /config @tau); NaN unknown */
    int hidden_tau_based;   /* the verified check is allclose(tau) (paper protocol) */
    int n_levels;
    int levels[16];         /* the levels of the problem list, ascending */
    size_t n_samples_ignored; /* samples of problems not in the list */
    kb_ref_row *ref;
    size_t n_ref;
    kb_notes notes;
    kb_baseline baseline;   /* the speedups' denominator */
    char base_timer[16];    /* BASELINE=torch: the timer eager's times are read under ("" none read) */
    size_t n_unscoped;      /* problems with no baseline artifact and no sample of any model: failures
                               in every denominator, their baseline columns NaN */
} kb_report;

/* Reads everything. The models are the directories of the tree and, with `submissions` (NULL:
 * none), every submissions/<model>/ that has an extraction.csv; each must have a row in models.csv.
 * A non-ok row of submissions/<model>/extraction.csv for a problem of the list becomes a sample
 * record that failed before compiling (compiled 0, compile and standard outcome
 * "extract:<outcome>", reason the row's): it counts in the per-sample tables and can never be a
 * problem's best. Returns -1 when it cannot go on: models.csv unreadable or malformed, a model
 * without a row, a malformed extraction.csv, more samples of a problem than the model's
 * samples_per_problem, out of memory, or (opts->baseline torch) a problem that some model has a
 * sample for without a fidelity.h5 (KB_EXIT_MISSING: the error names the files and the make command
 * that makes them). Missing and malformed artifacts otherwise become notes. A problem with no
 * baseline artifact that no model has a sample for (make baselines MODEL=... makes none for it) is
 * counted once (n_unscoped), with one note; its excluded flag comes from opts->excluded. */
int kb_report_load(kb_report *r, const char *artifacts, const char *const *problems, size_t n_problems,
                   const char *models_csv, const char *submissions, const char *reference_csv,
                   const kb_report_opts *opts, kb_err *err);
void kb_report_free(kb_report *r);

/* The records of one sample directory (<artifacts>/<model>/<problem>/<sample>/); notes for
 * missing and malformed files go to `notes`. `protocol` selects how the hidden check's tau_req
 * is read (kb_protocol_tau_based: not for a protocol whose pass is the error-model bound). */
void kb_load_sample(const char *dir, const char *name, const char *protocol, kb_sample_rec *s, kb_notes *notes);
/* The baseline of one problem (<artifacts>/baseline/<problem>/): the C baseline's times
 * (kb_load_baseline), or eager's from fidelity.h5 with the rest from the C baseline's artifacts
 * (kb_load_baseline_eager, which returns -1 when fidelity.h5 does not exist, 0 otherwise; `timer`
 * gets the timer its times are read under). */
void kb_load_baseline(const char *dir, kb_problem_rec *p, kb_notes *notes);
int kb_load_baseline_eager(const char *dir, kb_problem_rec *p, char *timer, size_t timer_len, kb_notes *notes);

/* ---- outputs -------------------------------------------------------------------------------- */
/* summary.csv, problems.csv, cells.csv, tolerance.csv, reach.csv, distributions.csv,
 * verdicts.csv, flags.csv, tables.md, tables.tex, warnings.txt into out_dir (created);
 * summary.csv last (the Makefile's target). */
int kb_write_tables(const kb_report *r, const char *out_dir, kb_err *err);
/* speedup_conditions.dat, fastp.dat, speedup_memory.dat, hidden_failures.dat, roofline.dat
 * into plots_dir (created). */
int kb_write_plot_data(const kb_report *r, const char *plots_dir, kb_err *err);

/* Roofline ceilings of the H200 (plots/roofline.gp): FP32 SIMT peak (no tensor cores) and the
 * measured device-to-device copy bandwidth. floor(s) = max(flops / FLOPS, bytes / BW). */
#define KB_ROOF_FLOPS 67e12
#define KB_ROOF_BW 4.3e12
double kb_roofline_fraction(double flops, double bytes, double ms);

#ifdef __cplusplus
}
#endif

#endif /* KB_TABLES_H */
