/* tables_out.c -- what every emitter of kb-aggregate needs (kb_table.h): output files built in
 * memory and written atomically, the CSV and human number formats, and the model as the tables
 * show it (levels, reasons, tallies, the paper's numbers). */
#include "report/kb_table.h"

#include <csv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kbt_out_open(kbt_out *o, kb_err *err)
{
    memset(o, 0, sizeof *o);
    o->f = open_memstream(&o->buf, &o->len);
    return o->f ? 0 : kb_errf(err, KB_EXIT_FAIL, "out of memory");
}

int kbt_out_commit(kbt_out *o, const char *dir, const char *name, kb_err *err)
{
    int bad = ferror(o->f);
    if (fclose(o->f) != 0)
        bad = 1;
    int rc = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (bad || !o->buf)
        rc = kb_errf(err, KB_EXIT_FAIL, "out of memory writing %s", path);
    else
        rc = kb_write_file_atomic(path, o->buf, o->len, err);
    free(o->buf);
    memset(o, 0, sizeof *o);
    return rc;
}

int kbt_out_oom(kbt_out *o, kb_err *err)
{
    fclose(o->f);
    free(o->buf);
    memset(o, 0, sizeof *o);
    return kb_errf(err, KB_EXIT_FAIL, "out of memory");
}

