/*
 * kb_table.h -- the inside of kb-aggregate's library (kb_tables.h is its outside), shared by its
 * parts:
 *   lib/report/tables_csvin.c  notes; CSV input (libcsv): the reader, reference/paper-tables.csv
 *   lib/report/models.c        models.csv, submissions/<model>/extraction.csv, the check before any work
 *   lib/report/tables.c        the reader: a protocol tree of HDF5 artifacts (names: kb_schema.h) into
 *                       the table model (kb_report: the records of kb_metrics.h)
 *   lib/report/tables_base.c   the reader's baselines: the C baseline's or PyTorch eager's times (BASELINE)
 *   lib/report/metrics.c       the metrics over that model (pure)
 *   lib/report/tables_out.c    what every emitter needs: in-memory output files, number and text formats
 *   lib/report/tables_csv.c    the CSV tables (one description each: file, columns, units), results.json
 *   lib/report/tables_text.c   Markdown and LaTeX, from one description of each shared table
 *   lib/report/tables_plot.c   the gnuplot data files
 * Not for use outside lib/tables*.c.
 */
#ifndef KB_TABLE_H
#define KB_TABLE_H

#include <stdio.h>

#include "core/kb_h5.h"
#include "report/kb_tables.h"

/* ---- CSV input (tables_csvin.c) --------------------------------------------------------------- */
typedef struct kbt_csv {
    char ***rows;  /* rows[i][j] */
    size_t *ncols; /* fields of row i */
    size_t n, cap;
    char **cur;    /* the row being parsed */
    size_t cur_n, cur_cap;
    int oom;
} kbt_csv;

int kbt_csv_read(const char *path, kbt_csv *t, kb_err *err);
void kbt_csv_free(kbt_csv *t);
int kbt_csv_col(const kbt_csv *t, const char *name);            /* the header's column, -1 if none */
const char *kbt_csv_cell(const kbt_csv *t, size_t row, int col); /* "" outside the row */
int kbt_csv_blank(const kbt_csv *t, size_t row);                 /* only empty fields */

/* ---- reading artifacts (tables.c), shared with tables_base.c ---------------------------------- */
/* Opens an artifact and checks what every artifact has (schema_version, outcome): NULL with a note
 * (a warning if it is missing, an error if it is unreadable); *state 0 ok, 1 missing, 2 bad. */
kb_h5r *kbt_open_artifact(const char *path, const char *stage, kb_notes *notes, int *state);
/* kbt_open_artifact of <dir>/<file> (its path in path). */
kb_h5r *kbt_open_stage(const char *dir, const char *file, const char *stage, char *path, size_t len, kb_notes *notes);
/* An attribute, or "" / def when it is absent. */
void kbt_attr_str(kb_h5r *r, const char *obj, const char *name, char *buf, size_t len);
int64_t kbt_attr_i64(kb_h5r *r, const char *obj, const char *name, int64_t def);
double kbt_attr_f64(kb_h5r *r, const char *obj, const char *name, double def);
/* One note for a directory where none of the files exist (and NULL, so that no more are added). */
kb_notes *kbt_notes_unless_all_missing(const char *dir, const char *const *files, size_t n, const char *what,
                                       kb_notes *notes);
/* tables_base.c: does a baseline directory hold any baseline artifact; what a problem is, from its
 * baseline-time.h5 if any, without notes (a problem no model has a sample for). */
int kbt_baseline_dir_used(const char *dir);
void kbt_load_problem_quietly(const char *dir, kb_problem_rec *p);

/* ---- output files (tables_out.c): built in memory, then written atomically -------------------- */
typedef struct kbt_out {
    FILE *f;
    char *buf;
    size_t len;
    int col; /* CSV: fields written on the current row */
} kbt_out;

int kbt_out_open(kbt_out *o, kb_err *err);
int kbt_out_commit(kbt_out *o, const char *dir, const char *name, kb_err *err);
/* Drops the file (on an error before the commit); returns kb_errf's "out of memory". */
int kbt_out_oom(kbt_out *o, kb_err *err);

/* Shortest decimal form that reads back as the same double ("NaN", "inf", "-inf"). */
void kbt_fmt_full(char *buf, size_t len, double v);

/* CSV fields (quoted as needed) and rows */
void kbt_c_str(kbt_out *o, const char *s);
void kbt_c_num(kbt_out *o, double v);
void kbt_c_int(kbt_out *o, long long v);
void kbt_c_end(kbt_out *o);
void kbt_c_header(kbt_out *o, const char *const *cols, size_t n);

/* Human formats (Markdown: tex 0, LaTeX: tex 1), in a ring of 32 buffers so that several fit in
 * one printf. */
char *kbt_ring_next(void);
#define KBT_RING_LEN 96
const char *kbt_h_missing(int tex);          /* "–" / "--" */
const char *kbt_h_sig(double x, int tex);    /* 3 significant digits, fixed notation */
const char *kbt_h_pct(double x, int tex);    /* a share as "12.3%" */
const char *kbt_h_bytes(double x, int tex);  /* kb_fmt_bytes */
const char *kbt_h_tau(double tau);           /* %g */
const char *kbt_tex_esc(const char *s);
const char *kbt_md_esc(const char *s);

/* ---- the model, as the tables show it (tables_out.c) ------------------------------------------ */
void kbt_level_name(int level, char *buf, size_t len);  /* "level1", "all" (level 0) */
void kbt_level_short(int level, char *buf, size_t len); /* "L1", "pooled" */
size_t kbt_level_problems(const kb_data *d, int level); /* problems counted at the level */
/* Why a problem is not solved (verified), e.g. "fails D4 (s0); standard: wrong_answer (x2)". */
void kbt_problem_reason(const kb_cell_rec *c, char *buf, size_t len);
/* "m1;m2": the models whose mask is set */
void kbt_model_list(const kb_data *d, const int *mask, char *buf, size_t len);
#define KBT_MAX_DIST_NAMES 32
#define KBT_DIST_NAME_LEN 16
/* Adds name (its first 15 characters) to the n names unless there or full; returns the count. */
size_t kbt_dist_name_add(char names[][KBT_DIST_NAME_LEN], size_t n, const char *name);
/* Distribution counts of model m (m == n_models: summed over models). */
void kbt_dist_rows(const kb_data *d, size_t m, int best, kb_dist_counts *out, size_t *n);
/* The taus of the tolerance tables. */
#define KBT_N_TOL_TAUS 3
extern const double kbt_tol_taus[KBT_N_TOL_TAUS];
/* The paper's value of a model's metric, NaN if the model is not a paper model. */
double kbt_paper(const kb_report *r, size_t m, int level, const char *metric);
int kbt_has_paper(const kb_report *r, size_t m);

/* ---- emitters --------------------------------------------------------------------------------- */
int kbt_write_markdown(const kb_report *r, const char *dir, kb_err *err); /* tables_text.c */
int kbt_write_latex(const kb_report *r, const char *dir, kb_err *err);    /* tables_text.c */

#endif /* KB_TABLE_H */
