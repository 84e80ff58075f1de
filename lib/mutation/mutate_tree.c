/* mutate_tree.c -- origins into a tree of mutants, its manifest and the compile check (kb_mutate.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csv.h>

#include "mutation/kb_mutate.h"
#include "core/kb_proc.h"

#define MANIFEST "mutants.csv"

typedef struct origin_sample {
    char model[256], problem[256], sample[32], path[4096];
    long num;
    int is_py;
} origin_sample;

typedef struct mrec {
    char problem[256], sample[32], origin[600];
    const kb_mut_rule *rule;
    int line, is_py;
    char before[200], after[200];
    char *text;
    size_t len;
    uint64_t key;
    int compiled; /* 1, 0, -1 unchecked */
    char error[400];
} mrec;

typedef struct vec {
    void *v;
    size_t n, cap, size;
} vec;

static void *vec_push(vec *a)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        void *v = realloc(a->v, cap * a->size);
        if (!v)
            return NULL;
        a->v = v;
        a->cap = cap;
    }
    void *p = (char *)a->v + a->n++ * a->size;
    memset(p, 0, a->size);
    return p;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* sK.cu / sK.py: K, else -1 */
static long sample_num(const char *name, int *is_py)
{
    if (name[0] != 's' || name[1] < '0' || name[1] > '9')
        return -1;
    char *end;
    long k = strtol(name + 1, &end, 10);
    if (!strcmp(end, ".cu") || !strcmp(end, ".py")) {
        *is_py = end[1] == 'p';
        return k;
    }
    return -1;
}

static int level_dir(const char *s) { return !strncmp(s, "level", 5) && s[5] >= '1' && s[5] <= '3' && !s[6]; }
static int visible(const struct dirent *e) { return e->d_name[0] != '.'; }

static int by_problem_sample(const void *a, const void *b)
{
    const origin_sample *x = a, *y = b;
    int c = strcmp(x->problem, y->problem);
    return c ? c : (x->num > y->num) - (x->num < y->num);
}

/* the samples of one origin (a model directory or one sample file), sorted */
static int collect(const char *origin, vec *out, kb_err *err)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", origin);
    for (size_t k = strlen(buf); k > 1 && buf[k - 1] == '/'; k--)
        buf[k - 1] = '\0';
    size_t first = out->n;
    if (!is_dir(buf)) {
        /* <model>/levelN/NNN_name/sK.ext */
        char *parts[64];
        int np = 0;
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", buf);
        for (char *t = strtok(tmp, "/"); t && np < 64; t = strtok(NULL, "/"))
            parts[np++] = t;
        int is_py = 0;
        if (np < 4 || !level_dir(parts[np - 3]) || sample_num(parts[np - 1], &is_py) < 0)
            return kb_errf(err, KB_EXIT_MISSING,
                           "--origin %s: neither a model directory nor a sample <model>/levelN/NNN_name/sK.{cu,py}", origin);
        if (access(buf, R_OK) != 0)
            return kb_errf(err, KB_EXIT_MISSING, "--origin %s: %s", origin, strerror(errno));
        origin_sample *s = vec_push(out);
        if (!s)
            return kb_errf(err, KB_EXIT_FAIL, "out of memory");
        snprintf(s->model, sizeof s->model, "%s", parts[np - 4]);
        snprintf(s->problem, sizeof s->problem, "%s/%s", parts[np - 3], parts[np - 2]);
        snprintf(s->sample, sizeof s->sample, "%.*s", (int)(strrchr(parts[np - 1], '.') - parts[np - 1]), parts[np - 1]);
        snprintf(s->path, sizeof s->path, "%s", buf);
        s->num = sample_num(parts[np - 1], &s->is_py);
        s->is_py = is_py;
        return 0;
    }
    const char *model = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
    struct dirent **lv;
    int nl = scandir(buf, &lv, visible, alphasort);
    if (nl < 0)
        return kb_errf(err, KB_EXIT_MISSING, "--origin %s: %s", origin, strerror(errno));
    int rc = 0;
    for (int i = 0; i < nl; i++) {
        char ld[4096];
        if (level_dir(lv[i]->d_name) && kb_fmt(ld, sizeof ld, "%s/%s", buf, lv[i]->d_name) >= 0 && is_dir(ld)) {
            struct dirent **pd;
            int np = scandir(ld, &pd, visible, alphasort);
            for (int j = 0; j < np; j++) {
                char pdir[4096];
                struct dirent **sf;
                int ns = kb_fmt(pdir, sizeof pdir, "%s/%s", ld, pd[j]->d_name) >= 0 && is_dir(pdir)
                             ? scandir(pdir, &sf, visible, alphasort)
                             : -1;
                for (int k = 0; k < ns; k++) {
                    int is_py = 0;
                    long num = sample_num(sf[k]->d_name, &is_py);
                    origin_sample *s = num >= 0 && rc == 0 ? vec_push(out) : NULL;
                    if (num >= 0 && rc == 0 && !s)
                        rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
                    if (s) {
                        snprintf(s->model, sizeof s->model, "%s", model);
                        (void)kb_fmt(s->problem, sizeof s->problem, "%s/%s", lv[i]->d_name, pd[j]->d_name);
                        snprintf(s->sample, sizeof s->sample, "s%ld", num);
                        (void)kb_fmt(s->path, sizeof s->path, "%s/%s", pdir, sf[k]->d_name);
                        s->num = num;
                        s->is_py = is_py;
                    }
                    free(sf[k]);
                }
                if (ns >= 0)
                    free(sf);
                free(pd[j]);
            }
            if (np >= 0)
                free(pd);
        }
        free(lv[i]);
    }
    free(lv);
    if (rc == 0)
        qsort((origin_sample *)out->v + first, out->n - first, sizeof(origin_sample), by_problem_sample);
    return rc;
}

