/* tables.c -- see kb_tables.h. The reader: a protocol tree of HDF5 artifacts (the names of
 * kb_schema.h) into the table model (kb_report); the emitters are lib/tables_*.c (kb_table.h). */
#include "report/kb_table.h"

#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kb/problem.h"
#include "core/kb_artifact.h"
#include "llm/kb_extract.h"
#include "core/kb_h5.h"
#include "core/kb_schema.h"

/* ==== reading artifacts ========================================================================= */

enum { ART_OK = 0, ART_MISSING = 1, ART_BAD = 2 };

/* Opens an artifact and checks what every artifact has (schema_version, outcome). */
kb_h5r *kbt_open_artifact(const char *path, const char *stage, kb_notes *notes, int *state)
{
    *state = ART_OK;
    if (!kb_file_exists(path)) {
        *state = ART_MISSING;
        kb_note(notes, 0, "%s: missing: stage %s not run for this cell (treated as not run; run make)", path, stage);
        return NULL;
    }
    kb_err err = {0};
    kb_h5r *r = kb_h5r_open(path, &err);
    if (!r) {
        *state = ART_BAD;
        kb_note(notes, 1, "%s", err.msg);
        return NULL;
    }
    int64_t version = -1;
    char outcome[64];
    if (kb_h5r_attr_i64(r, KB_ROOT, KB_ATTR_SCHEMA_VERSION, &version, NULL) != 0 ||
        kb_h5r_attr_str(r, KB_ROOT, KB_ATTR_OUTCOME, outcome, sizeof outcome, NULL) != 0) {
        kb_note(notes, 1, "%s: malformed artifact (no root attribute schema_version or outcome): delete it and re-run make to recreate it",
                path);
        *state = ART_BAD;
    } else if (version != KB_SCHEMA_VERSION) {
        kb_note(notes, 1, "%s: schema_version %lld, but this kb-aggregate reads %d: delete it and re-run make", path,
                (long long)version, KB_SCHEMA_VERSION);
        *state = ART_BAD;
    }
    if (*state != ART_OK) {
        kb_h5r_close(r);
        return NULL;
    }
    return r;
}

/* open_artifact of <dir>/<file> (its path in path). */
kb_h5r *kbt_open_stage(const char *dir, const char *file, const char *stage, char *path, size_t len, kb_notes *notes)
{
    int st;
    snprintf(path, len, "%s/%s", dir, file);
    return kbt_open_artifact(path, stage, notes, &st);
}

void kbt_attr_str(kb_h5r *r, const char *obj, const char *name, char *buf, size_t len)
{
    if (kb_h5r_attr_str(r, obj, name, buf, len, NULL) != 0)
        buf[0] = '\0';
}

int64_t kbt_attr_i64(kb_h5r *r, const char *obj, const char *name, int64_t def)
{
    int64_t v;
    return kb_h5r_attr_i64(r, obj, name, &v, NULL) == 0 ? v : def;
}

double kbt_attr_f64(kb_h5r *r, const char *obj, const char *name, double def)
{
    double v;
    return kb_h5r_attr_f64(r, obj, name, &v, NULL) == 0 ? v : def;
}

#define MAX_OUTPUTS 16

/* The names of a group's members (kb_h5.h reads by path only, so list them with HDF5 itself). */
static size_t list_children(const char *file, const char *group, char names[][64], size_t cap)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return 0;
    size_t n = 0;
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    if (g >= 0) {
        H5G_info_t info;
        if (H5Gget_info(g, &info) >= 0)
            for (hsize_t i = 0; i < info.nlinks && n < cap; i++) {
                ssize_t l = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, names[n], 64, H5P_DEFAULT);
                if (l > 0 && l < 64)
                    n++;
            }
        H5Gclose(g);
    }
    H5Fclose(f);
    return n;
}

/* max over outputs of <base>/<output>/tau_req[k], per k < n (NaN counts as inf: a mismatch the
 * stage could not quantify). Returns 0, or -1 if the records are missing. */
static int max_tau_req(kb_h5r *r, const char *file, const char *base, double *out, size_t n)
{
    char names[MAX_OUTPUTS][64];
    if (!kb_h5r_exists(r, base))
        return -1;
    size_t no = list_children(file, base, names, MAX_OUTPUTS);
    if (no == 0)
        return -1;
    for (size_t k = 0; k < n; k++)
        out[k] = 0.0;
    for (size_t o = 0; o < no; o++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s/" KB_DSET_TAU_REQ, base, names[o]);
        double *v;
        size_t nv;
        if (kb_h5r_f64(r, path, &v, &nv, NULL) != 0)
            return -1;
        for (size_t k = 0; k < n; k++) {
            double x = k < nv ? v[k] : NAN;
            if (isnan(x))
                x = INFINITY;
            if (x > out[k])
                out[k] = x;
        }
        free(v);
    }
    return 0;
}

