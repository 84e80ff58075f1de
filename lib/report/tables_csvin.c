/* tables_csvin.c -- kb-aggregate's notes and its CSV input (libcsv): reference/paper-tables.csv
 * (kb_tables.h), and the CSV reader models.c and results.json use (kb_table.h). */
#include "report/kb_table.h"

#include <csv.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== notes ==================================================================================== */

int kb_note(kb_notes *n, int is_error, const char *fmt, ...)
{
    if (!n)
        return 0; /* notes not wanted (already summarised by the caller) */
    char text[2048];
    int off = snprintf(text, sizeof text, "%s", is_error ? "error: " : "warning: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + off, sizeof text - (size_t)off, fmt, ap);
    va_end(ap);
    if (n->n == n->cap) {
        size_t cap = n->cap ? 2 * n->cap : 32;
        char **v = realloc(n->lines, cap * sizeof *v);
        if (!v)
            return -1;
        n->lines = v;
        n->cap = cap;
    }
    if (!(n->lines[n->n] = strdup(text)))
        return -1;
    n->n++;
    n->n_errors += is_error != 0;
    return 0;
}

void kb_notes_free(kb_notes *n)
{
    for (size_t i = 0; i < n->n; i++)
        free(n->lines[i]);
    free(n->lines);
    memset(n, 0, sizeof *n);
}

/* ==== CSV input (libcsv) ======================================================================= */

static void csv_field_cb(void *s, size_t len, void *data)
{
    kbt_csv *t = data;
    if (t->oom)
        return;
    if (t->cur_n == t->cur_cap) {
        size_t cap = t->cur_cap ? 2 * t->cur_cap : 8;
        char **v = realloc(t->cur, cap * sizeof *v);
        if (!v) {
            t->oom = 1;
            return;
        }
        t->cur = v;
        t->cur_cap = cap;
    }
    char *f = malloc(len + 1);
    if (!f) {
        t->oom = 1;
        return;
    }
    if (len)
        memcpy(f, s, len);
    f[len] = '\0';
    t->cur[t->cur_n++] = f;
}

static void csv_row_cb(int c, void *data)
{
    (void)c;
    kbt_csv *t = data;
    if (t->oom)
        return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char ***r = realloc(t->rows, cap * sizeof *r);
        size_t *nc = r ? realloc(t->ncols, cap * sizeof *nc) : NULL;
        if (r)
            t->rows = r;
        if (!r || !nc) {
            t->oom = 1;
            return;
        }
        t->ncols = nc;
        t->cap = cap;
    }
    t->rows[t->n] = t->cur;
    t->ncols[t->n] = t->cur_n;
    t->n++;
    t->cur = NULL;
    t->cur_n = t->cur_cap = 0;
}

void kbt_csv_free(kbt_csv *t)
{
    for (size_t i = 0; i < t->n; i++) {
        for (size_t j = 0; j < t->ncols[i]; j++)
            free(t->rows[i][j]);
        free(t->rows[i]);
    }
    for (size_t j = 0; j < t->cur_n; j++)
        free(t->cur[j]);
    free(t->cur);
    free(t->rows);
    free(t->ncols);
    memset(t, 0, sizeof *t);
}

int kbt_csv_read(const char *path, kbt_csv *t, kb_err *err)
{
    memset(t, 0, sizeof *t);
    size_t len;
    char *text = kb_read_file(path, &len, err);
    if (!text)
        return -1;
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_APPEND_NULL) != 0) {
        free(text);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    int rc = 0;
    if (csv_parse(&p, text, len, csv_field_cb, csv_row_cb, t) != len ||
        csv_fini(&p, csv_field_cb, csv_row_cb, t) != 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "%s: not valid CSV (%s)", path, csv_strerror(csv_error(&p)));
    else if (t->oom)
        rc = kb_errf(err, KB_EXIT_FAIL, "out of memory reading %s", path);
    csv_free(&p);
    free(text);
    if (rc)
        kbt_csv_free(t);
    return rc;
}

int kbt_csv_col(const kbt_csv *t, const char *name)
{
    if (t->n == 0)
        return -1;
    for (size_t j = 0; j < t->ncols[0]; j++)
        if (!strcmp(t->rows[0][j], name))
            return (int)j;
    return -1;
}

const char *kbt_csv_cell(const kbt_csv *t, size_t row, int col)
{
    return (col >= 0 && (size_t)col < t->ncols[row]) ? t->rows[row][col] : "";
}

/* A row of only empty fields (a trailing blank line). */
int kbt_csv_blank(const kbt_csv *t, size_t row)
{
    for (size_t j = 0; j < t->ncols[row]; j++)
        if (t->rows[row][j][0])
            return 0;
    return 1;
}

int kb_read_reference_csv(const char *path, kb_ref_row **out, size_t *n, kb_err *err)
{
    *out = NULL;
    *n = 0;
    kbt_csv t;
    if (kbt_csv_read(path, &t, err) != 0)
        return -1;
    int cm = kbt_csv_col(&t, "model"), cl = kbt_csv_col(&t, "level"), ck = kbt_csv_col(&t, "metric"), cv = kbt_csv_col(&t, "value");
    if (cm < 0 || cl < 0 || ck < 0 || cv < 0) {
        kbt_csv_free(&t);
        return kb_errf(err, KB_EXIT_FAIL, "%s: the header must name model,level,metric,value", path);
    }
    kb_ref_row *v = calloc(t.n ? t.n : 1, sizeof *v);
    if (!v) {
        kbt_csv_free(&t);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 1; i < t.n; i++) {
        if (kbt_csv_blank(&t, i))
            continue;
        kb_ref_row *r = &v[k++];
        snprintf(r->model, sizeof r->model, "%s", kbt_csv_cell(&t, i, cm));
        snprintf(r->level, sizeof r->level, "%s", kbt_csv_cell(&t, i, cl));
        snprintf(r->metric, sizeof r->metric, "%s", kbt_csv_cell(&t, i, ck));
        const char *s = kbt_csv_cell(&t, i, cv);
        char *end;
        r->value = strtod(s, &end);
        if (!s[0] || *end) {
            kb_errf(err, KB_EXIT_FAIL, "%s: row %zu: value '%s' is not a number", path, i + 1, s);
            kbt_csv_free(&t);
            free(v);
            return -1;
        }
    }
    kbt_csv_free(&t);
    *out = v;
    *n = k;
    return 0;
}

double kb_ref_value(const kb_ref_row *rows, size_t n, const char *model, const char *level, const char *metric)
{
    if (!model || !model[0])
        return NAN;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].model, model) && !strcmp(rows[i].level, level) && !strcmp(rows[i].metric, metric))
            return rows[i].value;
    return NAN;
}
