/* import.c -- see kb_import.h: KernelBench's layouts into a submission tree. The walk classifies
 * every entry of FROM (a sample of some layout, or not taken and why), the candidates are read and
 * checked, the ones that claim one sample are resolved (a duplicate is dropped, different files are
 * all refused), and the rows left are written by kb_extract_write, as kb-extract's are. */
#include "llm/kb_import.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const layout_names[KB_IM_N] = {
    "KernelBench run", "KernelBench run (flattened)", "KernelBench raw answer", "generated_kernels",
    "KernelBench per-problem", "responses", "submission tree"};
/* what each layout's ok row says of its sample */
static const char *const layout_taken[KB_IM_N] = {
    "a KernelBench run's kernel file, taken unchanged", "a KernelBench run's kernel file (flattened name), taken unchanged",
    "", "a generated_kernels file, taken unchanged", "KernelBench's per-problem kernel.py, taken unchanged", "",
    "a submission tree's sample, taken unchanged"};
static const char *const skip_names[KB_SKIP_N] = {"no layout", "level out of range", "unknown problem",
                                                  "KernelBench record", "prompt or answer beside a kernel", "duplicate",
                                                  "conflict", "hidden", "unreadable"};

const char *kb_import_layout_name(kb_import_layout l) { return (unsigned)l < KB_IM_N ? layout_names[l] : "?"; }
const char *kb_import_skip_name(kb_import_skip k) { return (unsigned)k < KB_SKIP_N ? skip_names[k] : "?"; }

#define DIGITS "0123456789"
#define NAME_BYTES "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
#define NO_LAYOUT_PY                                                                                            \
    "its name is in no layout kb-import reads (level_{L}_problem_{P}_sample_{S}_kernel.py, level_{L}_problem_{P}.py, "    \
    "level_{L}_problem_{P}_sample_{S}.py, level_{L}/problem_{P}/kernel.py, level_{L}/problem_{P}/sample_{S}/kernel.py, "        \
    "levelN/NNN_name/sK.py, levelN/NNN_name/sK.txt; kb-import --help): rename it into one, or leave it out"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* 1-9 decimal digits at *s: their value, *s moved past them; -1 if none or too many. */
static long number(const char **s)
{
    size_t d = strspn(*s, DIGITS);
    if (d == 0 || d > 9)
        return -1;
    long v = strtol(*s, NULL, 10);
    *s += d;
    return v;
}

/* "word<digits>" exactly (problem_19, sample_0, level_1): the number, else -1. */
static long word_number(const char *s, const char *word)
{
    size_t k = strlen(word);
    if (!s || strncmp(s, word, k) != 0)
        return -1;
    s += k;
    long v = number(&s);
    return *s ? -1 : v;
}

/* A problem directory's name: NNN_name. */
static int problem_dir_name(const char *s)
{
    return strlen(s) > 4 && strspn(s, DIGITS) == 3 && s[3] == '_' && strspn(s + 4, NAME_BYTES) == strlen(s + 4);
}

/* ---- KernelBench's file names ---------------------------------------------------------------------- */

typedef enum kb_suffix { SUF_KERNEL, SUF_PROMPT, SUF_RESPONSE, SUF_PY } kb_suffix;

typedef struct kbname {
    size_t prefix;  /* bytes before "level_" (a flattened run's "<run>_") */
    long level, problem, sample; /* sample -1: none in the name */
    kb_suffix suffix;
} kbname;

/* [<prefix>_]level_{L}_problem_{P}[_sample_{S}]{_kernel.py,_prompt.txt,_response.txt,.py}: 1 if so. */
static int parse_kbname(const char *name, kbname *k)
{
    static const char *const suffixes[] = {"_kernel.py", "_prompt.txt", "_response.txt", ".py"};
    for (const char *at = strstr(name, "level_"); at; at = strstr(at + 1, "level_")) {
        if (at != name && at[-1] != '_')
            continue;
        const char *s = at + 6;
        k->prefix = (size_t)(at - name);
        k->sample = -1;
        if ((k->level = number(&s)) < 0 || strncmp(s, "_problem_", 9) != 0)
            continue;
        s += 9;
        if ((k->problem = number(&s)) < 0)
            continue;
        if (!strncmp(s, "_sample_", 8)) {
            const char *t = s + 8;
            long v = number(&t);
            if (v >= 0) {
                k->sample = v;
                s = t;
            }
        }
        for (int i = 0; i < 4; i++)
            if (!strcmp(s, suffixes[i])) {
                k->suffix = (kb_suffix)i;
                /* the run's files name their sample; generated_kernels' .py has no prefix */
                if ((i < 3 && k->sample < 0) || (i == 3 && k->prefix))
                    return 0;
                return 1;
            }
    }
    return 0;
}

