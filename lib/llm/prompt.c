/* prompt.c -- see kb_prompt.h. */
#include "llm/kb_prompt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/kb_prompt_py.h"

static const char *const style_names[KB_N_STYLES] = {"kernelbench", "abi"};
static const char *const style_exts[KB_N_STYLES] = {"py", "cu"};

const char *kb_style_name(kb_prompt_style s) { return (unsigned)s < KB_N_STYLES ? style_names[s] : "?"; }
const char *kb_style_ext(kb_prompt_style s) { return (unsigned)s < KB_N_STYLES ? style_exts[s] : "?"; }

int kb_style_parse(const char *name, kb_prompt_style *s)
{
    for (int i = 0; i < KB_N_STYLES; i++)
        if (name && !strcmp(name, style_names[i])) {
            *s = (kb_prompt_style)i;
            return 0;
        }
    return -1;
}

/* ---- a growing string ------------------------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_add(sbuf *b, const char *p, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *v = realloc(b->s, cap);
        if (!v) {
            b->oom = 1;
            return;
        }
        b->s = v;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

static void sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Moves the string out (an empty string rather than NULL); -1 if an allocation failed. */
static int sb_take(sbuf *b, char **out, size_t *len, kb_err *err)
{
    if (!b->oom && !b->s)
        sb_add(b, "", 0);
    if (b->oom) {
        free(b->s);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    *out = b->s;
    if (len)
        *len = b->len;
    return 0;
}

/* ---- the spec as the prompt shows it ---------------------------------------------------------- */

static int is_ident_byte(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* Whether the name at [i, i + k) is one target of a statement `a, name, *rest = ...`: the line
 * holds only names, commas, stars and blanks before it, and after it up to an `=` that is no `==`. */
static int unpack_target(const kb_py_module *m, size_t i, size_t k)
{
    int commas = 0;
    size_t b = i;
    for (; b > 0 && m->mask[b - 1] != '\n'; b--) {
        char c = m->mask[b - 1];
        if (c == ',')
            commas++;
        else if (!is_ident_byte(c) && c != ' ' && c != '\t' && c != '*')
            return 0;
    }
    for (size_t a = i + k; a < m->len && m->mask[a] != '\n'; a++) {
        char c = m->mask[a];
        if (c == ',')
            commas++;
        else if (c == '=')
            return commas > 0 && a + 1 < m->len && m->mask[a + 1] != '=';
        else if (!is_ident_byte(c) && c != ' ' && c != '\t' && c != '*')
            return 0;
    }
    return 0;
}

/* Names the kept code binds itself (def parameters, `name =` anywhere, unpacking targets, `for name in`), so that
 * a use of one of them is not mistaken for a use of a removed module constant. */
static int bound_here(const kb_py_module *m, const char *keep, const char *name)
{
    size_t k = strlen(name);
    for (size_t i = 0; i + k <= m->len; i++) {
        if (!keep[i] || !kb_py_is_code(m, i) || strncmp(m->mask + i, name, k) != 0 ||
            (i > 0 && is_ident_byte(m->mask[i - 1])) || (i + k < m->len && is_ident_byte(m->mask[i + k])))
            continue;
        size_t a = i + k;
        while (a < m->len && (m->mask[a] == ' ' || m->mask[a] == '\t'))
            a++;
        if (a + 1 < m->len && m->mask[a] == '=' && m->mask[a + 1] != '=')
            return 1; /* name = ...: a local, a keyword argument, a default */
        if (unpack_target(m, i, k))
            return 1; /* a, name, _ = ...: one of an unpacking's targets */
        size_t b = i;
        while (b > 0 && (m->mask[b - 1] == ' ' || m->mask[b - 1] == '\t' || m->mask[b - 1] == '\n' || m->mask[b - 1] == '*'))
            b--;
        if (b > 0 && (m->mask[b - 1] == '(' || m->mask[b - 1] == ',')) {
            /* a parameter when the group it stands in follows `def NAME` */
            long depth = 0;
            for (size_t j = b; j-- > 0;) {
                char c = m->mask[j];
                if (c == ')' || c == ']' || c == '}')
                    depth++;
                else if (c == '(' || c == '[' || c == '{') {
                    if (depth-- == 0) {
                        size_t w = j;
                        while (w > 0 && is_ident_byte(m->mask[w - 1]))
                            w--;
                        while (w > 0 && (m->mask[w - 1] == ' ' || m->mask[w - 1] == '\t'))
                            w--;
                        if (w >= 3 && !strncmp(m->mask + w - 3, "def", 3))
                            return 1;
                        break;
                    }
                }
            }
        }
        if (b >= 4 && !strncmp(m->mask + b - 4, "for ", 4))
            return 1;
    }
    return 0;
}

/* The first use, in the kept code, of a name that only a removed assignment binds: its line, or 0. */
static int uses_removed(const kb_py_module *m, const char *keep, const char *name)
{
    size_t k = strlen(name);
    if (bound_here(m, keep, name))
        return 0;
    int line = 1;
    for (size_t i = 0; i + k <= m->len; i++) {
        if (m->src[i] == '\n')
            line++;
        if (keep[i] && kb_py_is_code(m, i) && !strncmp(m->mask + i, name, k) && (i == 0 || !is_ident_byte(m->mask[i - 1])) &&
            (i + k >= m->len || !is_ident_byte(m->mask[i + k]))) {
            size_t b = i;
            while (b > 0 && (m->mask[b - 1] == ' ' || m->mask[b - 1] == '\t'))
                b--;
            if (!(b > 0 && m->mask[b - 1] == '.'))
                return line;
        }
    }
    return 0;
}

static int drop_blind(const kb_py_stmt *st)
{
    return st->kind == KB_PY_ASSIGN ||
           (st->kind == KB_PY_DEF && (!strcmp(st->name, "get_inputs") || !strcmp(st->name, "get_init_inputs")));
}

int kb_prompt_spec(const char *spec, size_t len, int blind, char **out, size_t *out_len, kb_err *err)
{
    kb_py_module m;
    if (kb_py_parse(spec, len, &m, err) != 0)
        return -1;
    char *keep = calloc(len + 1, 1);
    int *drop = calloc(m.n + 1, sizeof *drop);
    if (!keep || !drop) {
        free(keep);
        free(drop);
        kb_py_free(&m);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    size_t i = 0;
    for (; i < m.n && (m.stmts[i].kind == KB_PY_COMMENT || m.stmts[i].kind == KB_PY_BLANK); i++)
        drop[i] = 1; /* the header: this project's notes */
    for (; blind && i < m.n; i++)
        drop[i] = drop_blind(&m.stmts[i]);
    /* a comment block stays with the statement below it */
    for (size_t k = m.n; blind && k-- > 0;) {
        if (m.stmts[k].kind != KB_PY_COMMENT || drop[k])
            continue;
        size_t j = k + 1;
        while (j < m.n && m.stmts[j].kind == KB_PY_BLANK)
            j++;
        drop[k] = j == m.n || (drop[j] && m.stmts[j].kind != KB_PY_BLANK);
    }
    for (size_t k = 0; k < m.n; k++)
        if (!drop[k])
            memset(keep + m.stmts[k].begin, 1, m.stmts[k].end - m.stmts[k].begin);
    int rc = 0;
    for (size_t k = 0; blind && k < m.n && rc == 0; k++) {
        if (m.stmts[k].kind != KB_PY_ASSIGN)
            continue;
        char names[16][64];
        size_t rhs;
        int single;
        size_t nt = kb_py_assign_targets(&m, k, names, 16, &rhs, &single);
        for (size_t t = 0; t < nt && rc == 0; t++) {
            int line = uses_removed(&m, keep, names[t]);
            if (line)
                rc = kb_errf(err, KB_EXIT_FAIL,
                             "input-blind: line %d uses the module constant '%s' (line %d), which an input-blind prompt "
                             "removes: make the class take it as a constructor argument, or clear the problem's "
                             "KB_PROB_INPUT_BLIND flag",
                             line, names[t], m.stmts[k].line);
        }
    }
    /* the kept statements, at most two blank lines in a row, none at the end */
    sbuf b = {0};
    int blank_run = 0;
    for (size_t k = 0; k < m.n && rc == 0; k++) {
        if (drop[k])
            continue;
        if (m.stmts[k].kind == KB_PY_BLANK) {
            blank_run++;
            continue;
        }
        if (b.len)
            for (int r = 0; r < (blank_run > 2 ? 2 : blank_run); r++)
                sb_str(&b, "\n");
        blank_run = 0;
        sb_add(&b, spec + m.stmts[k].begin, m.stmts[k].end - m.stmts[k].begin);
        if (b.len && b.s[b.len - 1] != '\n')
            sb_str(&b, "\n");
    }
    free(keep);
    free(drop);
    kb_py_free(&m);
    if (rc != 0) {
        free(b.s);
        return -1;
    }
    return sb_take(&b, out, out_len, err);
}

/* ---- the constructor -------------------------------------------------------------------------- */

#define MAX_CONSTS 256
#define MAX_ARGS 64

/* Is the flattened value a literal (numbers, strings, tuples and lists of them, True, False,
 * None)? Otherwise *bad gets the first identifier left in it. */
static int literal_value(const char *v, char *bad, size_t n)
{
    int in_str = 0;
    char q = 0;
    for (const char *p = v; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == q)
                in_str = 0;
            continue;
        }
        if (*p == '\'' || *p == '"') {
            in_str = 1;
            q = *p;
            continue;
        }
        if (is_ident_byte((unsigned char)*p) && !(*p >= '0' && *p <= '9')) {
            const char *w = p;
            while (is_ident_byte((unsigned char)*p))
                p++;
            size_t k = (size_t)(p - w);
            int number_part = w > v && ((w[-1] >= '0' && w[-1] <= '9') || w[-1] == '.'); /* 1e-3, 2.5e3 */
            if (!number_part && !(k == 4 && (!strncmp(w, "True", 4) || !strncmp(w, "None", 4))) &&
                !(k == 5 && !strncmp(w, "False", 5))) {
                snprintf(bad, n, "%.*s", (int)k, w);
                return 0;
            }
            p--;
        }
    }
    return 1;
}

int kb_prompt_constructor(const char *spec, size_t len, char **out, kb_err *err)
{
    kb_py_module m;
    if (kb_py_parse(spec, len, &m, err) != 0)
        return -1;
    char *names[MAX_CONSTS] = {0}, *values[MAX_CONSTS] = {0}, *args[MAX_ARGS] = {0};
    char params[MAX_ARGS][64];
    size_t nc = 0, np = 0, na = 0;
    int rc = 0;
    /* module constants, in order: each value with the earlier ones substituted */
    for (size_t k = 0; k < m.n && rc == 0; k++) {
        if (m.stmts[k].kind != KB_PY_ASSIGN)
            continue;
        char t[16][64];
        size_t rhs;
        int single;
        size_t nt = kb_py_assign_targets(&m, k, t, 16, &rhs, &single);
        if (!single)
            continue;
        char *v = kb_py_flatten(&m, rhs, m.stmts[k].end, (const char *const *)names, (const char *const *)values, nc);
        if (!v) {
            rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
            break;
        }
        for (size_t j = 0; j < nt && nc < MAX_CONSTS; j++) {
            names[nc] = strdup(t[j]);
            values[nc] = strdup(v);
            if (!names[nc] || !values[nc])
                rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
            nc++;
        }
        free(v);
    }
    /* Model.__init__'s parameters, self and anything from * on left out */
    long cls = kb_py_find(&m, KB_PY_CLASS, "Model");
    if (rc == 0 && cls < 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "no class Model in the problem file");
    if (rc == 0) {
        const kb_py_stmt *c = &m.stmts[cls];
        long at = kb_py_find_word(&m, c->begin, c->end, "__init__");
        size_t b, e;
        while (at >= 0 && (size_t)at < c->end && m.mask[at] != '(')
            at++;
        if (at >= 0 && (size_t)at < c->end && kb_py_group(&m, (size_t)at, c->end, &b, &e) == 0) {
            size_t items[MAX_ARGS][2];
            size_t ni = kb_py_split_commas(&m, b, e, items, MAX_ARGS);
            for (size_t i = 0; i < ni; i++) {
                const char *p = m.mask + items[i][0];
                if (*p == '*' || *p == '/')
                    break;
                char w[64];
                size_t k = 0;
                while (is_ident_byte((unsigned char)p[k]) && k + 1 < sizeof w)
                    w[k] = p[k], k++;
                w[k] = '\0';
                if (strcmp(w, "self") != 0)
                    snprintf(params[np++], sizeof params[0], "%s", w);
            }
        }
    }
    /* get_init_inputs(): return [v, ...] */
    long gi = rc == 0 ? kb_py_find(&m, KB_PY_DEF, "get_init_inputs") : -1;
    if (rc == 0 && gi < 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "no get_init_inputs() in the problem file: the constructor's arguments are unknown");
    if (rc == 0) {
        const kb_py_stmt *g = &m.stmts[gi];
        long r = kb_py_find_word(&m, g->begin, g->end, "return");
        size_t b = r >= 0 ? (size_t)r + 6 : 0, e = b;
        while (r >= 0 && b < g->end && (m.mask[b] == ' ' || m.mask[b] == '\t'))
            b++;
        size_t gb, ge;
        if (r < 0 || (m.mask[b] != '[' && m.mask[b] != '(') || kb_py_group(&m, b, g->end, &gb, &ge) != 0) {
            rc = kb_errf(err, KB_EXIT_FAIL, "get_init_inputs() (line %d) is not `return [value, ...]`", g->line);
        } else {
            e = ge + 1;
            for (size_t t = e; t < g->end; t++)
                if (kb_py_is_code(&m, t) && m.mask[t] != ' ' && m.mask[t] != '\t' && m.mask[t] != '\n' &&
                    m.mask[t] != '\r')
                    rc = kb_errf(err, KB_EXIT_FAIL, "get_init_inputs() (line %d) holds more than `return [value, ...]`",
                                 g->line);
            size_t items[MAX_ARGS][2];
            size_t ni = rc == 0 ? kb_py_split_commas(&m, gb, ge, items, MAX_ARGS) : 0;
            for (size_t i = 0; i < ni && rc == 0; i++) {
                args[na] = kb_py_flatten(&m, items[i][0], items[i][1], (const char *const *)names,
                                         (const char *const *)values, nc);
                char bad[64];
                if (!args[na])
                    rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
                else if (!literal_value(args[na], bad, sizeof bad))
                    rc = kb_errf(err, KB_EXIT_FAIL, "get_init_inputs() (line %d): cannot resolve '%s' to a value",
                                 g->line, bad);
                na++;
            }
        }
    }
    sbuf b = {0};
    if (rc == 0) {
        sb_str(&b, "Model(");
        for (size_t i = 0; i < na; i++) {
            if (i)
                sb_str(&b, ", ");
            if (na <= np)
                sb_printf(&b, "%s=", params[i]);
            sb_str(&b, args[i]);
        }
        sb_str(&b, ")");
    }
    for (size_t i = 0; i < nc; i++) {
        free(names[i]);
        free(values[i]);
    }
    for (size_t i = 0; i < na; i++)
        free(args[i]);
    kb_py_free(&m);
    if (rc != 0) {
        free(b.s);
        return -1;
    }
    return sb_take(&b, out, NULL, err);
}

/* ---- the descriptor in words -------------------------------------------------------------------- */

static const char *dtype_name(kb_dtype t)
{
    static const char *const n[] = {"float32", "float16", "bfloat16", "float64", "int64", "int32", "bool"};
    return (unsigned)t < sizeof n / sizeof n[0] ? n[t] : "?";
}

/* "(32768, 32768)", "(32768,)", "()" */
static void shape_text(const kb_tensor_spec *t, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int32_t d = 0; d < t->ndim && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, "%s%" PRId64, d ? ", " : "", t->shape[d]);
    if (k < n)
        snprintf(buf + k, n - k, "%s)", t->ndim == 1 ? "," : "");
}

