/* extract_tree.c -- see kb_extract.h: a directory of responses into a submission tree and its
 * manifest, and the writing of such a tree, which kb-import shares (kb_extract_write). Everything
 * is decided before anything is written: the responses are read and extracted in memory, then the
 * manifest is written (it marks the tree as an extraction's), then the samples, then stale samples
 * are deleted. An interrupted run is finished by running it again. */
#include "llm/kb_extract.h"

#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST "extraction.csv"
#define LISTED_ERRORS 12

/* ---- names ------------------------------------------------------------------------------------- */

static int all_of(const char *s, const char *set)
{
    return *s && strspn(s, set) == strlen(s);
}

#define DIGITS "0123456789"
#define NAME_BYTES "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* level1 .. level3 */
static int level_name(const char *s) { return !strncmp(s, "level", 5) && s[5] >= '1' && s[5] <= '3' && !s[6]; }

/* NNN_name */
static int problem_name(const char *s)
{
    return strlen(s) > 4 && strspn(s, DIGITS) == 3 && s[3] == '_' && all_of(s + 4, NAME_BYTES);
}

long kb_sample_number(const char *s, const char *ext)
{
    size_t n = strlen(s), e = strlen(ext);
    if (n < 3 + e || s[0] != 's' || strcmp(s + n - e, ext) != 0 || s[n - e - 1] != '.')
        return -1;
    size_t d = strspn(s + 1, DIGITS);
    if (d == 0 || d != n - e - 2 || d > 9)
        return -1;
    return strtol(s + 1, NULL, 10);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }
/* hidden entries (., .., .DS_Store, an editor's swap file) are no responses and no samples */
static int visible(const struct dirent *e) { return e->d_name[0] != '.'; }

/* The entries of dir, sorted by name (byte order); -1 if it cannot be read. */
static int list(const char *dir, struct dirent ***v)
{
    return scandir(dir, v, visible, by_name);
}

static void free_list(struct dirent **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- the responses ------------------------------------------------------------------------------ */

typedef struct walk {
    kb_extract_sample *v;
    size_t n, cap;
    char errors[2048]; /* the first LISTED_ERRORS bad entries */
    size_t n_errors;
    int oom;
} walk;

static void bad(walk *w, const char *path, const char *why)
{
    if (w->n_errors++ < LISTED_ERRORS) {
        size_t k = strlen(w->errors);
        snprintf(w->errors + k, sizeof w->errors - k, "\n  %s (%s)", path, why);
    }
}

static kb_extract_sample *add_resp(walk *w)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        kb_extract_sample *v = realloc(w->v, cap * sizeof *v);
        if (!v) {
            w->oom = 1;
            return NULL;
        }
        w->v = v;
        w->cap = cap;
    }
    kb_extract_sample *r = &w->v[w->n++];
    memset(r, 0, sizeof *r);
    return r;
}

static void walk_problem(walk *w, const char *dir, const char *id)
{
    struct dirent **e;
    int n = list(dir, &e);
    if (n < 0) {
        bad(w, dir, strerror(errno));
        return;
    }
    for (int i = 0; i < n; i++) {
        char path[4096];
        long k = kb_sample_number(e[i]->d_name, "txt");
        if (kb_fmt(path, sizeof path, "%s/%s", dir, e[i]->d_name) < 0 || k < 0 || !is_file(path)) {
            bad(w, path, "not a response: a response is a file sK.txt");
            continue;
        }
        kb_extract_sample *r = add_resp(w);
        if (!r)
            break;
        snprintf(r->problem, sizeof r->problem, "%s", id);
        snprintf(r->sample, sizeof r->sample, "%.*s", (int)(strlen(e[i]->d_name) - 4), e[i]->d_name);
        memcpy(r->source, path, sizeof r->source);
        r->num = k;
    }
    free_list(e, n);
}