static int ran_to_verdict(const char *outcome)
{
    return !strcmp(outcome, kb_outcome_name(KB_OUT_OK)) || !strcmp(outcome, kb_outcome_name(KB_OUT_WRONG));
}

static void load_compile(const char *dir, kb_sample_rec *s, kb_notes *notes)
{
    char path[2048];
    kb_h5r *r = kbt_open_stage(dir, KB_FILE_COMPILE, KB_STAGE_COMPILE, path, sizeof path, notes);
    if (!r)
        return;
    kbt_attr_str(r, KB_ROOT, KB_ATTR_OUTCOME, s->compile_outcome, sizeof s->compile_outcome);
    s->compiled = !strcmp(s->compile_outcome, kb_outcome_name(KB_OUT_OK));
    s->calls_library = (int)kbt_attr_i64(r, KB_GRP_SYMBOLS, KB_ATTR_CALLS_LIBRARY, -1);
    kbt_attr_str(r, KB_GRP_SYMBOLS, KB_ATTR_REASONS, s->flags, sizeof s->flags);
    kbt_attr_str(r, KB_GRP_SYMBOLS, KB_ATTR_VERDICT, s->scan_verdict, sizeof s->scan_verdict);
    kbt_attr_str(r, KB_GRP_SYMBOLS, KB_ATTR_LIBRARIES, s->libraries, sizeof s->libraries);
    kbt_attr_str(r, KB_ROOT, KB_ATTR_SUBMISSION_KIND, s->kind, sizeof s->kind);
    if (!s->kind[0])
        snprintf(s->kind, sizeof s->kind, KB_KIND_CU); /* records from before the .py kind */
    kb_h5r_close(r);
}

static void load_sanity(const char *dir, kb_sample_rec *s, kb_notes *notes)
{
    char path[2048];
    kb_h5r *r = kbt_open_stage(dir, KB_FILE_SANITY, KB_STAGE_SANITY, path, sizeof path, notes);
    if (!r)
        return;
    kbt_attr_str(r, KB_ROOT, KB_ATTR_OUTCOME, s->std_outcome, sizeof s->std_outcome);
    kbt_attr_str(r, KB_ROOT, KB_ATTR_PROTOCOL, s->protocol, sizeof s->protocol);
    kbt_attr_str(r, KB_ROOT, KB_ATTR_GPU_UUID, s->gpu_uuid, sizeof s->gpu_uuid);
    s->tau = kbt_attr_f64(r, KB_GRP_CONFIG, KB_CONF_TAU, NAN);
    int ran = kbt_attr_i64(r, KB_ROOT, KB_ATTR_RAN, 1) != 0;
    s->std_correct = ran && kbt_attr_i64(r, KB_ROOT, KB_ATTR_CORRECT, 0) == 1;
    s->trials_run = (int)kbt_attr_i64(r, KB_ROOT, KB_ATTR_TRIALS_RUN, ran ? -1 : 0);
    s->trials_passed = (int)kbt_attr_i64(r, KB_ROOT, KB_ATTR_TRIALS_PASSED, ran ? -1 : 0);
    if (ran && kbt_attr_i64(r, KB_ROOT, KB_ATTR_TIMED, 0) == 1)
        s->kernel_ms = kbt_attr_f64(r, KB_GRP_TIMING_KERNEL, KB_ATTR_REPORTED_MS, NAN);
    s->kernel_ci_lo_ms = s->kernel_ci_hi_ms = NAN;
    char timer[16] = "";
    kbt_attr_str(r, KB_GRP_CONFIG, KB_CONF_TIMER, timer, sizeof timer);
    snprintf(s->timer, sizeof s->timer, "%s", timer);
    const kb_timer_spec *ts = kb_timer_find(timer); /* the artifact's timer, as its row says */
    if (ran && kbt_attr_i64(r, KB_ROOT, KB_ATTR_TIMED, 0) == 1 && ts && ts->statistic == KB_STAT_MEDIAN_MINUS_OVERHEAD) {
        /* the robust timer reports the median: the CI of the median, moved by what reported_ms subtracts from it (overhead, floor) */
        double med = kbt_attr_f64(r, KB_GRP_TIMING_KERNEL, KB_ATTR_MEDIAN_MS, NAN);
        double lo = kbt_attr_f64(r, KB_GRP_TIMING_KERNEL, KB_ATTR_MEDIAN_CI_LO_MS, NAN),
               hi = kbt_attr_f64(r, KB_GRP_TIMING_KERNEL, KB_ATTR_MEDIAN_CI_HI_MS, NAN);
        if (isfinite(med) && isfinite(lo) && isfinite(hi) && isfinite(s->kernel_ms)) {
            s->kernel_ci_lo_ms = lo - med + s->kernel_ms;
            s->kernel_ci_hi_ms = hi - med + s->kernel_ms;
        }
    }
    {
        /* a .py: the library calls its forward made through PyTorch ops (the first call's note) */
        char **notes_v = NULL;
        size_t nn = 0;
        if (ran && kb_h5r_strv(r, KB_DSET_TRIALS_CALL_NOTE, &notes_v, &nn, NULL) == 0) {
            const char *c = nn ? strstr(notes_v[0], "cublas=") : NULL;
            const char *e = c ? strstr(c, " ops=") : NULL;
            if (c)
                snprintf(s->torch_libs, sizeof s->torch_libs, "%.*s", e ? (int)(e - c) : 40, c);
            kb_h5r_free_strv(notes_v, nn);
        }
    }
    /* The tolerance the standard check needs (kb_gate). */
    s->std_tau_req = INFINITY;
    s->std_complete = 0;
    char **outc = NULL;
    size_t nt = 0;
    if (ran && ran_to_verdict(s->std_outcome) && kb_h5r_strv(r, KB_DSET_TRIALS_OUTCOME, &outc, &nt, NULL) == 0) {
        int calls_ok = 1;
        for (size_t t = 0; t < nt; t++)
            calls_ok &= !strcmp(outc[t], kb_outcome_name(KB_OUT_OK));
        int64_t want = kbt_attr_i64(r, KB_GRP_CONFIG, KB_CONF_STD_TRIALS, -1);
        if (calls_ok) {
            double *req = calloc(nt ? nt : 1, sizeof *req);
            int64_t *skip = NULL;
            size_t ns = 0;
            if (kb_h5r_i64(r, KB_DSET_TRIALS_SKIPPED, &skip, &ns, NULL) != 0)
                ns = 0;
            if (req && (nt == 0 || max_tau_req(r, path, KB_GRP_TRIALS_OUTPUTS, req, nt) == 0)) {
                double m = 0.0;
                for (size_t t = 0; t < nt; t++)
                    if (!(t < ns && skip[t]) && req[t] > m)
                        m = req[t];
                s->std_tau_req = m;
                s->std_complete = want >= 0 ? (int64_t)nt == want : !strcmp(s->std_outcome, kb_outcome_name(KB_OUT_OK));
            } else {
                s->std_tau_req = NAN;
            }
            free(req);
            free(skip);
        }
        kb_h5r_free_strv(outc, nt);
    }
    kb_h5r_close(r);
}