static int is_number_arg(const kb_tensor_spec *t) { return t->role == KB_ROLE_INPUT && t->ndim == 0; }

static const char *number_kind(kb_dtype t) { return t == KB_F32 || t == KB_F64 || t == KB_F16 || t == KB_BF16 ? "float" : "int"; }

/* The forward() arguments, one "- name: ..." line each. */
static void forward_args(const kb_problem *p, sbuf *b)
{
    for (uint32_t i = 0; i < p->n_inputs; i++) {
        const kb_tensor_spec *t = &p->inputs[i];
        if (t->role != KB_ROLE_INPUT)
            continue;
        char sh[256];
        shape_text(t, sh, sizeof sh);
        if (is_number_arg(t))
            sb_printf(b, "- %s: a Python %s\n", t->name, number_kind(t->dtype));
        else
            sb_printf(b, "- %s: %s tensor of shape %s\n", t->name, dtype_name(t->dtype), sh);
    }
}

/* What forward() returns, one line per output. */
static void returns(const kb_problem *p, sbuf *b)
{
    for (uint32_t i = 0; i < p->n_outputs; i++) {
        const kb_tensor_spec *t = &p->outputs[i];
        char sh[256];
        shape_text(t, sh, sizeof sh);
        if (p->n_outputs > 1)
            sb_printf(b, "- output %u (%s): ", i, t->name);
        else
            sb_str(b, t->dtype == KB_I64 || t->dtype == KB_I32 ? "- an " : "- a ");
        sb_printf(b, "%s tensor of shape %s%s\n", dtype_name(t->dtype), sh, t->ndim == 0 ? " (0-d: one value)" : "");
    }
}

