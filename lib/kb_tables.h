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

#include "kb_metrics.h"
#include "kb_util.h"

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
typedef struct kb_model_info {
    char model[128];   /* directory name under submissions/ and artifacts/<protocol>/ */
    char display[128]; /* name in tables and legends (the model's name if empty) */
    char paper[128];   /* the paper's name for it ("GPT-5.5"), "" if not a paper model */
    double order;      /* position in tables; NaN: after the listed ones, alphabetically */
} kb_model_info;

/* models.csv: a header with columns model, display_name, paper_name, order (any order, other
 * columns ignored), one row per model. */
int kb_read_models_csv(const char *path, kb_model_info **out, size_t *n, kb_err *err);

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
} kb_report;

/* Reads everything. Returns -1 only when it cannot go on (models.csv unreadable, out of memory);
 * missing and malformed artifacts become notes. */
int kb_report_load(kb_report *r, const char *artifacts, const char *const *problems, size_t n_problems,
                   const char *models_csv, const char *reference_csv, kb_err *err);
void kb_report_free(kb_report *r);

/* The records of one sample directory (<artifacts>/<model>/<problem>/<sample>/); notes for
 * missing and malformed files go to `notes`. `protocol` selects how the hidden check's tau_req
 * is read (kb_protocol_tau_based: not for a protocol whose pass is the error-model bound). */
void kb_load_sample(const char *dir, const char *name, const char *protocol, kb_sample_rec *s, kb_notes *notes);
/* The baseline of one problem (<artifacts>/baseline/<problem>/). */
void kb_load_baseline(const char *dir, kb_problem_rec *p, kb_notes *notes);

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