static void walk_responses(walk *w, const char *root, const char *problems, size_t *ignored)
{
    struct dirent **lv;
    int nl = list(root, &lv);
    if (nl < 0) {
        bad(w, root, strerror(errno));
        return;
    }
    for (int i = 0; i < nl; i++) {
        char ldir[4096];
        if (kb_fmt(ldir, sizeof ldir, "%s/%s", root, lv[i]->d_name) < 0) {
            bad(w, root, "a path too long");
            continue;
        }
        if (!is_dir(ldir)) {
            (*ignored)++; /* notes beside the responses (a README, a generation log) */
            continue;
        }
        if (!level_name(lv[i]->d_name)) {
            bad(w, ldir, "not a level directory: level1, level2 or level3");
            continue;
        }
        struct dirent **pd;
        int np = list(ldir, &pd);
        for (int j = 0; j < np; j++) {
            char pdir[4096], spec[4096], id[256];
            if (kb_fmt(pdir, sizeof pdir, "%s/%s", ldir, pd[j]->d_name) < 0 ||
                kb_fmt(id, sizeof id, "%s/%s", lv[i]->d_name, pd[j]->d_name) < 0 ||
                kb_fmt(spec, sizeof spec, "%s/%s.py", problems, id) < 0)
                bad(w, ldir, "a path too long");
            else if (!is_dir(pdir) || !problem_name(pd[j]->d_name))
                bad(w, pdir, "not a problem directory: levelN/NNN_name/ as in problems/");
            else if (!is_file(spec)) {
                char why[4200];
                snprintf(why, sizeof why, "names no problem: there is no %.4095s", spec);
                bad(w, pdir, why);
            }
            else
                walk_problem(w, pdir, id);
        }
        if (np >= 0)
            free_list(pd, np);
        else
            bad(w, ldir, strerror(errno));
    }
    free_list(lv, nl);
}

/* ---- the manifest -------------------------------------------------------------------------------- */

static int by_cell(const void *a, const void *b)
{
    const kb_extract_sample *x = a, *y = b;
    int c = strcmp(x->problem, y->problem);
    if (c == 0)
        c = (x->num > y->num) - (x->num < y->num); /* s2 before s10 */
    return c ? c : strcmp(x->sample, y->sample);
}

static void csv_field(FILE *f, const char *s, int first)
{
    if (!first)
        fputc(',', f);
    if (strpbrk(s, ",\"\r\n") || s[0] == ' ' || (s[0] && s[strlen(s) - 1] == ' '))
        csv_fwrite(f, s, strlen(s));
    else
        fputs(s, f);
}

static int manifest_text(const kb_extract_sample *v, size_t n, char **buf, size_t *len, kb_err *err)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    fputs("problem,sample,outcome,reason,source\n", f);
    for (size_t i = 0; i < n; i++) {
        const kb_extract_sample *r = &v[i];
        csv_field(f, r->problem, 1);
        csv_field(f, r->sample, 0);
        csv_field(f, kb_extract_outcome_name(r->res.outcome), 0);
        csv_field(f, r->res.reason, 0);
        csv_field(f, r->source, 0);
        fputc('\n', f);
    }
    int bad_io = ferror(f);
    if (fclose(f) != 0 || bad_io) {
        free(*buf);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    return 0;
}

/* ---- the tree ------------------------------------------------------------------------------------ */

typedef struct kept_set {
    const kb_extract_sample *v;
    size_t n;
    const char *ext;
} kept_set;

/* the sample files this run writes (kb_tree_prune deletes the others) */
static int is_kept(const char *problem, const char *file, void *ctx)
{
    const kept_set *k = ctx;
    for (size_t i = 0; i < k->n; i++) {
        const kb_extract_sample *r = &k->v[i];
        size_t len = strlen(r->sample);
        if (r->res.outcome == KB_EX_OK && !strcmp(r->problem, problem) && !strncmp(file, r->sample, len) &&
            file[len] == '.' && !strcmp(file + len + 1, k->ext))
            return 1;
    }
    return 0;
}

int kb_extract_claim(const char *submissions, const char *model, char *mdir, size_t mdir_len, char *manifest,
                     size_t manifest_len, kb_err *err)
{
    if (!all_of(model, NAME_BYTES ".-"))
        return kb_errf(err, KB_EXIT_USAGE, "--model '%s': a model name holds letters, digits, '.', '_', '-'", model);
    if (kb_fmt(mdir, mdir_len, "%s/%s", submissions, model) < 0 ||
        kb_fmt(manifest, manifest_len, "%s/" MANIFEST, mdir) < 0)
        return kb_errf(err, KB_EXIT_USAGE, "--model %s: name too long", model);
    int c = kb_tree_claimable(mdir, MANIFEST);
    if (c == 2)
        return kb_errf(err, KB_EXIT_FAIL, "%s exists and is not a directory", mdir);
    if (c == 1)
        return kb_errf(err, KB_EXIT_FAIL,
                       "%s exists and was not made by an extraction or an import (no %s): choose another MODEL, or "
                       "move it away (make extract and make import own their model's tree and delete the samples "
                       "they did not write)",
                       mdir, MANIFEST);
    return 0;
}

