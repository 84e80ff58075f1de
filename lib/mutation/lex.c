/* lex.c -- the mutation scanner (C/CUDA tokens) and the CUDA regions of a .py (kb_mutate.h). */
#include "mutation/kb_mutate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the scanner ------------------------------------------------------------------------------ */

static int push_tok(kb_toks *t, kb_tok tk)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        kb_tok *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = tk;
    return 0;
}

void kb_toks_free(kb_toks *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}

static const char *const PUNCT3[] = {"<<<", ">>>", "<<=", ">>=", "...", "->*"};
static const char *const PUNCT2[] = {"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
                                     "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "##"};

static int ident_start(int c) { return isalpha(c) || c == '_'; }
static int ident_char(int c) { return isalnum(c) || c == '_'; }

int kb_mut_tokenize(const char *s, size_t lo, size_t hi, int line, kb_toks *t, kb_err *err)
{
    size_t i = lo, first = t->n, line_start = lo;
    int pp = 0, bol = 1, pp_words = 0; /* pp_words: tokens on the current preprocessor line */
    while (i < hi) {
        char c = s[i];
        if (c == '\n') {
            /* a preprocessor line ends at a newline not escaped by a backslash */
            if (!(i > lo && s[i - 1] == '\\'))
                pp = 0;
            line++;
            line_start = ++i;
            bol = 1;
            continue;
        }
        if (isspace((unsigned char)c)) {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < hi && s[i + 1] == '/') { /* line comment (a trailing \ continues it) */
            while (i < hi && !(s[i] == '\n' && s[i - 1] != '\\'))
                i++;
            continue;
        }
        if (c == '/' && i + 1 < hi && s[i + 1] == '*') {
            i += 2;
            while (i < hi && !(s[i] == '*' && i + 1 < hi && s[i + 1] == '/')) {
                if (s[i] == '\n') {
                    line++;
                    line_start = i + 1;
                }
                i++;
            }
            i = i + 2 < hi ? i + 2 : hi;
            continue;
        }
        kb_tok tk = {.off = i, .line = line, .col = (int)(i - line_start) + 1, .match = -1};
        if (c == '#' && bol) {
            pp = 1;
            pp_words = 0;
        }
        bol = 0;
        if (ident_start((unsigned char)c)) {
            while (i < hi && ident_char((unsigned char)s[i]))
                i++;
            tk.kind = KB_TK_IDENT;
            /* a raw string R"d(...)d", u8"..", L'x': the prefix belongs to the literal */
            if (i < hi && (s[i] == '"' || s[i] == '\'')) {
                size_t plen = i - tk.off;
                int raw = s[i - 1] == 'R';
                if (plen <= 3 && (raw || strchr("uUL8", s[i - 1]))) {
                    if (raw && s[i] == '"') {
                        size_t d0 = i + 1, d1 = d0;
                        while (d1 < hi && s[d1] != '(')
                            d1++;
                        size_t dl = d1 - d0, k = d1 + 1;
                        while (k < hi && !(s[k] == ')' && k + dl + 1 < hi + 1 && !strncmp(s + k + 1, s + d0, dl) &&
                                           s[k + 1 + dl] == '"')) {
                            if (s[k] == '\n') {
                                line++;
                                line_start = k + 1;
                            }
                            k++;
                        }
                        i = k + dl + 2 < hi ? k + dl + 2 : hi;
                        tk.kind = KB_TK_STRING;
                        goto done;
                    }
                    c = s[i];
                    goto quoted;
                }
            }
        } else if (isdigit((unsigned char)c) || (c == '.' && i + 1 < hi && isdigit((unsigned char)s[i + 1]))) {
            int hex = c == '0' && i + 1 < hi && (s[i + 1] == 'x' || s[i + 1] == 'X');
            while (i < hi) {
                char d = s[i];
                if (ident_char((unsigned char)d) || d == '.' || d == '\'')
                    i++;
                else if ((d == '+' || d == '-') && (hex ? strchr("pP", s[i - 1]) : strchr("eE", s[i - 1])))
                    i++;
                else
                    break;
            }
            tk.kind = KB_TK_NUMBER;
        } else if (c == '"' || c == '\'') {
        quoted:
            tk.kind = c == '"' ? KB_TK_STRING : KB_TK_CHAR;
            i++;
            while (i < hi && s[i] != c && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < hi)
                    i++;
                i++;
            }
            if (i < hi && s[i] == c)
                i++;
        } else {
            tk.kind = KB_TK_PUNCT;
            size_t l = 1;
            for (size_t k = 0; k < sizeof PUNCT3 / sizeof *PUNCT3 && l == 1; k++)
                if (i + 3 <= hi && !strncmp(s + i, PUNCT3[k], 3))
                    l = 3;
            for (size_t k = 0; k < sizeof PUNCT2 / sizeof *PUNCT2 && l == 1; k++)
                if (i + 2 <= hi && !strncmp(s + i, PUNCT2[k], 2))
                    l = 2;
            i += l;
        }
    done:
        tk.len = i - tk.off;
        if (pp) {
            pp_words++;
            tk.pp = 1;
        }
        if (push_tok(t, tk) != 0)
            return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    /* #define bodies: the tokens of a pp line after "# define NAME" */
    for (size_t k = first; k + 2 < t->n; k++) {
        kb_tok *a = &t->v[k];
        if (a->pp && a->len == 1 && s[a->off] == '#' && t->v[k + 1].pp && t->v[k + 1].len == 6 &&
            !strncmp(s + t->v[k + 1].off, "define", 6)) {
            int l = t->v[k + 1].line;
            size_t j = k + 3;
            /* the body continues over escaped newlines: tokens marked pp right after */
            while (j < t->n && t->v[j].pp == 1 && !(t->v[j].len == 1 && s[t->v[j].off] == '#' && t->v[j].line != l)) {
                t->v[j].pp = 2;
                j++;
            }
        }
    }
    /* brackets */
    long *stack = malloc((t->n - first + 1) * sizeof *stack);
    if (!stack)
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    size_t sp = 0;
    for (size_t k = first; k < t->n; k++) {
        kb_tok *a = &t->v[k];
        if (a->kind != KB_TK_PUNCT || a->len != 1 || a->pp)
            continue;
        char c = s[a->off];
        if (c == '(' || c == '[' || c == '{')
            stack[sp++] = (long)k;
        else if (c == ')' || c == ']' || c == '}') {
            char open = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (sp && s[t->v[stack[sp - 1]].off] == open) {
                sp--;
                t->v[stack[sp]].match = (long)k;
                a->match = stack[sp];
            } else {
                sp = 0; /* unbalanced: give up on what is open */
            }
        }
    }
    free(stack);
    return 0;
}

/* ---- the regions of a .py --------------------------------------------------------------------- */

typedef struct pystr {
    size_t start;  /* the literal's first byte (its prefix) */
    size_t lo, hi; /* the content, without prefix and quotes */
    int triple, line;
    size_t name_off, name_len; /* NAME of "NAME = <this literal>" at a line's start, else len 0 */
    size_t after;              /* the offset after the literal */
} pystr;

/* Python tokens that matter here: strings (with their prefix), comments skipped. Names are found
 * by looking back from a literal. */
static int py_strings(const char *s, size_t n, pystr **out, size_t *count)
{
    size_t cap = 16, k = 0;
    pystr *v = malloc(cap * sizeof *v);
    if (!v)
        return -1;
    int line = 1;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '\n') {
            line++;
            i++;
            continue;
        }
        if (c == '#') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        size_t p = i;
        while (p < n && p - i < 3 && strchr("rRbBuUfF", s[p]))
            p++;
        if (p < n && (s[p] == '"' || s[p] == '\'') && (p == i || i == 0 || !ident_char((unsigned char)s[i - 1]))) {
            int raw = memchr(s + i, 'r', p - i) || memchr(s + i, 'R', p - i);
            char q = s[p];
            int triple = p + 2 < n && s[p + 1] == q && s[p + 2] == q;
            size_t lo = p + (triple ? 3 : 1), j = lo;
            int l0 = line;
            while (j < n) {
                if (s[j] == '\\' && !raw) {
                    j += 2;
                    continue;
                }
                if (s[j] == '\\' && raw) { /* a raw string still cannot end at an escaped quote */
                    j += 2;
                    continue;
                }
                if (s[j] == '\n') {
                    if (!triple)
                        break;
                    line++;
                }
                if (s[j] == q && (!triple || (j + 2 < n && s[j + 1] == q && s[j + 2] == q)))
                    break;
                j++;
            }
            if (j > n)
                j = n;
            if (k == cap) {
                pystr *w = realloc(v, (cap *= 2) * sizeof *v);
                if (!w) {
                    free(v);
                    return -1;
                }
                v = w;
            }
            pystr ps = {.start = i, .lo = lo, .hi = j, .triple = triple, .line = l0};
            ps.after = j + (j < n ? (triple ? 3 : 1) : 0);
            /* NAME = at the start of this line */
            size_t b = i;
            while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t'))
                b--;
            if (b > 0 && s[b - 1] == '=' && !(b > 1 && strchr("=!<>+-*/", s[b - 2]))) {
                size_t e = b - 1;
                while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '\t'))
                    e--;
                size_t a = e;
                while (a > 0 && ident_char((unsigned char)s[a - 1]))
                    a--;
                size_t ls = a;
                while (ls > 0 && (s[ls - 1] == ' ' || s[ls - 1] == '\t'))
                    ls--;
                if (a < e && (ls == 0 || s[ls - 1] == '\n')) {
                    ps.name_off = a;
                    ps.name_len = e - a;
                }
            }
            v[k++] = ps;
            i = ps.after;
            continue;
        }
        i = p > i ? p : i + 1;
    }
    *out = v;
    *count = k;
    return 0;
}