/* ---- the problems ------------------------------------------------------------------------------------ */

typedef struct problems {
    char *stem[4][1000]; /* [level][number]: "019_relu", or NULL */
    int count[4], lo[4], hi[4];
    const char *root;
} problems;

static int load_problems(problems *pb, const char *root, kb_err *err)
{
    memset(pb, 0, sizeof *pb);
    pb->root = root;
    for (int l = 1; l <= 3; l++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/level%d", root, l);
        DIR *d = opendir(dir);
        for (struct dirent *e; d && (e = readdir(d));) {
            char stem[256];
            if (!ends_with(e->d_name, ".py") || strlen(e->d_name) >= sizeof stem)
                continue;
            snprintf(stem, sizeof stem, "%.*s", (int)strlen(e->d_name) - 3, e->d_name);
            if (!problem_dir_name(stem))
                continue;
            int n = atoi(stem);
            if (pb->stem[l][n])
                continue;
            if (!(pb->stem[l][n] = strdup(stem))) {
                closedir(d);
                return kb_errf(err, KB_EXIT_FAIL, "out of memory");
            }
            pb->lo[l] = !pb->count[l] || n < pb->lo[l] ? n : pb->lo[l];
            pb->hi[l] = !pb->count[l] || n > pb->hi[l] ? n : pb->hi[l];
            pb->count[l]++;
        }
        if (d)
            closedir(d);
    }
    return 0;
}

static void free_problems(problems *pb)
{
    for (int l = 0; l < 4; l++)
        for (int n = 0; n < 1000; n++)
            free(pb->stem[l][n]);
}

/* "problems/level1/ holds 001-100" */
static void held(const problems *pb, int l, char *buf, size_t n)
{
    if (!pb->count[l])
        snprintf(buf, n, "%s/level%d/ holds no problem", pb->root, l);
    else if (pb->count[l] == pb->hi[l] - pb->lo[l] + 1)
        snprintf(buf, n, "%s/level%d/ holds %03d-%03d", pb->root, l, pb->lo[l], pb->hi[l]);
    else
        snprintf(buf, n, "%s/level%d/ holds %d problems, %03d-%03d", pb->root, l, pb->count[l], pb->lo[l], pb->hi[l]);
}

/* ---- the walk ---------------------------------------------------------------------------------------- */

typedef struct cand {
    kb_extract_sample s;
    kb_import_layout layout;
    char *raw; /* the file's bytes */
    size_t raw_len;
} cand;

typedef struct walk {
    const kb_import_opts *o;
    kb_import_plan *p;
    problems pb;
    cand *c;
    size_t nc, cap_c, cap_skipped;
    int oom;
} walk;

static void skip(walk *w, const char *path, kb_import_skip kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void skip(walk *w, const char *path, kb_import_skip kind, const char *fmt, ...)
{
    kb_import_plan *p = w->p;
    if (p->n_skipped == w->cap_skipped) {
        size_t cap = w->cap_skipped ? 2 * w->cap_skipped : 32;
        kb_import_skipped *v = realloc(p->skipped, cap * sizeof *v);
        if (!v) {
            w->oom = 1;
            return;
        }
        p->skipped = v;
        w->cap_skipped = cap;
    }
    kb_import_skipped *s = &p->skipped[p->n_skipped];
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&s->why, fmt, ap);
    va_end(ap);
    if (rc < 0 || !(s->path = strdup(path))) {
        if (rc >= 0)
            free(s->why);
        w->oom = 1;
        return;
    }
    s->kind = kind;
    p->by_skip[kind]++;
    p->n_skipped++;
}

/* The problem directory of (level, problem), or NULL with the file skipped. */
static const char *find_problem(walk *w, const char *path, long level, long problem)
{
    char h[4400];
    if (level < 1 || level > 3) {
        skip(w, path, KB_SKIP_LEVEL, "level %ld: KernelBench's levels are 1, 2 and 3", level);
        return NULL;
    }
    held(&w->pb, (int)level, h, sizeof h);
    if (problem == 0) {
        skip(w, path, KB_SKIP_PROBLEM, "problem 0: KernelBench's problem ids start at 1 (%s)", h);
        return NULL;
    }
    const char *stem = problem < 1000 ? w->pb.stem[level][problem] : NULL;
    if (!stem)
        skip(w, path, KB_SKIP_PROBLEM, "level %ld has no problem %ld (%s)", level, problem, h);
    return stem;
}