static void load_verify(const char *dir, const char *protocol, kb_sample_rec *s, kb_notes *notes)
{
    char path[2048];
    kb_h5r *r = kbt_open_stage(dir, KB_FILE_VERIFY, KB_STAGE_VERIFY, path, sizeof path, notes);
    if (!r)
        return;
    kbt_attr_str(r, KB_ROOT, KB_ATTR_OUTCOME, s->ver_outcome, sizeof s->ver_outcome);
    kbt_attr_str(r, KB_ROOT, KB_ATTR_REASON, s->reason, sizeof s->reason);
    char proto[32];
    kbt_attr_str(r, KB_ROOT, KB_ATTR_PROTOCOL, proto, sizeof proto);
    if (!proto[0])
        snprintf(proto, sizeof proto, "%s", protocol ? protocol : "");
    int ran = kbt_attr_i64(r, KB_ROOT, KB_ATTR_RAN, 1) != 0;
    s->hidden_pass = ran && kbt_attr_i64(r, KB_ROOT, KB_ATTR_VERIFIED, 0) == 1;
    /* the TF32 condition's verdict: an artifact from before the TF32 rule (or of the paper
     * protocol, where the two are one) has the one verdict */
    s->hidden_pass_tf32 = ran ? (int)(kbt_attr_i64(r, KB_ROOT, KB_ATTR_VERIFIED_TF32, s->hidden_pass) == 1) : 0;

    char **names = NULL, **outc = NULL;
    size_t nn = 0, no = 0, nr = 0, nsk = 0, np = 0;
    int64_t *dran = NULL, *dskip = NULL, *dpass = NULL;
    if (ran && kb_h5r_strv(r, KB_DSET_DIST_NAME, &names, &nn, NULL) == 0) {
        if (kb_h5r_strv(r, KB_DSET_DIST_OUTCOME, &outc, &no, NULL) != 0)
            no = 0;
        if (kb_h5r_i64(r, KB_DSET_DIST_RAN, &dran, &nr, NULL) != 0)
            nr = 0;
        if (kb_h5r_i64(r, KB_DSET_DIST_SKIPPED, &dskip, &nsk, NULL) != 0)
            nsk = 0;
        if (kb_h5r_i64(r, KB_DSET_DIST_PASS, &dpass, &np, NULL) != 0)
            np = 0;
        double req[KB_REC_MAX_DISTS];
        int have_req = nn && max_tau_req(r, path, KB_GRP_DIST_OUTPUTS, req,
                                         nn < KB_REC_MAX_DISTS ? nn : KB_REC_MAX_DISTS) == 0;
        s->n_dists = nn < KB_REC_MAX_DISTS ? nn : KB_REC_MAX_DISTS;
        for (size_t k = 0; k < s->n_dists; k++) {
            kb_dist_rec *d = &s->dists[k];
            snprintf(d->name, sizeof d->name, "%s", names[k]);
            d->ran = k < nr ? dran[k] != 0 : 0;
            d->skipped = k < nsk ? dskip[k] != 0 : 0;
            d->pass = k < np ? dpass[k] != 0 : 0;
            int call_ok = k < no && !strcmp(outc[k], kb_outcome_name(KB_OUT_OK));
            d->tau_req = (!d->ran || !call_ok) ? INFINITY : have_req ? req[k] : NAN;
        }
    }
    /* The tolerance the hidden check needs: allclose(tau) is tau-based; a protocol whose pass is
     * the error-model bound (its row's scaled_bound: strict) is not. */
    if (!kb_protocol_tau_based(proto)) {
        s->hid_tau_req = NAN;
    } else if (!ran || !ran_to_verdict(s->ver_outcome)) {
        s->hid_tau_req = INFINITY;
    } else {
        double m = 0.0;
        for (size_t k = 0; k < s->n_dists; k++)
            if (!s->dists[k].skipped || !s->dists[k].ran) {
                double x = s->dists[k].tau_req;
                if (isnan(x) || x > m)
                    m = x;
                if (isnan(m))
                    break;
            }
        s->hid_tau_req = nn ? m : NAN;
    }
    kb_h5r_free_strv(names, nn);
    kb_h5r_free_strv(outc, no);
    free(dran);
    free(dskip);
    free(dpass);
    kb_h5r_close(r);
}