/* ---- the manifest ----------------------------------------------------------------------------- */

static void csv_field(FILE *f, const char *s, int first)
{
    if (!first)
        fputc(',', f);
    if (strpbrk(s, ",\"\r\n") || s[0] == ' ' || (s[0] && s[strlen(s) - 1] == ' '))
        csv_fwrite(f, s, strlen(s));
    else
        fputs(s, f);
}

static int manifest_text(const mrec *m, size_t n, char **buf, size_t *len, kb_err *err)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    fputs("sample,problem,origin,family,rule,line,before,after,compiled,compile_error\n", f);
    for (size_t i = 0; i < n; i++) {
        char line[16];
        snprintf(line, sizeof line, "%d", m[i].line);
        csv_field(f, m[i].sample, 1);
        csv_field(f, m[i].problem, 0);
        csv_field(f, m[i].origin, 0);
        csv_field(f, m[i].rule->family, 0);
        csv_field(f, m[i].rule->name, 0);
        csv_field(f, line, 0);
        csv_field(f, m[i].before, 0);
        csv_field(f, m[i].after, 0);
        csv_field(f, m[i].compiled < 0 ? "" : m[i].compiled ? "1" : "0", 0);
        csv_field(f, m[i].error, 0);
        fputc('\n', f);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(*buf);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    return 0;
}

/* ---- the compile check ------------------------------------------------------------------------ */

/* the cache: lines "key<TAB>compiled<TAB>error" */
static void cache_load(const char *path, mrec *m, size_t n)
{
    size_t len;
    char *text = path ? kb_read_file(path, &len, NULL) : NULL;
    if (!text)
        return;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2)
            continue;
        uint64_t key = strtoull(line, NULL, 16);
        for (size_t i = 0; i < n; i++)
            if (!m[i].is_py && m[i].key == key && m[i].compiled < 0) {
                m[i].compiled = t1[1] == '1';
                snprintf(m[i].error, sizeof m[i].error, "%s", t2 + 1);
            }
    }
    free(text);
}

static int cache_save(const char *path, const mrec *m, size_t n, kb_err *err)
{
    if (!path)
        return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (!m[i].is_py && m[i].compiled >= 0)
            fprintf(f, "%016llx\t%d\t%s\n", (unsigned long long)m[i].key, m[i].compiled, m[i].error);
    fclose(f);
    int changed, rc = kb_write_if_changed(path, buf, len, &changed, err);
    free(buf);
    return rc;
}

