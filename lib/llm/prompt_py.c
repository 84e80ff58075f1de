/* prompt_py.c -- see kb_prompt_py.h. */
#include "llm/kb_prompt_py.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_BYTE '$' /* not valid in Python code outside strings, not an identifier byte */

static int is_ident(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

int kb_py_is_code(const kb_py_module *m, size_t i)
{
    return i < m->len && m->mask[i] == m->src[i] && m->mask[i] != STR_BYTE; /* a comment's bytes are blanks */
}

/* The mask, and for every byte that begins a line whether a logical line starts there (no open
 * bracket, string or backslash continuation carried into it). */
static void lex(const char *s, size_t n, char *mask, unsigned char *starts)
{
    int depth = 0, cont = 0, at_line = 1, triple = 0, str_cont = 0;
    char q = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (at_line) {
            starts[i] = !q && depth == 0 && !cont;
            at_line = 0;
            cont = 0;
        }
        mask[i] = c;
        if (c == '\n') {
            if (q && !triple && !str_cont)
                q = 0; /* an unterminated one-line string ends with its line */
            str_cont = 0;
            at_line = 1;
            continue;
        }
        if (q) {
            mask[i] = STR_BYTE;
            if (c == '\\' && i + 1 < n) {
                if (s[i + 1] == '\n')
                    str_cont = 1;
                else
                    mask[++i] = STR_BYTE;
            } else if (c == q && (!triple || (i + 2 < n && s[i + 1] == q && s[i + 2] == q))) {
                if (triple) {
                    mask[++i] = STR_BYTE;
                    mask[++i] = STR_BYTE;
                }
                q = 0;
            }
            continue;
        }
        if (c == '#') {
            for (; i < n && s[i] != '\n'; i++)
                mask[i] = ' ';
            i--;
            continue;
        }
        if (c == '\'' || c == '"') {
            q = c;
            mask[i] = STR_BYTE;
            triple = i + 2 < n && s[i + 1] == c && s[i + 2] == c;
            if (triple) {
                mask[++i] = STR_BYTE;
                mask[++i] = STR_BYTE;
            }
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            depth--;
        else if (c == '\\' && i + 1 < n && s[i + 1] == '\n')
            cont = 1;
    }
}

/* Does the masked line at p start with keyword kw followed by a space? */
static int starts_kw(const char *p, const char *e, const char *kw)
{
    size_t k = strlen(kw);
    return (size_t)(e - p) > k && !strncmp(p, kw, k) && is_space(p[k]);
}

static void copy_ident(char *dst, size_t cap, const char *p, const char *e)
{
    size_t k = 0;
    while (p < e && is_space(*p))
        p++;
    while (p < e && is_ident(*p) && k + 1 < cap)
        dst[k++] = *p++;
    dst[k] = '\0';
}

static kb_py_kind classify(const kb_py_module *m, kb_py_stmt *st, const char *p, const char *e)
{
    if (starts_kw(p, e, "import") || starts_kw(p, e, "from"))
        return KB_PY_IMPORT;
    if (starts_kw(p, e, "class")) {
        copy_ident(st->name, sizeof st->name, p + 5, e);
        return KB_PY_CLASS;
    }
    if (starts_kw(p, e, "def")) {
        copy_ident(st->name, sizeof st->name, p + 3, e);
        return KB_PY_DEF;
    }
    if (starts_kw(p, e, "async")) {
        const char *d = p + 5;
        while (d < e && is_space(*d))
            d++;
        if (starts_kw(d, e, "def")) {
            copy_ident(st->name, sizeof st->name, d + 3, e);
            return KB_PY_DEF;
        }
    }
    char names[1][64];
    size_t rhs;
    int single;
    /* kb_py_assign_targets reads st through m: the caller has stored it */
    if (kb_py_assign_targets(m, (size_t)(st - m->stmts), names, 1, &rhs, &single) > 0) {
        snprintf(st->name, sizeof st->name, "%s", names[0]);
        return KB_PY_ASSIGN;
    }
    return KB_PY_OTHER;
}

static int push(kb_py_module *m, size_t *cap, kb_py_kind kind, size_t b, size_t e, int line)
{
    if (m->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        kb_py_stmt *v = realloc(m->stmts, nc * sizeof *v);
        if (!v)
            return -1;
        m->stmts = v;
        *cap = nc;
    }
    kb_py_stmt *st = &m->stmts[m->n++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    st->begin = b;
    st->end = e;
    st->line = line;
    return 0;
}

/* n blank or comment lines from offset b (first line `line`), one statement each. */
static int flush_pending(kb_py_module *m, size_t *cap, size_t b, size_t n, int line)
{
    for (size_t k = 0; k < n; k++, line++) {
        const char *nl = memchr(m->src + b, '\n', m->len - b);
        size_t e = nl ? (size_t)(nl - m->src) + 1 : m->len, p = b;
        while (p < e && is_space(m->src[p]))
            p++;
        if (push(m, cap, p < e && m->src[p] == '#' ? KB_PY_COMMENT : KB_PY_BLANK, b, e, line) != 0)
            return -1;
        b = e;
    }
    return 0;
}

int kb_py_parse(const char *src, size_t len, kb_py_module *m, kb_err *err)
{
    memset(m, 0, sizeof *m);
    m->src = src;
    m->len = len;
    m->mask = malloc(len + 1);
    unsigned char *starts = calloc(len + 1, 1);
    if (!m->mask || !starts) {
        free(starts);
        kb_py_free(m);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    lex(src, len, m->mask, starts);
    m->mask[len] = '\0';
    size_t cap = 0, pend_b = 0, pend_n = 0; /* blank/comment lines not yet placed */
    int pend_line = 0, line = 1;
    long cur = -1; /* the statement indented lines continue */
    for (size_t ls = 0; ls < len; line++) {
        const char *nl = memchr(src + ls, '\n', len - ls);
        size_t le = nl ? (size_t)(nl - src) : len, next = nl ? le + 1 : len;
        const char *p = m->mask + ls, *e = m->mask + le;
        const char *q = p;
        while (q < e && is_space(*q))
            q++;
        int rc = 0;
        if (!starts[ls] && cur >= 0) {
            m->stmts[cur].end = next; /* inside a bracket, string or continuation */
        } else if (q == e) {
            if (!pend_n) {
                pend_b = ls;
                pend_line = line;
            }
            pend_n++;
        } else if (q > p && cur >= 0) {
            m->stmts[cur].end = next; /* the body goes on: pending lines are part of it */
            pend_n = 0;
        } else {
            /* a new statement: the pending lines stand alone, one statement each */
            rc = flush_pending(m, &cap, pend_b, pend_n, pend_line);
            pend_n = 0;
            if (rc == 0 && (rc = push(m, &cap, KB_PY_OTHER, ls, next, line)) == 0) {
                cur = (long)m->n - 1;
                kb_py_stmt *st = &m->stmts[cur];
                st->kind = classify(m, st, p, e);
            }
        }
        if (rc != 0) {
            free(starts);
            kb_py_free(m);
            return kb_errf(err, KB_EXIT_FAIL, "out of memory");
        }
        ls = next;
    }
    free(starts);
    if (flush_pending(m, &cap, pend_b, pend_n, pend_line) != 0) {
        kb_py_free(m);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    return 0;
}

void kb_py_free(kb_py_module *m)
{
    free(m->mask);
    free(m->stmts);
    memset(m, 0, sizeof *m);
}

long kb_py_find(const kb_py_module *m, kb_py_kind kind, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->stmts[i].kind == kind && !strcmp(m->stmts[i].name, name))
            return (long)i;
    return -1;
}

size_t kb_py_assign_targets(const kb_py_module *m, size_t k, char (*names)[64], size_t max, size_t *rhs, int *single)
{
    const kb_py_stmt *st = &m->stmts[k];
    const char *s = m->mask, *p = s + st->begin, *e = s + st->end;
    size_t n = 0, groups = 0;
    int tuple = 0;
    *single = 1;
    for (;;) {
        /* one target group: NAME or NAME, NAME, ... then '=' (not '==') */
        const char *g = p;
        size_t in_group = 0, n0 = n;
        for (;;) {
            while (p < e && is_space(*p))
                p++;
            if (p >= e || !is_ident(*p) || (*p >= '0' && *p <= '9'))
                break;
            const char *w = p;
            while (p < e && is_ident(*p))
                p++;
            if (n < max) {
                size_t wl = (size_t)(p - w) < 63 ? (size_t)(p - w) : 63;
                memcpy(names[n], w, wl);
                names[n][wl] = '\0';
            }
            n++;
            in_group++;
            while (p < e && is_space(*p))
                p++;
            if (p < e && *p == ',') {
                p++;
                continue;
            }
            break;
        }
        if (in_group && p + 1 < e && p[0] == '=' && p[1] != '=') {
            p++;
            groups++;
            tuple |= in_group > 1;
            *rhs = (size_t)(p - s);
            continue;
        }
        n = n0; /* not a target group: it is the value */
        p = g;
        break;
    }
    if (!groups)
        return 0;
    *single = !tuple;
    while (*rhs < st->end && is_space(s[*rhs]))
        (*rhs)++;
    return n < max ? n : max;
}

char *kb_py_flatten(const kb_py_module *m, size_t begin, size_t end, const char *const *names, const char *const *values,
                    size_t n)
{
    size_t cap = 2 * (end - begin) + 64, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    int space = 0;
    for (size_t i = begin; i < end;) {
        char c = m->mask[i];
        const char *add = NULL;
        size_t add_len = 0, step = 1;
        if (c == STR_BYTE) {
            add = m->src + i;
            add_len = 1;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
            space = len > 0; /* comments are blanks in the mask; a continuation is a space */
        } else if (is_ident(c) && !(i > begin && is_ident(m->mask[i - 1]))) {
            size_t w = i;
            while (w < end && is_ident(m->mask[w]))
                w++;
            add = m->src + i;
            add_len = step = w - i;
            size_t before = i;
            while (before > begin && (m->mask[before - 1] == ' ' || m->mask[before - 1] == '\t'))
                before--;
            int attr = before > begin && m->mask[before - 1] == '.';
            for (size_t k = 0; k < n && !attr; k++)
                if (strlen(names[k]) == add_len && !strncmp(names[k], add, add_len)) {
                    add = values[k];
                    add_len = strlen(values[k]);
                    break;
                }
        } else {
            add = m->src + i;
            add_len = 1;
        }
        if (add) {
            if (len + add_len + 2 > cap) {
                cap = 2 * (len + add_len + 2);
                char *v = realloc(out, cap);
                if (!v) {
                    free(out);
                    return NULL;
                }
                out = v;
            }
            if (space)
                out[len++] = ' ';
            space = 0;
            memcpy(out + len, add, add_len);
            len += add_len;
        }
        i += step;
    }
    out[len] = '\0';
    return out;
}

int kb_py_group(const kb_py_module *m, size_t open, size_t limit, size_t *b, size_t *e)
{
    int depth = 0;
    for (size_t i = open; i < limit && i < m->len; i++) {
        char c = m->mask[i];
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) {
                *b = open + 1;
                *e = i;
                return 0;
            }
        }
    }
    return -1;
}

size_t kb_py_split_commas(const kb_py_module *m, size_t begin, size_t end, size_t (*items)[2], size_t max)
{
    size_t n = 0, start = begin;
    int depth = 0;
    for (size_t i = begin; i <= end; i++) {
        char c = i < end ? m->mask[i] : ',';
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            depth--;
        else if (c == ',' && depth == 0) {
            size_t b = start, e = i;
            while (b < e && (is_space(m->mask[b]) || m->mask[b] == '\n'))
                b++;
            while (e > b && (is_space(m->mask[e - 1]) || m->mask[e - 1] == '\n'))
                e--;
            if (e > b && n < max) {
                items[n][0] = b;
                items[n][1] = e;
                n++;
            }
            start = i + 1;
        }
    }
    return n;
}

long kb_py_find_word(const kb_py_module *m, size_t begin, size_t end, const char *word)
{
    size_t k = strlen(word);
    for (size_t i = begin; i + k <= end; i++)
        if (!strncmp(m->mask + i, word, k) && (i == 0 || !is_ident(m->mask[i - 1])) &&
            (i + k >= m->len || !is_ident(m->mask[i + k])))
            return (long)i;
    return -1;
}