static void add(walk *w, const char *path, kb_import_layout layout, long level, const char *stem, long sample)
{
    if (w->nc == w->cap_c) {
        size_t cap = w->cap_c ? 2 * w->cap_c : 64;
        cand *v = realloc(w->c, cap * sizeof *v);
        if (!v) {
            w->oom = 1;
            return;
        }
        w->c = v;
        w->cap_c = cap;
    }
    cand *c = &w->c[w->nc++];
    memset(c, 0, sizeof *c);
    snprintf(c->s.problem, sizeof c->s.problem, "level%ld/%s", level, stem);
    snprintf(c->s.sample, sizeof c->s.sample, "s%ld", sample);
    snprintf(c->s.source, sizeof c->s.source, "%s", path);
    c->s.num = sample;
    c->layout = layout;
}

/* A file named like KernelBench's run, flattened run or generated_kernels files. */
static void classify_kbname(walk *w, const char *dir, const char *path, const char *name, const kbname *k)
{
    if (k->suffix == SUF_PROMPT) {
        skip(w, path, KB_SKIP_BESIDE, "KernelBench's prompt for the sample (not a sample; this project's prompts are "
                                      "make prompts')");
        return;
    }
    kb_import_layout layout = k->suffix == SUF_PY ? KB_IM_GENERATED : k->prefix ? KB_IM_RUN_FLAT : KB_IM_RUN;
    if (k->suffix == SUF_RESPONSE) {
        char kernel[4096];
        int n = snprintf(kernel, sizeof kernel, "%s/%.*s_kernel.py", dir, (int)(strlen(name) - strlen("_response.txt")),
                         name);
        struct stat st;
        if (n > 0 && (size_t)n < sizeof kernel && stat(kernel, &st) == 0 && S_ISREG(st.st_mode)) {
            skip(w, path, KB_SKIP_BESIDE, "the raw answer behind %s (that kernel file is the sample)", kernel);
            return;
        }
        layout = KB_IM_RUN_RESPONSE;
    }
    const char *stem = find_problem(w, path, k->level, k->problem);
    if (stem)
        add(w, path, layout, k->level, stem, k->sample < 0 ? 0 : k->sample);
}