/* nvcc's first error line, without the temporary directory */
static void first_error(const kb_cmd_result *r, const char *dir, char *out, size_t cap)
{
    const char *p = r->output ? r->output : "";
    const char *hit = NULL;
    for (const char *l = p; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        const char *e = strchr(l, '\n');
        size_t ll = e ? (size_t)(e - l) : strlen(l);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)ll, l);
        if (strstr(line, "error")) {
            hit = l;
            break;
        }
    }
    if (!hit) {
        kb_describe_status(r, out, cap);
        return;
    }
    const char *e = strchr(hit, '\n');
    size_t ll = e ? (size_t)(e - hit) : strlen(hit), dl = strlen(dir);
    if (ll > dl + 1 && !strncmp(hit, dir, dl) && hit[dl] == '/')
        hit += dl + 1, ll -= dl + 1;
    snprintf(out, cap, "%.*s", (int)(ll < cap - 1 ? ll : cap - 1), hit);
    for (char *q = out; *q; q++)
        if (*q == '\t' || *q == '\r')
            *q = ' ';
}

static void check_one(const kb_mutate_opts *o, mrec *m, const char *dir, FILE *res, size_t idx)
{
    char src[4200], obj[4200], inc[4200];
    (void)kb_fmt(src, sizeof src, "%s/%s.cu", dir, m->sample);
    (void)kb_fmt(obj, sizeof obj, "%s/%s.o", dir, m->sample);
    snprintf(inc, sizeof inc, "-I%s", o->include);
    int compiled = 0;
    char error[400] = "";
    if (kb_write_file_atomic(src, m->text, m->len, NULL) != 0) {
        (void)kb_fmt(error, sizeof error, "harness: cannot write %s", src);
    } else {
        char gencode[512];
        snprintf(gencode, sizeof gencode, "%s", o->gencode);
        char *argv[32];
        int a = 0;
        argv[a++] = (char *)o->nvcc;
        argv[a++] = "-std=c++17";
        argv[a++] = "-O3";
        for (char *t = strtok(gencode, " "); t && a < 20; t = strtok(NULL, " "))
            argv[a++] = t;
        argv[a++] = "-Xcompiler";
        argv[a++] = "-fPIC,-fvisibility=hidden";
        argv[a++] = inc;
        argv[a++] = "-c";
        argv[a++] = "-o";
        argv[a++] = obj;
        argv[a++] = src;
        argv[a] = NULL;
        kb_cmd_result r = {0};
        kb_err e = {0};
        if (kb_run_cmd(argv, o->timeout_s, 1 << 20, &r, &e) != 0)
            (void)kb_fmt(error, sizeof error, "harness: %s", e.msg);
        else if (r.exited && r.exit_status == 0)
            compiled = 1;
        else
            first_error(&r, dir, error, sizeof error);
        kb_cmd_result_free(&r);
    }
    unlink(src);
    unlink(obj);
    fprintf(res, "%zu\t%d\t%s\n", idx, compiled, error);
}