/* The abi table: where kb_forward finds each tensor, its dtype, shape and role. */
static void tensor_table(const kb_problem *p, sbuf *b)
{
    size_t wl = 0, wn = 0, wd = 0, ws = 0;
    char sh[256], left[64];
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < p->n_inputs + p->n_outputs; i++) {
            int in = i < p->n_inputs;
            const kb_tensor_spec *t = in ? &p->inputs[i] : &p->outputs[i - p->n_inputs];
            snprintf(left, sizeof left, "args->%s[%u]", in ? "inputs" : "outputs", in ? i : i - p->n_inputs);
            shape_text(t, sh, sizeof sh);
            if (pass == 0) {
                wl = strlen(left) > wl ? strlen(left) : wl;
                wn = strlen(t->name) > wn ? strlen(t->name) : wn;
                wd = strlen(dtype_name(t->dtype)) > wd ? strlen(dtype_name(t->dtype)) : wd;
                ws = strlen(sh) > ws ? strlen(sh) : ws;
                continue;
            }
            const char *role = !in ? "output"
                               : t->role == KB_ROLE_PARAM ? "parameter of Model"
                               : t->role == KB_ROLE_STATE ? "state of Model (a buffer or tensor attribute; may be updated in place)"
                               : is_number_arg(t)         ? "forward() argument (a Python number, as a one-element tensor)"
                                                          : "forward() argument";
            sb_printf(b, "  %-*s  %-*s  %-*s  %-*s  %s\n", (int)wl, left, (int)wn, t->name, (int)wd, dtype_name(t->dtype),
                      (int)ws, sh, role);
        }
    }
}

