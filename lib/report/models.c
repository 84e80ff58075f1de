/* models.c -- models.csv (what the tables cite a model by), submissions/<model>/extraction.csv,
 * and the check the Makefile runs before any work (kb_tables.h). One set of rules: kb-aggregate
 * and `make all` both call these. */
#include "report/kb_table.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "llm/kb_extract.h"

const char *const kb_model_styles[KB_MODELS_N_STYLES] = {"kernelbench", "abi", "hand-written"};

/* A ready-to-fill row: the placeholders say what goes in each column. */
#define EXAMPLE_FIELDS "PROVIDER,YYYY-MM-DD,temperature=1.0 top_p=1.0,5,kernelbench"
#define FIELD_HELP                                                                                              \
    "(provider: who made the model, \"this project\" for hand-written code; date: the day the samples were "    \
    "generated or written, YYYY-MM-DD, or unknown; sampling: the settings as free text, - for hand-written "     \
    "code, or unknown; samples_per_problem: the N of best-of-N; prompt_style: kernelbench, abi or hand-written)"

/* ---- error lists: one message, several problems -------------------------------------------------- */

typedef struct errlist {
    kb_err *err;
    size_t n;
} errlist;

static void errlist_add(errlist *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void errlist_add(errlist *l, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t len = l->n ? strlen(l->err->msg) : 0;
    if (!l->n)
        l->err->code = KB_EXIT_FAIL;
    if (len < sizeof l->err->msg - 1)
        snprintf(l->err->msg + len, sizeof l->err->msg - len, "%s%s", l->n ? "\n  " : "", line);
    l->n++;
}

/* ---- the fields of a row --------------------------------------------------------------------------- */

static int model_name_ok(const char *s)
{
    if (!s[0])
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
            return 0;
    return 1;
}

static int date_ok(const char *s)
{
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (!strcmp(s, "unknown"))
        return 1;
    if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
        return 0;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
            return 0;
    int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
        return 0;
    return !(m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)));
}

/* A positive integer, digits only; 0 if not. */
static int positive_int(const char *s)
{
    if (!s[0] || strlen(s) > 6)
        return 0;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p))
            return 0;
    return atoi(s);
}

static int style_ok(const char *s)
{
    for (int i = 0; i < KB_MODELS_N_STYLES; i++)
        if (!strcmp(s, kb_model_styles[i]))
            return 1;
    return 0;
}

static void copy_field(char *dst, size_t len, const kbt_csv *t, size_t row, int col)
{
    snprintf(dst, len, "%s", kbt_csv_cell(t, row, col));
}

enum { C_MODEL, C_DISPLAY, C_PAPER, C_ORDER, C_PROVIDER, C_DATE, C_SAMPLING, C_SPP, C_STYLE, N_COLS };
static const char *const col_names[N_COLS] = {"model",    "display_name", "paper_name",          "order",       "provider",
                                              "date",     "sampling",     "samples_per_problem", "prompt_style"};