static int compile_check(const kb_mutate_opts *o, mrec *m, size_t n, kb_mutate_summary *s, kb_err *err)
{
    size_t *todo = malloc((n + 1) * sizeof *todo), nt = 0;
    if (!todo)
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (!m[i].is_py && m[i].compiled < 0 && (!o->limit || nt < o->limit))
            todo[nt++] = i;
    char root[] = "/tmp/kb-mutate.XXXXXX";
    if (nt && !mkdtemp(root)) {
        free(todo);
        return kb_errf(err, KB_EXIT_FAIL, "cannot create a temporary directory: %s", strerror(errno));
    }
    int jobs = o->jobs > 0 ? o->jobs : 1;
    pid_t pids[256];
    int nj = 0;
    for (int w = 0; w < jobs && w < 256 && (size_t)w < nt; w++) {
        char dir[4200], resp[4300];
        snprintf(dir, sizeof dir, "%s/w%d", root, w);
        snprintf(resp, sizeof resp, "%s/w%d.tsv", root, w);
        mkdir(dir, 0700);
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            FILE *res = fopen(resp, "w");
            for (size_t k = (size_t)w; res && k < nt; k += (size_t)jobs)
                check_one(o, &m[todo[k]], dir, res, todo[k]);
            _exit(res && fclose(res) == 0 ? 0 : 1);
        }
        if (p < 0)
            break;
        pids[nj++] = p;
    }
    int rc = 0;
    for (int w = 0; w < nj; w++) {
        int st;
        waitpid(pids[w], &st, 0);
        char dir[4200], resp[4300];
        snprintf(dir, sizeof dir, "%s/w%d", root, w);
        snprintf(resp, sizeof resp, "%s/w%d.tsv", root, w);
        size_t len;
        char *text = kb_read_file(resp, &len, NULL);
        if (!text || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            rc = kb_errf(err, KB_EXIT_FAIL, "a compile-check worker failed (its results are lost)");
        for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
            char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
            size_t idx = strtoull(line, NULL, 10);
            if (!t2 || idx >= n)
                continue;
            m[idx].compiled = t1[1] == '1';
            snprintf(m[idx].error, sizeof m[idx].error, "%s", t2 + 1);
            s->checked++;
        }
        free(text);
        unlink(resp);
        rmdir(dir);
    }
    if (nt)
        rmdir(root);
    free(todo);
    return rc;
}

/* ---- the tree --------------------------------------------------------------------------------- */

static int written(const mrec *m, size_t n, const char *problem, const char *file)
{
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(m[i].sample);
        if (!strcmp(m[i].problem, problem) && !strncmp(file, m[i].sample, k) && !strcmp(file + k, m[i].is_py ? ".py" : ".cu"))
            return 1;
    }
    return 0;
}

typedef struct written_set {
    const mrec *m;
    size_t n;
} written_set;

static int is_written(const char *problem, const char *file, void *ctx)
{
    const written_set *w = ctx;
    return written(w->m, w->n, problem, file);
}

static int check_out_dir(const char *out, kb_err *err)
{
    int c = kb_tree_claimable(out, MANIFEST);
    if (c == 2)
        return kb_errf(err, KB_EXIT_FAIL, "%s exists and is not a directory", out);
    if (c == 1)
        return kb_errf(err, KB_EXIT_FAIL,
                       "%s exists and was not made by kb-mutate (no %s): choose another --out, or move it away (kb-mutate "
                       "owns its tree and deletes the samples it did not write)",
                       out, MANIFEST);
    return 0;
}

/* --per-rule N: is mutant j of the list (its rule's k-th site of c) one of the N kept? The kept
 * sites are k = floor((i + 1/2) c / N), i < N: spread over the source, the same on every run. */
static int keep_site(const kb_mutant_list *ml, size_t j, size_t per_rule)
{
    if (!per_rule)
        return 1;
    size_t k = 0, c = 0;
    for (size_t i = 0; i < ml->n; i++)
        if (ml->v[i].rule == ml->v[j].rule) {
            if (i < j)
                k++;
            c++;
        }
    if (c <= per_rule)
        return 1;
    for (size_t i = 0; i < per_rule; i++)
        if ((size_t)(((double)i + 0.5) * (double)c / (double)per_rule) == k)
            return 1;
    return 0;
}