/* ---- templates ---------------------------------------------------------------------------------- */

typedef struct render {
    const kb_prompt_in *in;
    int blind;
    char *spec;        /* the spec as shown */
    char *constructor; /* "Model(...)", input-blind only */
    const char *tpath; /* the template, for messages */
    int line;
} render;

/* A block (file contents) ends with one newline. */
static void add_block(sbuf *b, const char *s, size_t n)
{
    sb_add(b, s, n);
    if (n && s[n - 1] != '\n')
        sb_str(b, "\n");
}

static int add_file(render *r, sbuf *b, const char *path, kb_err *err)
{
    size_t n;
    kb_err e = {0};
    char *s = kb_read_file(path, &n, &e);
    if (!s)
        return kb_errf(err, e.code, "%s:%d: %s", r->tpath, r->line, e.msg);
    add_block(b, s, n);
    free(s);
    return 0;
}

/* The value of placeholder `name` (block: the line held only it). */
static int expand(render *r, const char *name, int block, sbuf *b, kb_err *err)
{
    const kb_problem *p = r->in->problem;
    if (!strncmp(name, "file ", 5)) {
        const char *rel = name + 5;
        if (!block || rel[0] == '/' || strstr(rel, ".."))
            return kb_errf(err, KB_EXIT_FAIL, "%s:%d: @@file %s@@ must stand alone on its line and name a file under %s",
                           r->tpath, r->line, rel, r->in->templates);
        char path[4096];
        if (kb_fmt(path, sizeof path, "%s/%s", r->in->templates, rel) < 0)
            return kb_errf(err, KB_EXIT_FAIL, "path too long: %s/%s", r->in->templates, rel);
        return add_file(r, b, path, err);
    }
    if (!strcmp(name, "ABI_HEADER") && block)
        return add_file(r, b, r->in->abi_header, err);
    if (!strcmp(name, "SPEC") && block) {
        sb_str(b, r->spec);
        return 0;
    }
    if (!strcmp(name, "FORWARD_ARGS") && block) {
        forward_args(p, b);
        return 0;
    }
    if (!strcmp(name, "RETURNS") && block) {
        returns(p, b);
        return 0;
    }
    if (!strcmp(name, "TENSORS") && block) {
        tensor_table(p, b);
        return 0;
    }
    if (!strcmp(name, "CONSTRUCTOR") && !block) {
        if (!r->constructor)
            return kb_errf(err, KB_EXIT_FAIL, "%s:%d: @@CONSTRUCTOR@@ is for input-blind prompts (inside @@if input_blind@@)",
                           r->tpath, r->line);
        sb_str(b, r->constructor);
        return 0;
    }
    return kb_errf(err, KB_EXIT_FAIL,
                   "%s:%d: unknown placeholder @@%s@@%s (blocks, alone on a line: SPEC, FORWARD_ARGS, RETURNS, TENSORS, "
                   "ABI_HEADER, file PATH; in a line: CONSTRUCTOR)",
                   r->tpath, r->line, name, block ? " as a block" : " in a line");
}