/* 1 for the bytes of Python strings and comments: what is not code */
static char *py_mask(const char *s, size_t n, const pystr *v, size_t nv)
{
    char *m = calloc(n + 1, 1);
    if (!m)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        while (k < nv && v[k].start < i)
            k++;
        if (k < nv && v[k].start == i) {
            memset(m + i, 1, v[k].after - i);
            i = v[k].after;
        } else if (s[i] == '#') {
            while (i < n && s[i] != '\n')
                m[i++] = 1;
        } else {
            i++;
        }
    }
    return m;
}

/* Is word w at offset i of s a whole identifier? */
static int word_at(const char *s, size_t n, size_t i, const char *w)
{
    size_t l = strlen(w);
    return i + l <= n && !strncmp(s + i, w, l) && (i == 0 || !ident_char((unsigned char)s[i - 1])) &&
           (i + l == n || !ident_char((unsigned char)s[i + l]));
}

int kb_mut_regions(const char *s, size_t n, int is_py, kb_region **regions, kb_err *err)
{
    if (!is_py) {
        *regions = malloc(sizeof **regions);
        if (!*regions)
            return kb_errf(err, KB_EXIT_FAIL, "out of memory");
        (*regions)[0] = (kb_region){0, n, 1};
        return 1;
    }
    pystr *v;
    size_t nv;
    if (py_strings(s, n, &v, &nv) != 0)
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    char *want = calloc(nv + 1, 1); /* which literals are CUDA sources */
    char *mask = py_mask(s, n, v, nv);
    if (!want || !mask) {
        free(want);
        free(mask);
        free(v);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (mask[i] || !word_at(s, n, i, "cuda_sources"))
            continue;
        size_t j = i + 12;
        while (j < n && isspace((unsigned char)s[j]))
            j++;
        if (j >= n || s[j] != '=' || (j + 1 < n && s[j + 1] == '='))
            continue;
        j++;
        /* the value: a literal, a name, or [a, b, ...] of those, up to the closing bracket or a comma */
        int depth = 0;
        for (; j < n; j++) {
            char c = s[j];
            int lit = -1;
            for (size_t k = 0; k < nv && lit < 0; k++)
                if (v[k].start == j)
                    lit = (int)k;
            if (lit >= 0) {
                want[lit] = 1;
                j = v[lit].after - 1;
                continue;
            }
            if (mask[j])
                continue;
            if (c == '[' || c == '(')
                depth++;
            else if ((c == ']' || c == ')') && --depth < 0)
                break;
            else if (c == ',' && depth == 0)
                break;
            if (ident_start((unsigned char)c) && (j == 0 || !ident_char((unsigned char)s[j - 1]))) {
                size_t e = j;
                while (e < n && ident_char((unsigned char)s[e]))
                    e++;
                for (size_t k = 0; k < nv; k++)
                    if (v[k].name_len == e - j && !strncmp(s + v[k].name_off, s + j, e - j))
                        want[k] = 1;
                j = e - 1;
            }
        }
    }
    size_t count = 0;
    for (size_t k = 0; k < nv; k++)
        count += want[k] && v[k].triple; /* a one-line string cannot take an inserted #include line */
    *regions = malloc((count + 1) * sizeof **regions);
    if (!*regions) {
        free(v);
        free(want);
        free(mask);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    size_t r = 0;
    for (size_t k = 0; k < nv; k++)
        if (want[k] && v[k].triple)
            (*regions)[r++] = (kb_region){v[k].lo, v[k].hi, v[k].line};
    free(v);
    free(want);
    free(mask);
    return (int)count;
}