static void load_memory(const char *dir, kb_sample_rec *s, kb_notes *notes)
{
    char path[2048];
    kb_h5r *r = kbt_open_stage(dir, KB_FILE_MEMORY, KB_STAGE_MEMORY, path, sizeof path, notes);
    if (!r)
        return;
    kbt_attr_str(r, KB_ROOT, KB_ATTR_OUTCOME, s->mem_outcome, sizeof s->mem_outcome);
    char g_out[64];
    kbt_attr_str(r, KB_GRP_MEMORY, KB_ATTR_OUTCOME, g_out, sizeof g_out);
    if (!strcmp(g_out, kb_outcome_name(KB_OUT_OK)) && kbt_attr_i64(r, KB_GRP_MEMORY, KB_ATTR_TRACKED, 1) != 0)
        s->peak_bytes = kbt_attr_f64(r, KB_GRP_MEMORY, KB_ATTR_PEAK_BYTES, NAN);
    kb_h5r_close(r);
}

/* One note for a directory where none of the files exist, instead of one per file. */
kb_notes *kbt_notes_unless_all_missing(const char *dir, const char *const *files, size_t n, const char *what,
                                          kb_notes *notes)
{
    for (size_t i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (kb_file_exists(path))
            return notes;
    }
    kb_note(notes, 0, "%s: no artifacts: %s not run (treated as not run; run make)", dir, what);
    return NULL;
}

void kb_load_sample(const char *dir, const char *name, const char *protocol, kb_sample_rec *s, kb_notes *notes)
{
    static const char *files[] = {KB_FILE_COMPILE, KB_FILE_SANITY, KB_FILE_VERIFY, KB_FILE_MEMORY};
    notes = kbt_notes_unless_all_missing(dir, files, 4, "no stage has", notes);
    kb_sample_init(s, name);
    load_compile(dir, s, notes);
    load_sanity(dir, s, notes);
    load_verify(dir, protocol, s, notes);
    load_memory(dir, s, notes);
}

/* ---- the tree -------------------------------------------------------------------------------- */