/* One row into mi; its problems into l. */
static void read_model_row(const kbt_csv *t, size_t i, const int *col, const char *path, kb_model_info *mi, errlist *l)
{
    size_t line = i + 1;
    mi->line = line;
    copy_field(mi->model, sizeof mi->model, t, i, col[C_MODEL]);
    copy_field(mi->display, sizeof mi->display, t, i, col[C_DISPLAY]);
    copy_field(mi->paper, sizeof mi->paper, t, i, col[C_PAPER]);
    copy_field(mi->provider, sizeof mi->provider, t, i, col[C_PROVIDER]);
    copy_field(mi->date, sizeof mi->date, t, i, col[C_DATE]);
    copy_field(mi->sampling, sizeof mi->sampling, t, i, col[C_SAMPLING]);
    copy_field(mi->prompt_style, sizeof mi->prompt_style, t, i, col[C_STYLE]);
    const char *date = kbt_csv_cell(t, i, col[C_DATE]), *spp = kbt_csv_cell(t, i, col[C_SPP]),
               *style = kbt_csv_cell(t, i, col[C_STYLE]), *o = kbt_csv_cell(t, i, col[C_ORDER]);
    if (!model_name_ok(mi->model))
        errlist_add(l, "%s:%zu: column 'model': '%s' is not a model directory name: letters, digits, '.', '_', '-' "
                    "(as in submissions/<model>/)", path, line, mi->model);
    if (!mi->display[0])
        errlist_add(l, "%s:%zu: column 'display_name' is empty: the model's name in tables (e.g. GPT-5.5)", path, line);
    if (!mi->provider[0])
        errlist_add(l, "%s:%zu: column 'provider' is empty: who made the model (e.g. OpenAI; this project for "
                    "hand-written code)", path, line);
    if (!date_ok(date))
        errlist_add(l, "%s:%zu: column 'date': '%s' is not a date: YYYY-MM-DD (e.g. 2026-05-14, the day the samples "
                    "were generated or written) or unknown", path, line, date);
    if (!mi->sampling[0])
        errlist_add(l, "%s:%zu: column 'sampling' is empty: the settings (e.g. temperature=1.0 top_p=1.0), - for "
                    "hand-written code, or unknown", path, line);
    if (!(mi->samples_per_problem = positive_int(spp)))
        errlist_add(l, "%s:%zu: column 'samples_per_problem': '%s' is not an integer > 0 (e.g. 5: the N of "
                    "best-of-N)", path, line, spp);
    if (!style_ok(style))
        errlist_add(l, "%s:%zu: column 'prompt_style': '%s' is not one of kernelbench, abi, hand-written", path, line,
                    style);
    char *end;
    mi->order = o[0] ? strtod(o, &end) : NAN;
    if (o[0] && *end)
        errlist_add(l, "%s:%zu: column 'order': '%s' is not a number (e.g. 10), or leave it empty", path, line, o);
}

int kb_read_models_csv(const char *path, kb_model_info **out, size_t *n, kb_err *err)
{
    *out = NULL;
    *n = 0;
    kbt_csv t;
    if (kbt_csv_read(path, &t, err) != 0)
        return -1;
    int col[N_COLS];
    char missing[256] = "";
    for (int c = 0; c < N_COLS; c++)
        if ((col[c] = kbt_csv_col(&t, col_names[c])) < 0)
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s", missing[0] ? ", " : "",
                     col_names[c]);
    if (missing[0]) {
        kbt_csv_free(&t);
        return kb_errf(err, KB_EXIT_FAIL, "%s:1: the header lacks the column(s) %s: it names " KB_MODELS_COLUMNS
                       " (any order) " FIELD_HELP, path, missing);
    }
    kb_model_info *v = calloc(t.n ? t.n : 1, sizeof *v);
    if (!v) {
        kbt_csv_free(&t);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    errlist l = {err, 0};
    size_t k = 0;
    for (size_t i = 1; i < t.n; i++) {
        if (kbt_csv_blank(&t, i))
            continue;
        read_model_row(&t, i, col, path, &v[k], &l);
        const kb_model_info *dup = kb_model_find(v, k, v[k].model);
        if (dup && v[k].model[0])
            errlist_add(&l, "%s:%zu: model '%s' is listed again (first at line %zu): one row per model", path,
                        v[k].line, v[k].model, dup->line);
        k++;
    }
    kbt_csv_free(&t);
    if (l.n) {
        free(v);
        return -1;
    }
    *out = v;
    *n = k;
    return 0;
}

const kb_model_info *kb_model_find(const kb_model_info *v, size_t n, const char *model)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].model, model))
            return &v[i];
    return NULL;
}