/* Shortest decimal form that reads back as the same double: full precision, nothing rounded. */
void kbt_fmt_full(char *buf, size_t len, double v)
{
    if (isnan(v)) {
        snprintf(buf, len, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, v > 0 ? "inf" : "-inf");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void kbt_c_str(kbt_out *o, const char *s)
{
    if (o->col++)
        fputc(',', o->f);
    if (strpbrk(s, ",\"\r\n") || (s[0] == ' ') || (s[0] && s[strlen(s) - 1] == ' '))
        csv_fwrite(o->f, s, strlen(s));
    else
        fputs(s, o->f);
}

void kbt_c_num(kbt_out *o, double v)
{
    char buf[64];
    kbt_fmt_full(buf, sizeof buf, v);
    kbt_c_str(o, buf);
}

void kbt_c_int(kbt_out *o, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    kbt_c_str(o, buf);
}

void kbt_c_end(kbt_out *o)
{
    fputc('\n', o->f);
    o->col = 0;
}

void kbt_c_header(kbt_out *o, const char *const *cols, size_t n)
{
    for (size_t i = 0; i < n; i++)
        kbt_c_str(o, cols[i]);
    kbt_c_end(o);
}

/* Human formats (Markdown, LaTeX): a ring of buffers so that several fit in one printf. */
static char ring[32][KBT_RING_LEN];
static int ring_i;
char *kbt_ring_next(void)
{
    ring_i = (ring_i + 1) % 32;
    return ring[ring_i];
}

const char *kbt_h_missing(int tex) { return tex ? "--" : "–"; }

/* 3 significant digits, fixed notation. */
const char *kbt_h_sig(double x, int tex)
{
    if (isnan(x))
        return kbt_h_missing(tex);
    char *b = kbt_ring_next();
    if (isinf(x)) {
        snprintf(b, KBT_RING_LEN, "%s", x > 0 ? "inf" : "-inf");
        return b;
    }
    double ax = fabs(x);
    if (ax == 0.0) {
        snprintf(b, KBT_RING_LEN, "0");
    } else if (ax < 1e-3 || ax >= 1e6) {
        snprintf(b, KBT_RING_LEN, "%.2e", x);
    } else {
        int e = (int)floor(log10(ax));
        int dec = 2 - e;
        snprintf(b, KBT_RING_LEN, "%.*f", dec < 0 ? 0 : dec, x);
    }
    return b;
}

const char *kbt_h_pct(double x, int tex)
{
    if (isnan(x))
        return kbt_h_missing(tex);
    char *b = kbt_ring_next();
    snprintf(b, KBT_RING_LEN, tex ? "%.1f\\%%" : "%.1f%%", 100.0 * x);
    return b;
}

const char *kbt_h_bytes(double x, int tex)
{
    if (!isfinite(x))
        return kbt_h_missing(tex);
    char *b = kbt_ring_next();
    kb_fmt_bytes(b, KBT_RING_LEN, x);
    return b;
}

const char *kbt_h_tau(double tau)
{
    char *b = kbt_ring_next();
    snprintf(b, KBT_RING_LEN, "%g", tau);
    return b;
}

/* LaTeX-safe text. */
const char *kbt_tex_esc(const char *s)
{
    char *b = kbt_ring_next();
    size_t k = 0;
    for (; *s && k + 3 < KBT_RING_LEN; s++) {
        if (strchr("_&%#$", *s))
            b[k++] = '\\';
        b[k++] = *s;
    }
    b[k] = '\0';
    return b;
}

const char *kbt_md_esc(const char *s)
{
    char *b = kbt_ring_next();
    size_t k = 0;
    for (; *s && k + 3 < KBT_RING_LEN; s++) {
        if (*s == '|')
            b[k++] = '\\';
        b[k++] = *s;
    }
    b[k] = '\0';
    return b;
}

void kbt_level_name(int level, char *buf, size_t len)
{
    if (level)
        snprintf(buf, len, "level%d", level);
    else
        snprintf(buf, len, "all");
}

void kbt_level_short(int level, char *buf, size_t len)
{
    if (level)
        snprintf(buf, len, "L%d", level);
    else
        snprintf(buf, len, "pooled");
}

size_t kbt_level_problems(const kb_data *d, int level)
{
    size_t n = 0;
    for (size_t p = 0; p < d->n_problems; p++)
        n += (size_t)kb_problem_counts(&d->problems[p], level);
    return n;
}

/* Why a problem is not solved (verified), e.g. "fails D4 (s0); standard: wrong_answer (x2)". */
void kbt_problem_reason(const kb_cell_rec *c, char *buf, size_t len)
{
    buf[0] = '\0';
    if (c->n == 0) {
        snprintf(buf, len, "no_submission");
        return;
    }
    kb_gate ver = {KB_GATE_VERIFIED, NAN, 0};
    if (kb_best_sample(c->samples, c->n, ver) >= 0)
        return;
    kb_tally t = {0};
    for (size_t i = 0; i < c->n; i++) {
        char reason[320];
        kb_sample_verdict(&c->samples[i], KB_GATE_VERIFIED, reason, sizeof reason);
        if (kb_tally_add(&t, reason[0] ? reason : "?", 1) != 0)
            break;
    }
    kb_tally_sort(&t);
    for (size_t i = 0; i < t.n; i++) {
        size_t l = strlen(buf);
        if (t.counts[i] > 1)
            snprintf(buf + l, len - l, "%s%s (x%zu)", l ? "; " : "", t.keys[i], t.counts[i]);
        else
            snprintf(buf + l, len - l, "%s%s", l ? "; " : "", t.keys[i]);
    }
    kb_tally_free(&t);
}

const double kbt_tol_taus[KBT_N_TOL_TAUS] = {1e-2, 1e-3, 1e-4};

void kbt_model_list(const kb_data *d, const int *mask, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t m = 0; m < d->n_models; m++)
        if (mask[m]) {
            size_t l = strlen(buf);
            snprintf(buf + l, len - l, "%s%s", l ? ";" : "", d->models[m]);
        }
}

size_t kbt_dist_name_add(char names[][KBT_DIST_NAME_LEN], size_t n, const char *name)
{
    for (size_t j = 0; j < n; j++)
        if (!strcmp(names[j], name))
            return n;
    if (n < KBT_MAX_DIST_NAMES)
        snprintf(names[n++], KBT_DIST_NAME_LEN, "%.15s", name);
    return n;
}

/* Distribution counts of every model (index n_models: summed over models). */
void kbt_dist_rows(const kb_data *d, size_t m, int best, kb_dist_counts *out, size_t *n)
{
    if (m < d->n_models) {
        *n = kb_dist_tally(d, m, best, out, KBT_MAX_DIST_NAMES);
        return;
    }
    *n = 0;
    for (size_t k = 0; k < d->n_models; k++) {
        kb_dist_counts v[KBT_MAX_DIST_NAMES];
        size_t nv = kb_dist_tally(d, k, best, v, KBT_MAX_DIST_NAMES);
        for (size_t i = 0; i < nv; i++) {
            size_t j = 0;
            while (j < *n && strcmp(out[j].name, v[i].name))
                j++;
            if (j == *n) {
                if (*n == KBT_MAX_DIST_NAMES)
                    continue;
                memset(&out[j], 0, sizeof out[j]);
                snprintf(out[j].name, sizeof out[j].name, "%.15s", v[i].name);
                (*n)++;
            }
            out[j].samples += v[i].samples;
            out[j].ran += v[i].ran;
            out[j].skipped += v[i].skipped;
            out[j].passed += v[i].passed;
            out[j].failed += v[i].failed;
            out[j].not_run += v[i].not_run;
        }
    }
}

/* The paper's value of a model's metric, NaN if the model is not a paper model. */
double kbt_paper(const kb_report *r, size_t m, int level, const char *metric)
{
    char lname[16];
    kbt_level_name(level, lname, sizeof lname);
    return kb_ref_value(r->ref, r->n_ref, r->models[m].paper, lname, metric);
}

int kbt_has_paper(const kb_report *r, size_t m)
{
    if (!r->models[m].paper[0])
        return 0;
    for (size_t i = 0; i < r->n_ref; i++)
        if (!strcmp(r->ref[i].model, r->models[m].paper))
            return 1;
    return 0;
}

double kb_roofline_fraction(double flops, double bytes, double ms)
{
    double f = isfinite(flops) && flops > 0 ? flops / KB_ROOF_FLOPS : 0.0;
    double b = isfinite(bytes) && bytes > 0 ? bytes / KB_ROOF_BW : 0.0;
    double floor_s = f > b ? f : b;
    if (!(floor_s > 0.0) || !(isfinite(ms) && ms > 0.0))
        return NAN;
    return floor_s / (ms * 1e-3);
}