/* The first "@@" in [s, s + n), or NULL. */
static const char *find_marker(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '@' && s[i + 1] == '@')
            return s + i;
    return NULL;
}

/* One template line (without its newline) into b. */
static int render_line(render *r, const char *s, size_t n, sbuf *b, kb_err *err)
{
    size_t t = n;
    while (t > 0 && (s[t - 1] == ' ' || s[t - 1] == '\t'))
        t--;
    if (t >= 4 && !strncmp(s, "@@", 2) && !strncmp(s + t - 2, "@@", 2) && !memchr(s + 2, '@', t - 4)) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(t - 4), s + 2);
        return expand(r, name, 1, b, err);
    }
    for (size_t i = 0; i < n;) {
        const char *open = find_marker(s + i, n - i);
        if (!open) {
            sb_add(b, s + i, n - i);
            break;
        }
        size_t o = (size_t)(open - s);
        const char *close = find_marker(s + o + 2, n - o - 2);
        if (!close)
            return kb_errf(err, KB_EXIT_FAIL, "%s:%d: unclosed @@ placeholder", r->tpath, r->line);
        sb_add(b, s + i, o - i);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(close - open - 2), open + 2);
        if (expand(r, name, 0, b, err) != 0)
            return -1;
        i = (size_t)(close - s) + 2;
    }
    sb_str(b, "\n");
    return 0;
}