int kb_models_require(const kb_model_info *v, size_t n, const char *models_csv, const char *const *models,
                      size_t n_models, kb_err *err)
{
    char names[256] = "", rows[640] = "";
    size_t missing = 0;
    for (size_t i = 0; i < n_models; i++) {
        if (kb_model_find(v, n, models[i]))
            continue;
        missing++;
        size_t ln = strlen(names), lr = strlen(rows);
        snprintf(names + ln, sizeof names - ln, "%s%s", ln ? ", " : "", models[i]);
        snprintf(rows + lr, sizeof rows - lr, "\n  %s,%s,,," EXAMPLE_FIELDS, models[i], models[i]);
    }
    if (!missing)
        return 0;
    return kb_errf(err, KB_EXIT_FAIL,
                   "%s describes no model %s: add a row for %s (fill in what is in capitals or not true), e.g.\n"
                   "  " KB_MODELS_COLUMNS "%s\n" FIELD_HELP,
                   models_csv, names, missing > 1 ? "each" : "it", rows);
}

int kb_model_check_samples(const kb_model_info *mi, const char *models_csv, const char *where, size_t n_samples,
                           kb_err *err)
{
    if (n_samples <= (size_t)mi->samples_per_problem)
        return 0;
    return kb_errf(err, KB_EXIT_FAIL,
                   "%s: %zu samples of one problem, but %s:%zu says model %s has samples_per_problem %d: remove the "
                   "extra samples, or correct samples_per_problem",
                   where, n_samples, models_csv, mi->line, mi->model, mi->samples_per_problem);
}