/* dirs[0..depth): the directories from FROM down to the file's. */
static void classify(walk *w, const char *dir, const char *path, const char *name, const char *const *dirs, int depth)
{
    const char *d1 = depth >= 1 ? dirs[depth - 1] : NULL, *d2 = depth >= 2 ? dirs[depth - 2] : NULL,
               *d3 = depth >= 3 ? dirs[depth - 3] : NULL;
    kbname k;
    if (ends_with(name, "eval_results.json")) {
        skip(w, path, KB_SKIP_RECORD, "KernelBench's eval results (the pipeline measures its own: make all)");
    } else if (ends_with(name, "pass_at_k_results.json")) {
        skip(w, path, KB_SKIP_RECORD, "KernelBench's pass@k results (the pipeline computes its own metrics: make all)");
    } else if (!strcmp(name, "generation_config.yaml")) {
        skip(w, path, KB_SKIP_RECORD, "KernelBench's generation config (not a sample; its model_name, temperature and "
                                      "num_samples tell models.csv's provider, sampling and samples_per_problem)");
        if (!w->p->config[0])
            snprintf(w->p->config, sizeof w->p->config, "%s", path);
    } else if (!strcmp(name, "extraction.csv")) {
        skip(w, path, KB_SKIP_RECORD, "a submission tree's manifest (not a sample; the import writes the model's own)");
    } else if (parse_kbname(name, &k)) {
        classify_kbname(w, dir, path, name, &k);
    } else if (!strcmp(name, "kernel.py")) {
        long p = word_number(d1, "problem_"), l = word_number(d2, "level_"), s = 0;
        if (p < 0) { /* level_{L}/problem_{P}/sample_{S}/kernel.py */
            s = word_number(d1, "sample_");
            p = word_number(d2, "problem_");
            l = word_number(d3, "level_");
        }
        const char *stem = s >= 0 && p >= 0 && l >= 0 ? find_problem(w, path, l, p) : NULL;
        if (stem)
            add(w, path, KB_IM_PER_PROBLEM, l, stem, s);
        else if (s < 0 || p < 0 || l < 0)
            skip(w, path, KB_SKIP_NO_LAYOUT, "a kernel.py is KernelBench's per-problem layout only in "
                                             "level_{L}/problem_{P}/kernel.py or level_{L}/problem_{P}/sample_{S}/kernel.py");
    } else if (d1 && d2 && !strncmp(d2, "level", 5) && d2[5] && strspn(d2 + 5, DIGITS) == strlen(d2 + 5) &&
               (kb_sample_number(name, "py") >= 0 || kb_sample_number(name, "txt") >= 0)) {
        /* levelN/NNN_name/sK.py or sK.txt */
        int txt = kb_sample_number(name, "txt") >= 0;
        long l = strtol(d2 + 5, NULL, 10), s = kb_sample_number(name, txt ? "txt" : "py");
        if (!problem_dir_name(d1)) {
            skip(w, path, KB_SKIP_NO_LAYOUT, "%s/%s is no problem directory: they are named NNN_name, as in %s/%s/", d2,
                 d1, w->pb.root, d2);
            return;
        }
        const char *stem = find_problem(w, path, l, atol(d1));
        if (stem && strcmp(stem, d1) != 0)
            skip(w, path, KB_SKIP_PROBLEM, "%s/%s is no problem of %s/: its problem %.3s is %s (rename the directory)",
                 d2, d1, w->pb.root, d1, stem);
        else if (stem)
            add(w, path, txt ? KB_IM_RESPONSES : KB_IM_TREE, l, stem, s);
    } else if (d1 && problem_dir_name(d1) && ends_with(name, ".cu")) {
        skip(w, path, KB_SKIP_NO_LAYOUT, "a C-ABI sample: kb-import takes KernelBench-format files (.py) only; a model "
                                         "of .cu samples is a tree of its own, written by hand (REPRODUCE.md)");
    } else if (d1 && problem_dir_name(d1) && (ends_with(name, ".py") || ends_with(name, ".txt"))) {
        skip(w, path, KB_SKIP_NO_LAYOUT, "in a problem directory a sample is sK.py (a KernelBench file) or sK.txt (a "
                                         "raw answer), K = 0, 1, ...");
    } else if (ends_with(name, ".py") || ends_with(name, ".txt")) {
        skip(w, path, KB_SKIP_NO_LAYOUT, NO_LAYOUT_PY);
    } else {
        skip(w, path, KB_SKIP_NO_LAYOUT, "not a KernelBench file: kb-import reads .py kernels and .txt answers, in the "
                                         "layouts of kb-import --help");
    }
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }
static int entry(const struct dirent *e) { return strcmp(e->d_name, ".") && strcmp(e->d_name, ".."); }

static int walk_dir(walk *w, const char *dir, const char **dirs, int depth, kb_err *err)
{
    struct dirent **e;
    int n = scandir(dir, &e, entry, by_name), rc = 0;
    if (n < 0)
        return kb_errf(err, KB_EXIT_FAIL, "cannot read the directory %s: %s", dir, strerror(errno));
    for (int i = 0; i < n && rc == 0 && !w->oom; i++) {
        const char *name = e[i]->d_name;
        char path[4096];
        struct stat st, to;
        if (kb_fmt(path, sizeof path, "%s/%s", dir, name) < 0) {
            rc = kb_errf(err, KB_EXIT_FAIL, "%s/%s: path too long", dir, name);
            break;
        }
        int is_link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode), ok = stat(path, &to) == 0;
        if (!ok && !is_link) {
            rc = kb_errf(err, KB_EXIT_FAIL, "cannot read %s: %s", path, strerror(errno));
            break;
        }
        if (ok && S_ISDIR(to.st_mode) && !is_link && name[0] != '.' && depth < KB_IMPORT_DEPTH) {
            dirs[depth] = name;
            rc = walk_dir(w, path, dirs, depth + 1, err);
            continue;
        }
        w->p->files++;
        if (name[0] == '.')
            skip(w, path, KB_SKIP_HIDDEN, "a hidden %s (its name starts with '.'): not read",
                 ok && S_ISDIR(to.st_mode) ? "directory" : "file");
        else if (!ok)
            skip(w, path, KB_SKIP_UNREADABLE, "a link to nothing");
        else if (S_ISDIR(to.st_mode) && is_link)
            skip(w, path, KB_SKIP_UNREADABLE, "a link to a directory: not followed (import its target as a FROM of its "
                                              "own, or copy it in)");
        else if (S_ISDIR(to.st_mode))
            skip(w, path, KB_SKIP_UNREADABLE, "a directory %d levels below FROM: not read (import it as a FROM of its "
                                              "own)", KB_IMPORT_DEPTH + 1);
        else if (!S_ISREG(to.st_mode))
            skip(w, path, KB_SKIP_UNREADABLE, "not a regular file");
        else
            classify(w, dir, path, name, dirs, depth);
    }
    for (int i = 0; i < n; i++)
        free(e[i]);
    free(e);
    return rc;
}