int kb_mutate_tree(const kb_mutate_opts *o, kb_mutate_summary *s, kb_err *err)
{
    memset(s, 0, sizeof *s);
    if (check_out_dir(o->out, err) != 0)
        return -1;
    vec samples = {.size = sizeof(origin_sample)}, recs = {.size = sizeof(mrec)};
    vec counters = {.size = sizeof(origin_sample)}; /* problem -> next K (in .num) */
    int rc = 0;
    for (size_t k = 0; k < o->n_origins && rc == 0; k++)
        rc = collect(o->origins[k], &samples, err);
    s->origins = samples.n;
    char flags[1024];
    snprintf(flags, sizeof flags, "%s|%s|%s", o->nvcc ? o->nvcc : "", o->gencode ? o->gencode : "",
             o->include ? o->include : "");
    uint64_t fh = kb_fnv1a64(flags, strlen(flags), 1469598103934665603ull);
    for (size_t k = 0; k < samples.n && rc == 0; k++) {
        origin_sample *os = (origin_sample *)samples.v + k;
        size_t len;
        char *src = kb_read_file(os->path, &len, err);
        kb_mutant_list ml;
        if (!src || kb_mutate_find(src, len, os->is_py, &ml, err) != 0) {
            free(src);
            rc = -1;
            break;
        }
        origin_sample *ctr = NULL;
        for (size_t j = 0; j < counters.n && !ctr; j++)
            if (!strcmp(((origin_sample *)counters.v)[j].problem, os->problem))
                ctr = (origin_sample *)counters.v + j;
        if (!ctr && (ctr = vec_push(&counters)) != NULL)
            snprintf(ctr->problem, sizeof ctr->problem, "%s", os->problem);
        int oom = !ctr;
        for (size_t j = 0; j < ml.n && !oom; j++) {
            if (!keep_site(&ml, j, os->is_py && o->per_rule_py ? o->per_rule_py : o->per_rule))
                continue;
            mrec *r = vec_push(&recs);
            if (!r) {
                oom = 1;
                break;
            }
            kb_mutant *mu = &ml.v[j];
            snprintf(r->problem, sizeof r->problem, "%s", os->problem);
            snprintf(r->sample, sizeof r->sample, "s%ld", ctr->num++);
            snprintf(r->origin, sizeof r->origin, "%s/%s/%s", os->model, os->problem, os->sample);
            r->rule = mu->rule;
            r->line = mu->line;
            r->is_py = os->is_py;
            memcpy(r->before, mu->before, sizeof r->before);
            memcpy(r->after, mu->after, sizeof r->after);
            r->text = mu->text;
            r->len = mu->text_len;
            mu->text = NULL;
            r->key = kb_fnv1a64(r->text, r->len, fh);
            r->compiled = -1;
        }
        if (oom)
            rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
        kb_mutant_list_free(&ml);
        free(src);
    }
    mrec *m = recs.v;
    size_t n = recs.n;
    if (rc == 0) {
        cache_load(o->cache, m, n);
        for (size_t i = 0; i < n; i++)
            s->cached += m[i].compiled >= 0;
        if (o->compile_check)
            rc = compile_check(o, m, n, s, err);
        if (rc == 0)
            rc = cache_save(o->cache, m, n, err);
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[4600];
        int changed = 0;
        if (kb_fmt(path, sizeof path, "%s/%s/%s.%s", o->out, m[i].problem, m[i].sample, m[i].is_py ? "py" : "cu") < 0)
            rc = kb_errf(err, KB_EXIT_FAIL, "path too long: %s/%s", o->out, m[i].problem);
        else
            rc = kb_write_if_changed(path, m[i].text, m[i].len, &changed, err);
        s->written += changed;
        s->unchanged += !changed;
        int f = kb_mut_family_index(m[i].rule->family);
        if (f >= 0)
            s->by_family[f]++;
        s->compiled += m[i].compiled == 1;
        s->stillborn += m[i].compiled == 0;
    }
    s->mutants = n;
    if (rc == 0 && kb_mkdirs(o->out, err) == 0) {
        char *man = NULL;
        size_t man_len = 0;
        snprintf(s->manifest, sizeof s->manifest, "%s/" MANIFEST, o->out);
        if ((rc = manifest_text(m, n, &man, &man_len, err)) == 0)
            rc = kb_write_if_changed(s->manifest, man, man_len, &s->manifest_changed, err);
        free(man);
    } else if (rc == 0) {
        rc = -1;
    }
    written_set ws = {m, n};
    if (rc == 0)
        rc = kb_tree_prune(o->out, is_written, &ws, "stale mutant", &s->removed, err);
    for (size_t i = 0; i < n; i++)
        free(m[i].text);
    free(recs.v);
    free(samples.v);
    free(counters.v);
    return rc;
}