int kb_models_append(const char *models_csv, const char *model, int samples_per_problem, const char *prompt_style,
                     size_t *line, char *row, size_t row_len, kb_err *err)
{
    int exists = kb_file_exists(models_csv);
    size_t len = 0;
    char *old = exists ? kb_read_file(models_csv, &len, err) : strdup(KB_MODELS_COLUMNS "\n");
    if (!old)
        return exists ? -1 : kb_errf(err, KB_EXIT_FAIL, "out of memory");
    if (!exists)
        len = strlen(old);
    kbt_csv t = {0};
    int rc = exists ? kbt_csv_read(models_csv, &t, err) : 0;
    /* the file's line end (its first line's) */
    const char *nl = memchr(old, '\n', len), *eol = nl && nl > old && nl[-1] == '\r' ? "\r\n" : "\n";
    char spp[16];
    snprintf(spp, sizeof spp, "%d", samples_per_problem);
    /* the values by column; a column the header does not name, or another one, stays empty */
    const char *value[N_COLS] = {model, model, "", "", "unknown", "unknown", "unknown", spp, prompt_style};
    char *text = NULL;
    size_t text_len = 0;
    FILE *f = rc == 0 ? open_memstream(&text, &text_len) : NULL;
    if (rc == 0 && !f)
        rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
    if (f) {
        fwrite(old, 1, len, f);
        if (len && old[len - 1] != '\n')
            fputs(eol, f);
        size_t ncols = t.n ? t.ncols[0] : N_COLS;
        for (size_t j = 0; j < ncols; j++) {
            const char *name = t.n ? t.rows[0][j] : col_names[j], *v = "";
            for (int c = 0; c < N_COLS; c++)
                if (!strcmp(name, col_names[c]))
                    v = value[c];
            fprintf(f, "%s%s", j ? "," : "", v);
        }
        fputs(eol, f);
        if (fclose(f) != 0)
            rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    if (rc == 0) {
        /* the row is the text's last line */
        size_t start = text_len - strlen(eol);
        while (start > 0 && text[start - 1] != '\n')
            start--;
        snprintf(row, row_len, "%.*s", (int)(text_len - strlen(eol) - start), text + start);
        *line = 1;
        for (size_t i = 0; i < start; i++)
            *line += text[i] == '\n';
    }
    if (rc == 0)
        rc = kb_write_file_atomic(models_csv, text, text_len, err);
    free(text);
    free(old);
    kbt_csv_free(&t);
    return rc;
}

/* ---- extraction.csv ------------------------------------------------------------------------------- */

static int outcome_ok(const char *s)
{
    for (int o = 0; o < KB_EX_N; o++)
        if (!strcmp(s, kb_extract_outcome_name((kb_extract_outcome)o)))
            return 1;
    return 0;
}

static int sample_name_ok(const char *s)
{
    if (s[0] != 's' || !s[1])
        return 0;
    for (s++; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static int header_ok(const kbt_csv *t)
{
    static const char *const want[] = {"problem", "sample", "outcome", "reason", "source"};
    if (t->n == 0 || t->ncols[0] != 5)
        return 0;
    for (int j = 0; j < 5; j++)
        if (strcmp(t->rows[0][j], want[j]) != 0)
            return 0;
    return 1;
}

static void read_extract_row(const kbt_csv *t, size_t i, const char *path, kb_extract_row *r, errlist *l)
{
    r->line = i + 1;
    copy_field(r->problem, sizeof r->problem, t, i, 0);
    copy_field(r->sample, sizeof r->sample, t, i, 1);
    copy_field(r->outcome, sizeof r->outcome, t, i, 2);
    copy_field(r->reason, sizeof r->reason, t, i, 3);
    if (t->ncols[i] != 5)
        errlist_add(l, "%s:%zu: %zu fields, the header has 5 (problem,sample,outcome,reason,source)", path, r->line,
                    t->ncols[i]);
    if (kb_problem_level(r->problem) == 0 || !strchr(r->problem, '/'))
        errlist_add(l, "%s:%zu: column 'problem': '%s' is not a problem id (levelN/NNN_name)", path, r->line,
                    r->problem);
    if (!sample_name_ok(r->sample))
        errlist_add(l, "%s:%zu: column 'sample': '%s' is not a sample name (sK: s0, s1, ...)", path, r->line,
                    r->sample);
    if (!outcome_ok(kbt_csv_cell(t, i, 2)))
        errlist_add(l, "%s:%zu: column 'outcome': '%s' is not one of ok, not_text, empty, truncated, no_code_block, "
                    "wrong_language, several_blocks, wrong_name", path, r->line, kbt_csv_cell(t, i, 2));
}

int kb_read_extraction_csv(const char *path, kb_extract_row **out, size_t *n, kb_err *err)
{
    *out = NULL;
    *n = 0;
    kbt_csv t;
    if (kbt_csv_read(path, &t, err) != 0)
        return -1;
    if (!header_ok(&t)) {
        kbt_csv_free(&t);
        return kb_errf(err, KB_EXIT_FAIL,
                       "%s:1: the header is not problem,sample,outcome,reason,source (kb-extract writes this file: "
                       "re-run make extract RESPONSES=dir MODEL=name)", path);
    }
    kb_extract_row *v = calloc(t.n, sizeof *v);
    if (!v) {
        kbt_csv_free(&t);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    errlist l = {err, 0};
    size_t k = 0;
    for (size_t i = 1; i < t.n; i++)
        if (!kbt_csv_blank(&t, i))
            read_extract_row(&t, i, path, &v[k++], &l);
    kbt_csv_free(&t);
    if (l.n) {
        free(v);
        return -1;
    }
    *out = v;
    *n = k;
    return 0;
}

/* ---- the check before any work ---------------------------------------------------------------------- */

/* The names "problem/sample" of one model's samples: sK.cu and sK.py files, and the rows of its
 * extraction.csv that gave none. */
typedef struct names {
    char **v;
    size_t n, cap;
} names;

static int names_add(names *s, const char *problem, const char *sample)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        char **v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    size_t len = strlen(problem) + strlen(sample) + 2;
    if (!(s->v[s->n] = malloc(len)))
        return -1;
    snprintf(s->v[s->n++], len, "%s/%s", problem, sample);
    return 0;
}

static void names_free(names *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The sample files of <mdir>/levelN/NNN_name/. */
static int add_sample_files(const char *mdir, names *s)
{
    for (int lv = 1; lv <= 3; lv++) {
        char ldir[4096];
        snprintf(ldir, sizeof ldir, "%.4000s/level%d", mdir, lv);
        DIR *dl = opendir(ldir);
        if (!dl)
            continue;
        struct dirent *p;
        while ((p = readdir(dl))) {
            if (p->d_name[0] == '.')
                continue;
            char pdir[4400], problem[300];
            snprintf(pdir, sizeof pdir, "%s/%s", ldir, p->d_name);
            snprintf(problem, sizeof problem, "level%d/%.280s", lv, p->d_name);
            DIR *dp = opendir(pdir);
            struct dirent *f;
            while (dp && (f = readdir(dp))) {
                char sample[64];
                const char *dot = strrchr(f->d_name, '.');
                if (!dot || (strcmp(dot, ".cu") && strcmp(dot, ".py")) || (size_t)(dot - f->d_name) >= sizeof sample)
                    continue;
                snprintf(sample, sizeof sample, "%.*s", (int)(dot - f->d_name), f->d_name);
                if (sample_name_ok(sample) && names_add(s, problem, sample) != 0) {
                    closedir(dp);
                    closedir(dl);
                    return -1;
                }
            }
            if (dp)
                closedir(dp);
        }
        closedir(dl);
    }
    return 0;
}

/* Sorted, duplicates dropped (a sample with a file and an ok row is one sample). */
static void names_unique(names *s)
{
    if (s->n)
        qsort(s->v, s->n, sizeof *s->v, cmp_name);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (k && !strcmp(s->v[k - 1], s->v[i]))
            free(s->v[i]);
        else
            s->v[k++] = s->v[i];
    }
    s->n = k;
}

/* Runs of one problem in the sorted names, each within samples_per_problem. */
static int check_counts(const names *s, const kb_model_info *mi, const char *models_csv, const char *mdir, kb_err *err)
{
    for (size_t i = 0; i < s->n;) {
        const char *slash = strrchr(s->v[i], '/');
        size_t plen = (size_t)(slash - s->v[i]), j = i;
        while (j < s->n && !strncmp(s->v[j], s->v[i], plen + 1))
            j++;
        char where[4400];
        snprintf(where, sizeof where, "%s/%.*s", mdir, (int)plen, s->v[i]);
        if (kb_model_check_samples(mi, models_csv, where, j - i, err) != 0)
            return -1;
        i = j;
    }
    return 0;
}

static int check_model(const kb_model_info *mi, const char *models_csv, const char *submissions, kb_err *err)
{
    char mdir[4096], xpath[4200];
    snprintf(mdir, sizeof mdir, "%s/%s", submissions, mi->model);
    snprintf(xpath, sizeof xpath, "%s/extraction.csv", mdir);
    names s = {0};
    int rc = add_sample_files(mdir, &s);
    if (rc == 0 && kb_file_exists(xpath)) {
        kb_extract_row *rows = NULL;
        size_t nr = 0;
        rc = kb_read_extraction_csv(xpath, &rows, &nr, err);
        for (size_t i = 0; rc == 0 && i < nr; i++)
            if (strcmp(rows[i].outcome, "ok") != 0)
                rc = names_add(&s, rows[i].problem, rows[i].sample);
        free(rows);
    }
    if (rc == 0) {
        names_unique(&s);
        rc = check_counts(&s, mi, models_csv, mdir, err);
    } else if (!err->msg[0]) {
        kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    names_free(&s);
    return rc;
}

int kb_models_check(const char *models_csv, const char *submissions, const char *const *models, size_t n_models,
                    kb_err *err)
{
    kb_model_info *v;
    size_t n;
    if (kb_read_models_csv(models_csv, &v, &n, err) != 0)
        return -1;
    int rc = kb_models_require(v, n, models_csv, models, n_models, err);
    for (size_t i = 0; rc == 0 && i < n_models; i++)
        rc = check_model(kb_model_find(v, n, models[i]), models_csv, submissions, err);
    free(v);
    return rc;
}