/* ---- reading and resolving ---------------------------------------------------------------------------- */

static int check(cand *c, kb_err *err)
{
    if (!(c->raw = kb_read_file(c->s.source, &c->raw_len, err)))
        return -1;
    kb_extract_result *r = &c->s.res;
    int text = c->layout == KB_IM_RESPONSES || c->layout == KB_IM_RUN_RESPONSE;
    if ((text ? kb_extract_response : kb_extract_file)(c->raw, c->raw_len, KB_STYLE_KERNELBENCH, r, err) != 0)
        return -1;
    if (r->outcome == KB_EX_OK && !text)
        snprintf(r->reason, sizeof r->reason, "%s", layout_taken[c->layout]);
    else if (c->layout == KB_IM_RUN_RESPONSE) {
        char why[sizeof r->reason];
        snprintf(why, sizeof why, "%s", r->reason);
        /* (the reasons are far shorter than the buffer; the precision only says so to the compiler) */
        snprintf(r->reason, sizeof r->reason, "KernelBench's raw answer, no kernel file beside it: %.440s", why);
    }
    return 0;
}

static int by_sample(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    int c = strcmp(x->s.problem, y->s.problem);
    if (!c)
        c = (x->s.num > y->s.num) - (x->s.num < y->s.num);
    return c ? c : strcmp(x->s.source, y->s.source);
}

static int same_bytes(const char *a, size_t na, const char *b, size_t nb) { return na == nb && !memcmp(a, b, na); }

/* Do a and b yield one sample: the same outcome, the same bytes (an ok one's code, else the file)? */
static int same_sample(const cand *a, const cand *b)
{
    const kb_extract_result *x = &a->s.res, *y = &b->s.res;
    if (x->outcome != y->outcome)
        return 0;
    return x->outcome == KB_EX_OK ? same_bytes(x->code, x->code_len, y->code, y->code_len)
                                  : same_bytes(a->raw, a->raw_len, b->raw, b->raw_len);
}

/* Candidates [i, j) claim one sample: keep c[i] (1) or none (0); the rest are skipped. */
static int resolve(walk *w, cand *c, size_t i, size_t j)
{
    int all_same = 1;
    for (size_t k = i + 1; k < j; k++)
        all_same &= same_sample(&c[i], &c[k]);
    if (all_same) {
        for (size_t k = i + 1; k < j; k++)
            skip(w, c[k].s.source, KB_SKIP_DUPLICATE, "duplicate of %s %s (%s %s)", c[k].s.problem, c[k].s.sample,
                 same_bytes(c[i].raw, c[i].raw_len, c[k].raw, c[k].raw_len) ? "the same bytes as"
                                                                            : "the same sample as",
                 c[i].s.source);
        return 1;
    }
    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    if (!f) {
        w->oom = 1;
        return 0;
    }
    if (j - i == 2)
        fprintf(f, "two different files claim %s %s: %s and %s", c[i].s.problem, c[i].s.sample, c[i].s.source,
                c[i + 1].s.source);
    else {
        fprintf(f, "%zu files, not all the same, claim %s %s:", j - i, c[i].s.problem, c[i].s.sample);
        for (size_t k = i; k < j; k++)
            fprintf(f, "%s %s", k > i ? "," : "", c[k].s.source);
    }
    if (fclose(f) != 0) {
        w->oom = 1;
        return 0;
    }
    for (size_t k = i; k < j; k++)
        skip(w, c[k].s.source, KB_SKIP_CONFLICT, "%s; keep one and import again", list);
    free(list);
    return 0;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const kb_import_skipped *)a)->path, ((const kb_import_skipped *)b)->path);
}