static int is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sub-directories of dir (sorted, malloc'd); 0 entries if dir cannot be read. */
static int list_dirs(const char *dir, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    size_t cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!is_dir(path))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            char **v = realloc(*out, cap * sizeof *v);
            if (!v) {
                rc = -1;
                break;
            }
            *out = v;
        }
        if (!((*out)[*n] = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        (*n)++;
    }
    closedir(dp);
    if (*n)
        qsort(*out, *n, sizeof **out, cmp_str);
    return rc;
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

typedef struct model_key {
    const char *name;
    double order; /* NaN: unknown to models.csv */
} model_key;

static int cmp_model(const void *a, const void *b)
{
    const model_key *x = a, *y = b;
    int xu = isnan(x->order), yu = isnan(y->order);
    if (xu != yu)
        return xu - yu;
    if (!xu && x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int in_list(const char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return 1;
    return 0;
}

/* ---- submissions/<model>/extraction.csv: responses that gave no sample ------------------------- */

/* Appends to dirs the models of submissions/ that have an extraction.csv and are not in dirs yet:
 * a model whose every response failed has no artifacts, and is still a model. */
static int add_extracted_models(const char *submissions, char ***dirs, size_t *n)
{
    char **sub = NULL;
    size_t ns = 0;
    int rc = list_dirs(submissions, &sub, &ns);
    for (size_t i = 0; rc == 0 && i < ns; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/extraction.csv", submissions, sub[i]);
        if (!kb_file_exists(path) || in_list((const char *const *)*dirs, *n, sub[i]))
            continue;
        char **v = realloc(*dirs, (*n + 1) * sizeof *v);
        if (!v) {
            rc = -1;
            break;
        }
        *dirs = v;
        (*dirs)[(*n)++] = sub[i];
        sub[i] = NULL;
    }
    free_strs(sub, ns);
    if (*n)
        qsort(*dirs, *n, sizeof **dirs, cmp_str);
    return rc;
}

/* The record of a response that gave no sample: it failed before compiling. */
static void extraction_failure(const kb_extract_row *x, kb_sample_rec *s)
{
    kb_sample_init(s, x->sample);
    s->compiled = 0;
    snprintf(s->compile_outcome, sizeof s->compile_outcome, "extract:%.20s", x->outcome);
    snprintf(s->std_outcome, sizeof s->std_outcome, "%s", s->compile_outcome);
    snprintf(s->ver_outcome, sizeof s->ver_outcome, "%s", s->compile_outcome);
    snprintf(s->reason, sizeof s->reason, "%s", x->reason);
    s->std_correct = s->hidden_pass = s->hidden_pass_tf32 = 0;
    s->trials_run = s->trials_passed = 0;
    s->std_tau_req = s->hid_tau_req = INFINITY; /* passes at no tolerance */
}

static int problem_index(const kb_data *d, const char *id)
{
    for (size_t p = 0; p < d->n_problems; p++)
        if (!strcmp(d->problems[p].id, id))
            return (int)p;
    return -1;
}

/* One failure row into its cell. A sample of that name that has artifacts is stale (the
 * extraction deleted its file): the row is the truth, counted once. */
static int add_failure_row(kb_report *r, size_t m, size_t p, const kb_extract_row *x, const char *path)
{
    kb_cell_rec *c = kb_data_cell(&r->data, m, p);
    kb_sample_rec s;
    extraction_failure(x, &s);
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->samples[i].name, x->sample)) {
            kb_note(&r->notes, 0, "%s:%zu: %s/%s is a failed response (%s), but %s/%s/%s/%s holds its artifacts from "
                    "an earlier extraction: counted as the failure; delete that directory", path, x->line, x->problem,
                    x->sample, x->outcome, r->artifacts, r->data.models[m], x->problem, x->sample);
            c->samples[i] = s;
            return 0;
        }
    return kb_cell_add(c, &s);
}

/* Every non-ok row of submissions/<model>/extraction.csv for a problem of the list. */
static int add_extraction_failures(kb_report *r, size_t m, const char *submissions, kb_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/extraction.csv", submissions, r->data.models[m]);
    if (!kb_file_exists(path))
        return 0;
    kb_extract_row *rows;
    size_t n, ignored = 0;
    if (kb_read_extraction_csv(path, &rows, &n, err) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!strcmp(rows[i].outcome, "ok"))
            continue; /* its sample is in the tree: its artifacts are the record */
        int p = problem_index(&r->data, rows[i].problem);
        if (p < 0)
            ignored++;
        else if ((rc = add_failure_row(r, m, (size_t)p, &rows[i], path)) != 0)
            kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    if (ignored)
        kb_note(&r->notes, 0, "%s: %zu failed responses of problems not in --problems are ignored", path, ignored);
    free(rows);
    return rc;
}

/* No problem of model m holds more samples than its row allows. */
static int check_sample_counts(const kb_report *r, size_t m, const char *models_csv, kb_err *err)
{
    for (size_t p = 0; p < r->data.n_problems; p++) {
        char where[2048];
        snprintf(where, sizeof where, "%s/%s/%s (with its failed responses)", r->artifacts, r->data.models[m],
                 r->data.problems[p].id);
        if (kb_model_check_samples(&r->models[m], models_csv, where, kb_data_cell(&r->data, m, p)->n, err) != 0)
            return -1;
    }
    return 0;
}

/* name, or name-<scope> */
static int kb_dir_is(const char *name, const char *base)
{
    size_t n = strlen(base);
    return !strncmp(name, base, n) && (!name[n] || name[n] == '-');
}

/* baseline/, tables/, tables-<scope>/, report-inputs/ and report-inputs-<scope>/ (lib/core/kb_schema.h) */
static int kb_dir_is_reserved(const char *name)
{
    return !strcmp(name, KB_DIR_BASELINE) || kb_dir_is(name, KB_DIR_TABLES) || kb_dir_is(name, KB_DIR_REPORT_INPUTS);
}

/* sampled[p] = 1 where some model has a sample of problem p: a sample directory in the tree, or a
 * failed response in its extraction.csv (a malformed one is reported when it is read for the tables). */
static int mark_sampled(const kb_report *r, const char *submissions, unsigned char *sampled)
{
    const kb_data *d = &r->data;
    for (size_t m = 0; m < d->n_models; m++) {
        for (size_t p = 0; p < d->n_problems; p++) {
            char dir[2048];
            snprintf(dir, sizeof dir, "%s/%s/%s", r->artifacts, d->models[m], d->problems[p].id);
            char **v = NULL;
            size_t n = 0;
            if (list_dirs(dir, &v, &n) != 0)
                return -1;
            sampled[p] |= n > 0;
            free_strs(v, n);
        }
        char path[4096];
        kb_extract_row *rows = NULL;
        size_t n = 0;
        kb_err ignored = {0};
        if (!submissions)
            continue;
        snprintf(path, sizeof path, "%s/%s/extraction.csv", submissions, d->models[m]);
        if (!kb_file_exists(path) || kb_read_extraction_csv(path, &rows, &n, &ignored) != 0)
            continue;
        for (size_t i = 0; i < n; i++) {
            int p = strcmp(rows[i].outcome, "ok") ? problem_index(d, rows[i].problem) : -1;
            if (p >= 0)
                sampled[p] = 1;
        }
        free(rows);
    }
    return 0;
}

/* The problems (given as levelN/NNN, what PROBLEM= takes) of a make command, comma-separated, or
 * "" when they do not fit. */
static void problem_arg(const kb_data *d, const unsigned char *want, char *buf, size_t len)
{
    size_t l = 0;
    buf[0] = '\0';
    for (size_t p = 0; p < d->n_problems; p++)
        if (want[p]) {
            const char *id = d->problems[p].id, *u = strchr(id, '_');
            int n = u ? (int)(u - id) : (int)strlen(id);
            int w = snprintf(buf + l, len - l, "%s%.*s", l ? "," : "", n, id);
            if (w < 0 || (size_t)w >= len - l) {
                buf[0] = '\0';
                return;
            }
            l += (size_t)w;
        }
}

int kb_report_load(kb_report *r, const char *artifacts, const char *const *problems, size_t n_problems,
                   const char *models_csv, const char *submissions, const char *reference_csv,
                   const kb_report_opts *opts, kb_err *err)
{
    static const kb_report_opts no_opts = {0};
    if (!opts)
        opts = &no_opts;
    memset(r, 0, sizeof *r);
    r->tau = NAN;
    r->baseline = opts->baseline;
    snprintf(r->artifacts, sizeof r->artifacts, "%s", artifacts);
    size_t alen = strlen(r->artifacts);
    while (alen > 1 && r->artifacts[alen - 1] == '/')
        r->artifacts[--alen] = '\0';
    const char *base = strrchr(r->artifacts, '/');
    snprintf(r->protocol, sizeof r->protocol, "%s", base ? base + 1 : r->artifacts);

    kb_model_info *csv_models = NULL;
    size_t n_csv = 0;
    if (kb_read_models_csv(models_csv, &csv_models, &n_csv, err) != 0)
        return -1;
    if (reference_csv && reference_csv[0]) {
        kb_err e2 = {0};
        if (kb_read_reference_csv(reference_csv, &r->ref, &r->n_ref, &e2) != 0)
            kb_note(&r->notes, 0, "%s (tables are made without the paper's numbers)", e2.msg);
    }

    char **dirs = NULL;
    size_t n_dirs = 0;
    if (!is_dir(r->artifacts))
        kb_note(&r->notes, 0, "%s: no artifacts yet (run make all): every problem counts as unsolved", r->artifacts);
    else if (list_dirs(r->artifacts, &dirs, &n_dirs) != 0)
        goto oom;
    else if (n_dirs == 0)
        kb_note(&r->notes, 0, "%s: no artifacts yet (an empty tree; run make all): every problem counts as unsolved",
                r->artifacts);
    for (size_t i = n_dirs; i-- > 0;) /* the tree's directories that are no model */
        if (kb_dir_is_reserved(dirs[i])) {
            free(dirs[i]);
            memmove(&dirs[i], &dirs[i + 1], (n_dirs - i - 1) * sizeof *dirs);
            n_dirs--;
        }
    if (submissions && add_extracted_models(submissions, &dirs, &n_dirs) != 0)
        goto oom;
    if (kb_models_require(csv_models, n_csv, models_csv, (const char *const *)dirs, n_dirs, err) != 0) {
        free(csv_models);
        free_strs(dirs, n_dirs);
        kb_report_free(r);
        return -1;
    }
    model_key *keys = calloc(n_dirs ? n_dirs : 1, sizeof *keys);
    if (!keys)
        goto oom;
    size_t nm = 0;
    for (size_t i = 0; i < n_dirs; i++) {
        const kb_model_info *mi = kb_model_find(csv_models, n_csv, dirs[i]);
        keys[nm].name = dirs[i];
        keys[nm].order = mi ? mi->order : NAN;
        if (mi && isnan(mi->order))
            keys[nm].order = 1e300; /* listed without an order: after the ordered ones */
        nm++;
    }
    qsort(keys, nm, sizeof *keys, cmp_model);
    const char **names = calloc(nm ? nm : 1, sizeof *names);
    if (!names) {
        free(keys);
        goto oom;
    }
    for (size_t i = 0; i < nm; i++)
        names[i] = keys[i].name;
    free(keys);
    int rc = kb_data_init(&r->data, names, nm, problems, n_problems);
    free(names);
    free_strs(dirs, n_dirs);
    dirs = NULL;
    n_dirs = 0;
    if (rc != 0)
        goto oom;
    r->models = calloc(nm ? nm : 1, sizeof *r->models);
    if (!r->models)
        goto oom;
    for (size_t m = 0; m < nm; m++) {
        const kb_model_info *mi = kb_model_find(csv_models, n_csv, r->data.models[m]);
        kb_model_info *o = &r->models[m];
        if (mi)
            *o = *mi;
        else
            o->order = NAN;
        snprintf(o->model, sizeof o->model, "%s", r->data.models[m]);
        if (!o->display[0])
            snprintf(o->display, sizeof o->display, "%s", o->model);
    }
    free(csv_models);
    csv_models = NULL;

    /* levels of the problem list */
    for (size_t p = 0; p < n_problems; p++) {
        int lv = r->data.problems[p].level, seen = 0;
        for (int k = 0; k < r->n_levels; k++)
            seen |= r->levels[k] == lv;
        if (!seen && lv > 0 && r->n_levels < 16) {
            int k = r->n_levels++;
            while (k > 0 && r->levels[k - 1] > lv) {
                r->levels[k] = r->levels[k - 1];
                k--;
            }
            r->levels[k] = lv;
        }
        if (lv == 0)
            kb_note(&r->notes, 0, "problem '%s' names no level (levelN/NNN_name): counted only in 'all'", problems[p]);
    }

    /* baselines (an absent tree was reported once above). A problem no model has a sample for
     * needs none (make baselines MODEL=... makes none for it): it is a failure in every
     * denominator whatever its baseline, and its excluded flag is its descriptor's (opts). */
    unsigned char *sampled = calloc(n_problems ? n_problems : 1, 1), *no_eager = calloc(n_problems ? n_problems : 1, 1);
    if (!sampled || !no_eager || mark_sampled(r, submissions, sampled) != 0) {
        free(sampled);
        free(no_eager);
        goto oom;
    }
    size_t n_no_eager = 0;
    char no_eager_path[2200] = "";
    for (size_t p = 0; p < n_problems && is_dir(r->artifacts); p++) {
        char dir[2048];
        snprintf(dir, sizeof dir, "%s/" KB_DIR_BASELINE "/%s", r->artifacts, problems[p]);
        kb_problem_rec *pr = &r->data.problems[p];
        pr->excluded = in_list(opts->excluded, opts->n_excluded, problems[p]); /* an artifact's flag wins */
        if (!sampled[p] && !kbt_baseline_dir_used(dir)) {
            r->n_unscoped++;
        } else if (r->baseline == KB_BASELINE_C) {
            kb_load_baseline(dir, pr, &r->notes);
        } else if (kb_load_baseline_eager(dir, pr, r->base_timer, sizeof r->base_timer, &r->notes) != 0) {
            if (sampled[p]) {
                no_eager[p] = 1;
                if (!n_no_eager++)
                    snprintf(no_eager_path, sizeof no_eager_path, "%s/" KB_FILE_FIDELITY, dir);
            } else {
                r->n_unscoped++;
                kbt_load_problem_quietly(dir, pr);
            }
        }
        if (pr->excluded)
            kb_note(&r->notes, 0, "%s is flagged excluded (its reference is identically zero): left out of every denominator",
                    problems[p]);
    }
    free(sampled);
    if (n_no_eager) {
        char arg[600];
        problem_arg(&r->data, no_eager, arg, sizeof arg);
        free(no_eager);
        kb_errf(err, KB_EXIT_MISSING,
                "BASELINE=torch divides by PyTorch eager's time, which the fidelity stage records, but %zu problem%s "
                "that models have samples for %s no fidelity.h5 (%s%s): run `make fidelity %s%s` (a GPU, and PYTHON "
                "with torch), or `make all BASELINE=torch MODEL=<model>`, which makes them too; or report against the "
                "C baseline (BASELINE=c). Nothing was written",
                n_no_eager, n_no_eager == 1 ? "" : "s", n_no_eager == 1 ? "has" : "have", no_eager_path,
                n_no_eager > 1 ? ", ..." : "", arg[0] ? "PROBLEM=" : "", arg);
        goto fail;
    }
    free(no_eager);
    if (r->n_unscoped)
        kb_note(&r->notes, 0, "%zu of the %zu problems have no baseline artifacts and no sample of any model (make "
                "baselines MODEL=... makes baselines only for the problems its models have samples for): each counts "
                "as a failure in every denominator, as any problem without a sample does; their baseline columns are "
                "NaN", r->n_unscoped, n_problems);

    /* samples */
    int proto_seen = 0;
    for (size_t m = 0; m < nm; m++) {
        for (size_t p = 0; p < n_problems; p++) {
            char dir[2048];
            snprintf(dir, sizeof dir, "%s/%s/%s", r->artifacts, r->data.models[m], problems[p]);
            char **samples = NULL;
            size_t ns = 0;
            if (list_dirs(dir, &samples, &ns) != 0)
                goto oom;
            for (size_t i = 0; i < ns; i++) {
                char sdir[4096];
                snprintf(sdir, sizeof sdir, "%s/%s", dir, samples[i]);
                kb_sample_rec s;
                kb_load_sample(sdir, samples[i], r->protocol, &s, &r->notes);
                const kb_problem_rec *pr = &r->data.problems[p];
                if (isfinite(s.kernel_ms) && s.gpu_uuid[0] && pr->gpu_uuid[0] && strcmp(s.gpu_uuid, pr->gpu_uuid) != 0) {
                    /* a speedup never divides times from two boards (GPUS= keeps a problem on one) */
                    kb_note(&r->notes, 0, "%s: timed on %s, its baseline on %s: its time is left out of every table "
                            "(a speedup never divides times from two boards)", sdir, s.gpu_uuid, pr->gpu_uuid);
                    s.kernel_ms = s.kernel_ci_lo_ms = s.kernel_ci_hi_ms = NAN;
                } else if (isfinite(s.kernel_ms) && s.timer[0] && pr->timer[0] && strcmp(s.timer, pr->timer) != 0) {
                    /* nor times of two timers */
                    kb_note(&r->notes, 0, "%s: timed by the %s timer, its baseline (%s) by the %s timer: its time is "
                            "left out of every table (re-run one of them with the other's TIMER)", sdir, s.timer,
                            kb_baseline_label(r->baseline), pr->timer);
                    s.kernel_ms = s.kernel_ci_lo_ms = s.kernel_ci_hi_ms = NAN;
                }
                if (s.protocol[0] && !proto_seen) {
                    proto_seen = 1;
                    if (strcmp(s.protocol, r->protocol) != 0)
                        kb_note(&r->notes, 0, "%s: artifacts of protocol '%s' in a tree named '%s'", r->artifacts, s.protocol,
                                r->protocol);
                    snprintf(r->protocol, sizeof r->protocol, "%s", s.protocol);
                    r->tau = s.tau;
                } else if (s.protocol[0] && strcmp(s.protocol, r->protocol) != 0) {
                    kb_note(&r->notes, 0, "%s: protocol '%s' in the '%s' tree: mixed trees give meaningless tables", sdir,
                            s.protocol, r->protocol);
                }
                if (kb_cell_add(kb_data_cell(&r->data, m, p), &s) != 0) {
                    free_strs(samples, ns);
                    goto oom;
                }
            }
            free_strs(samples, ns);
        }
        if (submissions && add_extraction_failures(r, m, submissions, err) != 0)
            goto fail;
        if (check_sample_counts(r, m, models_csv, err) != 0)
            goto fail;
        size_t missing = 0;
        for (size_t p = 0; p < n_problems; p++)
            missing += kb_data_cell(&r->data, m, p)->n == 0;
        if (missing)
            kb_note(&r->notes, 0, "%s: no samples for %zu of %zu problems (each counts as a failure)", r->data.models[m],
                    missing, n_problems);
        /* samples of problems outside the list */
        char mdir[2048];
        snprintf(mdir, sizeof mdir, "%s/%s", r->artifacts, r->data.models[m]);
        char **lv = NULL;
        size_t nl = 0;
        if (list_dirs(mdir, &lv, &nl) != 0)
            goto oom;
        size_t ignored = 0;
        char example[256] = "";
        for (size_t i = 0; i < nl; i++) {
            char ldir[4096];
            snprintf(ldir, sizeof ldir, "%s/%s", mdir, lv[i]);
            char **pd = NULL;
            size_t np = 0;
            if (list_dirs(ldir, &pd, &np) != 0) {
                free_strs(lv, nl);
                goto oom;
            }
            for (size_t j = 0; j < np; j++) {
                char id[512];
                snprintf(id, sizeof id, "%s/%s", lv[i], pd[j]);
                if (!in_list(problems, n_problems, id)) {
                    ignored++;
                    if (!example[0])
                        snprintf(example, sizeof example, "%.255s", id);
                }
            }
            free_strs(pd, np);
        }
        free_strs(lv, nl);
        if (ignored) {
            r->n_samples_ignored += ignored;
            kb_note(&r->notes, 0, "%s: %zu problem directories not in --problems are ignored (e.g. %s)", r->data.models[m],
                    ignored, example);
        }
    }
    r->hidden_tau_based = kb_protocol_tau_based(r->protocol);
    return 0;
oom:
    free(csv_models);
    free_strs(dirs, n_dirs);
    kb_report_free(r);
    return kb_errf(err, KB_EXIT_FAIL, "out of memory");
fail:
    kb_report_free(r);
    return -1;
}

void kb_report_free(kb_report *r)
{
    kb_data_free(&r->data);
    free(r->models);
    free(r->ref);
    kb_notes_free(&r->notes);
    memset(r, 0, sizeof *r);
}