static int directive(const char *s, size_t n, const char *word)
{
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return n == strlen(word) && !strncmp(s, word, n);
}

int kb_prompt_render(const kb_prompt_in *in, char **out, size_t *len, kb_err *err)
{
    render r = {.in = in, .blind = in->blind >= 0 ? in->blind : (in->problem->flags & KB_PROB_INPUT_BLIND) != 0};
    char tpath[4096];
    if (kb_fmt(tpath, sizeof tpath, "%s/%s.txt", in->templates, kb_style_name(in->style)) < 0)
        return kb_errf(err, KB_EXIT_FAIL, "path too long: %s", in->templates);
    r.tpath = tpath;
    size_t tlen;
    char *tpl = kb_read_file(tpath, &tlen, err);
    if (!tpl)
        return -1;
    kb_err e = {0};
    if (kb_prompt_spec(in->spec, in->spec_len, r.blind, &r.spec, NULL, &e) != 0 ||
        (r.blind && kb_prompt_constructor(in->spec, in->spec_len, &r.constructor, &e) != 0)) {
        free(tpl);
        free(r.spec);
        return kb_errf(err, e.code, "%s: %s", in->spec_path ? in->spec_path : "the problem's .py", e.msg);
    }
    sbuf b = {0};
    int rc = 0, in_if = 0, active = 1;
    for (size_t i = 0; i < tlen && rc == 0;) {
        const char *nl = memchr(tpl + i, '\n', tlen - i);
        size_t n = nl ? (size_t)(nl - tpl) - i : tlen - i;
        const char *s = tpl + i;
        r.line++;
        if (directive(s, n, "@@if input_blind@@") || directive(s, n, "@@if not input_blind@@")) {
            if (in_if)
                rc = kb_errf(err, KB_EXIT_FAIL, "%s:%d: @@if@@ inside @@if@@ (no nesting)", tpath, r.line);
            in_if = 1;
            active = s[5] == 'n' ? !r.blind : r.blind;
        } else if (directive(s, n, "@@else@@")) {
            if (!in_if)
                rc = kb_errf(err, KB_EXIT_FAIL, "%s:%d: @@else@@ without @@if@@", tpath, r.line);
            active = !active;
        } else if (directive(s, n, "@@end@@")) {
            if (!in_if)
                rc = kb_errf(err, KB_EXIT_FAIL, "%s:%d: @@end@@ without @@if@@", tpath, r.line);
            in_if = 0;
            active = 1;
        } else if (n >= 3 && !strncmp(s, "@@#", 3)) {
            /* a template comment */
        } else if (active) {
            rc = render_line(&r, s, n, &b, err);
        }
        i += n + (nl != NULL);
    }
    if (rc == 0 && in_if)
        rc = kb_errf(err, KB_EXIT_FAIL, "%s: @@if@@ without @@end@@", tpath);
    free(tpl);
    free(r.spec);
    free(r.constructor);
    if (rc != 0) {
        free(b.s);
        return -1;
    }
    return sb_take(&b, out, len, err);
}