int kb_extract_write(const char *mdir, const char *manifest, kb_extract_sample *v, size_t n, const char *ext,
                     kb_extract_row_fn on_row, void *ctx, kb_extract_summary *s, kb_err *err)
{
    if (n)
        qsort(v, n, sizeof *v, by_cell);
    char *man = NULL;
    size_t man_len = 0;
    int rc = manifest_text(v, n, &man, &man_len, err);
    if (rc == 0)
        rc = kb_write_if_changed(manifest, man, man_len, &s->manifest_changed, err);
    free(man);
    /* the samples, the level directories of every level answered (so that a model whose every
     * sample failed is still a model), then what is stale */
    for (size_t i = 0; i < n && rc == 0; i++) {
        kb_extract_sample *r = &v[i];
        char path[4096];
        if (kb_fmt(path, sizeof path, "%s/%s/%s.%s", mdir, r->problem, r->sample, ext) < 0) {
            rc = kb_errf(err, KB_EXIT_FAIL, "%s/%s: path too long", mdir, r->problem);
            break;
        }
        s->by_outcome[r->res.outcome]++;
        if (on_row)
            on_row(ctx, r->problem, r->sample, &r->res, r->source);
        if (r->res.outcome != KB_EX_OK) {
            char ldir[4096];
            rc = kb_fmt(ldir, sizeof ldir, "%s/%.6s", mdir, r->problem) < 0 ? kb_errf(err, KB_EXIT_FAIL, "path too long")
                                                                              : kb_mkdirs(ldir, err);
            continue;
        }
        int changed = 0;
        rc = kb_write_if_changed(path, r->res.code, r->res.code_len, &changed, err);
        s->written += changed;
        s->unchanged += !changed;
    }
    kept_set ks = {v, n, ext};
    if (rc == 0)
        rc = kb_tree_prune(mdir, is_kept, &ks, "stale sample", &s->removed, err);
    s->responses = n;
    return rc;
}

int kb_extract_tree(const kb_extract_opts *o, kb_extract_summary *s, kb_err *err)
{
    memset(s, 0, sizeof *s);
    if (!is_dir(o->responses))
        return kb_errf(err, KB_EXIT_MISSING, "--responses %s: no such directory (it holds levelN/NNN_name/sK.txt)",
                       o->responses);
    char root[4096], mdir[4096];
    snprintf(root, sizeof root, "%s", o->responses);
    for (size_t k = strlen(root); k > 1 && root[k - 1] == '/'; k--)
        root[k - 1] = '\0';
    if (kb_extract_claim(o->submissions, o->model, mdir, sizeof mdir, s->manifest, sizeof s->manifest, err) != 0)
        return -1;

    walk w = {0};
    walk_responses(&w, root, o->problems, &s->ignored);
    int rc = 0;
    if (w.oom)
        rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
    else if (w.n_errors)
        rc = kb_errf(err, KB_EXIT_FAIL, "%s holds %zu entries that are no responses (nothing was written):%s%s", root,
                     w.n_errors, w.errors, w.n_errors > LISTED_ERRORS ? "\n  ..." : "");
    /* read and extract everything first */
    for (size_t i = 0; i < w.n && rc == 0; i++) {
        size_t len;
        char *text = kb_read_file(w.v[i].source, &len, err);
        if (!text || kb_extract_response(text, len, o->style, &w.v[i].res, err) != 0)
            rc = -1;
        free(text);
    }
    if (rc == 0)
        rc = kb_extract_write(mdir, s->manifest, w.v, w.n, kb_style_ext(o->style), o->on_row, o->ctx, s, err);
    for (size_t i = 0; i < w.n; i++)
        kb_extract_result_free(&w.v[i].res);
    free(w.v);
    return rc;
}