/* The candidates into the plan's rows (sorted), the duplicates and conflicts into its skipped. */
static int settle(walk *w, kb_err *err)
{
    kb_import_plan *p = w->p;
    if (w->nc)
        qsort(w->c, w->nc, sizeof *w->c, by_sample);
    if (w->nc && !(p->rows = calloc(w->nc, sizeof *p->rows)))
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    size_t in_problem = 0;
    for (size_t i = 0, j; i < w->nc; i = j) {
        for (j = i + 1; j < w->nc && !strcmp(w->c[j].s.problem, w->c[i].s.problem) && w->c[j].s.num == w->c[i].s.num;)
            j++;
        if (!resolve(w, w->c, i, j))
            continue;
        cand *c = &w->c[i];
        in_problem = p->n && !strcmp(p->rows[p->n - 1].problem, c->s.problem) ? in_problem + 1 : 1;
        p->most_per_problem = in_problem > p->most_per_problem ? in_problem : p->most_per_problem;
        p->max_sample = c->s.num > p->max_sample ? c->s.num : p->max_sample;
        p->by_layout[c->layout]++;
        p->rows[p->n++] = c->s;
        memset(&c->s.res, 0, sizeof c->s.res); /* its code is the row's now */
    }
    long n = p->max_sample + 1 > (long)p->most_per_problem ? p->max_sample + 1 : (long)p->most_per_problem;
    p->samples_per_problem = n > 999999 ? 999999 : (int)n;
    if (p->n_skipped)
        qsort(p->skipped, p->n_skipped, sizeof *p->skipped, by_path);
    return w->oom ? kb_errf(err, KB_EXIT_FAIL, "out of memory") : 0;
}

int kb_import_plan_make(const kb_import_opts *o, kb_import_plan *p, kb_err *err)
{
    memset(p, 0, sizeof *p);
    p->max_sample = -1;
    struct stat st;
    if (stat(o->from, &st) != 0 || !S_ISDIR(st.st_mode))
        return kb_errf(err, KB_EXIT_MISSING, "--from %s: %s (it holds KernelBench's files: a run folder, "
                       "generated_kernels, level_{L}/problem_{P}/, or levelN/NNN_name/)", o->from,
                       stat(o->from, &st) != 0 ? "no such directory" : "not a directory");
    if (kb_extract_claim(o->submissions, o->model, p->mdir, sizeof p->mdir, p->manifest, sizeof p->manifest, err) != 0)
        return -1;
    char root[4096];
    snprintf(root, sizeof root, "%s", o->from);
    for (size_t k = strlen(root); k > 1 && root[k - 1] == '/'; k--)
        root[k - 1] = '\0';
    walk w = {.o = o, .p = p};
    const char *dirs[KB_IMPORT_DEPTH + 1];
    int rc = load_problems(&w.pb, o->problems, err);
    if (rc == 0)
        rc = walk_dir(&w, root, dirs, 0, err);
    for (size_t i = 0; i < w.nc && rc == 0 && !w.oom; i++)
        rc = check(&w.c[i], err);
    if (rc == 0 && w.oom)
        rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
    if (rc == 0)
        rc = settle(&w, err);
    for (size_t i = 0; i < w.nc; i++) {
        kb_extract_result_free(&w.c[i].s.res);
        free(w.c[i].raw);
    }
    free(w.c);
    free_problems(&w.pb);
    return rc;
}

int kb_import_write(kb_import_plan *p, kb_extract_row_fn on_row, void *ctx, kb_extract_summary *s, kb_err *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->manifest, sizeof s->manifest, "%s", p->manifest);
    if (!p->n)
        return kb_errf(err, KB_EXIT_FAIL, "no file is a sample (%zu files seen, none taken, each for the reason given): "
                       "nothing written; FROM is the directory of a KernelBench run, generated_kernels, level_{L}/ or "
                       "levelN/ trees", p->files);
    return kb_extract_write(p->mdir, p->manifest, p->rows, p->n, "py", on_row, ctx, s, err);
}

void kb_import_plan_free(kb_import_plan *p)
{
    for (size_t i = 0; i < p->n; i++)
        kb_extract_result_free(&p->rows[i].res);
    free(p->rows);
    for (size_t i = 0; i < p->n_skipped; i++) {
        free(p->skipped[i].path);
        free(p->skipped[i].why);
    }
    free(p->skipped);
    memset(p, 0, sizeof *p);
}
