/* mutate.c -- the scanner, the regions of a .py and the mutation rules (kb_mutate.h, docs/mutation.md). */
#include "kb_mutate.h"

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

/* ---- the rules -------------------------------------------------------------------------------- */

typedef struct ctx {
    const char *s;
    size_t n;
    kb_toks t;
    const kb_region *reg; /* the regions, and each token's */
    int *treg;
    char *dev;  /* in the body of a __global__ / __device__ function */
    char *cond; /* in the parentheses of an if / for / while header */
    char *launch; /* between <<< and >>> */
    long *enc;  /* the innermost enclosing ( [ {, or -1 */
    char **fvars; /* identifiers declared float / double / __half / float2 / float4 */
    size_t n_fvars;
    const kb_mut_rule *rule;
    kb_mutant_list *out;
    uint64_t *hashes;
    int oom;
} ctx;

#define TK(i) (&c->t.v[i])
static const char *tx(const ctx *c, long i) { return c->s + c->t.v[i].off; }
static int ok(const ctx *c, long i) { return i >= 0 && (size_t)i < c->t.n; }
/* token i is exactly w (and belongs to the same region as token j, when j >= 0) */
static int is(const ctx *c, long i, const char *w)
{
    return ok(c, i) && c->t.v[i].len == strlen(w) && !strncmp(tx(c, i), w, c->t.v[i].len);
}
static int same_text(const ctx *c, long a, long b)
{
    return ok(c, a) && ok(c, b) && TK(a)->len == TK(b)->len && !strncmp(tx(c, a), tx(c, b), TK(a)->len);
}
static size_t tend(const ctx *c, long i) { return TK(i)->off + TK(i)->len; }
static int ident(const ctx *c, long i) { return ok(c, i) && TK(i)->kind == KB_TK_IDENT; }
static int number(const ctx *c, long i) { return ok(c, i) && TK(i)->kind == KB_TK_NUMBER; }
static int code(const ctx *c, long i) { return ok(c, i) && !TK(i)->pp; }
static int one_of(const ctx *c, long i, const char *const *ws)
{
    for (; *ws; ws++)
        if (is(c, i, *ws))
            return 1;
    return 0;
}

static const char *const KEYWORDS[] = {"if", "for", "while", "switch", "return", "case", "do", "else", "sizeof",
                                       "const", "static", "template", "typename", "unsigned", "signed", "int", "float",
                                       "double", "char", "long", "short", "bool", "void", "auto", "size_t", "int64_t",
                                       "int32_t", "uint32_t", "uint64_t", "__half", NULL};
static int keyword(const ctx *c, long i) { return one_of(c, i, KEYWORDS); }
/* could token i end an operand (so that the next + - < is binary)? */
static int operand_end_tok(const ctx *c, long i)
{
    return (ident(c, i) && !keyword(c, i)) || number(c, i) || is(c, i, ")") || is(c, i, "]");
}

/* A simple operand from token i: IDENT | NUMBER | ( ... ), then any [..], (..), .name, ->name.
 * Returns the index after it, or -1. */
static long op_fwd(const ctx *c, long i)
{
    if (!code(c, i))
        return -1;
    long k;
    if ((ident(c, i) && !keyword(c, i)) || number(c, i))
        k = i + 1;
    else if (is(c, i, "(") && TK(i)->match > i)
        k = TK(i)->match + 1;
    else
        return -1;
    for (;;) {
        if ((is(c, k, "[") || (is(c, k, "(") && !number(c, k - 1))) && TK(k)->match > k)
            k = TK(k)->match + 1;
        else if ((is(c, k, ".") || is(c, k, "->")) && ident(c, k + 1))
            k += 2;
        else
            return k;
    }
}

/* The end (exclusive index) of a brace-free statement starting at i: the index of its ';' at the same
 * level, or -1. */
static long stmt_semi(const ctx *c, long i)
{
    for (long k = i; ok(c, k); k++) {
        if (TK(k)->pp)
            return -1;
        if (is(c, k, ";"))
            return k;
        if (is(c, k, "{") || is(c, k, "}") || is(c, k, ")") || is(c, k, "]"))
            return -1;
        if ((is(c, k, "(") || is(c, k, "[")) && TK(k)->match > k)
            k = TK(k)->match;
    }
    return -1;
}

static int stmt_start_tok(const ctx *c, long i) { return !ok(c, i) || is(c, i, ";") || is(c, i, "{") || is(c, i, "}"); }

/* a floating-point value: a name declared float/double/__half/float2/float4, or such a pointer subscripted
 * (not a member: blockIdx.x is no float) */
static int fvar(const ctx *c, long i)
{
    if (is(c, i - 1, ".") || is(c, i - 1, "->"))
        return 0;
    for (size_t k = 0; k < c->n_fvars; k++) {
        const char *w = c->fvars[k];
        int ptr = w[0] == '*';
        if (strlen(w + ptr) == TK(i)->len && !strncmp(w + ptr, tx(c, i), TK(i)->len) && (!ptr || is(c, i + 1, "[")))
            return 1;
    }
    return 0;
}

static const char *const MATHFN[] = {"expf", "logf", "sqrtf", "rsqrtf", "tanhf", "fmaxf", "fminf", "fabsf", "erff",
                                     "__expf", "powf", "sinf", "cosf", "fmaf", "exp", "log", "sqrt", "tanh", "log1pf",
                                     "expm1f", "__fdividef", NULL};
static int float_literal(const ctx *c, long i)
{
    if (!number(c, i))
        return 0;
    const char *p = tx(c, i);
    size_t l = TK(i)->len;
    if (l > 1 && (p[1] == 'x' || p[1] == 'X'))
        return 0;
    return memchr(p, '.', l) || memchr(p, 'e', l) || memchr(p, 'E', l);
}

/* Does the statement around token i compute in floating point (a float literal, a math function,
 * an identifier declared float/double/__half)? */
static int floaty(const ctx *c, long i)
{
    long a = i, b = i;
    while (ok(c, a - 1) && !stmt_start_tok(c, a - 1))
        a--;
    while (ok(c, b + 1) && !stmt_start_tok(c, b + 1))
        b++;
    for (long k = a; k <= b; k++)
        if (float_literal(c, k) || (ident(c, k) && (one_of(c, k, MATHFN) || fvar(c, k))))
            return 1;
    return 0;
}

/* ---- emitting a mutant ------------------------------------------------------------------------ */

static void one_line(char *dst, size_t cap, const char *src, size_t len)
{
    size_t o = 0;
    int sp = 0;
    for (size_t k = 0; k < len && o + 4 < cap; k++) {
        char ch = src[k];
        if (isspace((unsigned char)ch)) {
            sp = o > 0;
            continue;
        }
        if (sp)
            dst[o++] = ' ';
        sp = 0;
        dst[o++] = ch;
    }
    if (o + 4 >= cap && len)
        memcpy(dst + o, "...", 3), o += 3;
    dst[o] = '\0';
}

/* One mutant: src[off, off+len) -> text, with `incl` (<cuda_fp16.h>, ...) inserted at its region's start
 * if the region does not include it. site: the first token changed. */
static void emit(ctx *c, long site, size_t off, size_t len, const char *text, const char *incl)
{
    if (c->oom)
        return;
    kb_mutant m = {.rule = c->rule, .line = TK(site)->line, .col = TK(site)->col};
    size_t tl = strlen(text);
    if (tl == len && !memcmp(c->s + off, text, len))
        return; /* no change */
    /* the manifest's text: the changed tokens and one token either side, on one line */
    long a = site, b = site;
    while (ok(c, b + 1) && TK(b + 1)->off < off + len)
        b++;
    if (ok(c, a - 1) && c->treg[a - 1] == c->treg[site] && TK(a - 1)->line == TK(site)->line)
        a--;
    if (ok(c, b + 1) && c->treg[b + 1] == c->treg[site] && TK(b + 1)->line == TK(b)->line)
        b++;
    size_t lo = TK(a)->off < off ? TK(a)->off : off, hi = tend(c, b) > off + len ? tend(c, b) : off + len;
    size_t bl = hi - lo;
    char *after = malloc(bl - len + tl + 1);
    char *dup = malloc(tl + 1);
    if (!after || !dup) {
        free(after);
        free(dup);
        c->oom = 1;
        return;
    }
    memcpy(after, c->s + lo, off - lo);
    memcpy(after + (off - lo), text, tl);
    memcpy(after + (off - lo) + tl, c->s + off + len, hi - off - len);
    one_line(m.before, sizeof m.before, c->s + lo, bl);
    one_line(m.after, sizeof m.after, after, bl - len + tl);
    free(after);
    memcpy(dup, text, tl + 1);
    m.edit[0] = (kb_edit){off, len, dup};
    m.n_edits = 1;
    if (incl) {
        const kb_region *r = &c->reg[c->treg[site]];
        char line[128];
        snprintf(line, sizeof line, "#include <%s>", incl);
        int have = 0;
        for (const char *p = c->s + r->lo; (p = strstr(p, line)) && p < c->s + r->hi; p++)
            have = 1;
        if (!have) {
            char *ins = malloc(strlen(line) + 2);
            if (!ins) {
                free(dup);
                c->oom = 1;
                return;
            }
            sprintf(ins, "%s\n", line);
            m.edit[1] = m.edit[0];
            m.edit[0] = (kb_edit){r->lo, 0, ins};
            m.n_edits = 2;
        }
    }
    /* the text: edits in offset order (the include first: it is at the region's start) */
    size_t total = c->n;
    for (int e = 0; e < m.n_edits; e++)
        total += strlen(m.edit[e].text) - m.edit[e].len;
    m.text = malloc(total + 1);
    if (!m.text) {
        for (int e = 0; e < m.n_edits; e++)
            free(m.edit[e].text);
        c->oom = 1;
        return;
    }
    size_t at = 0, o = 0;
    for (int e = 0; e < m.n_edits; e++) {
        memcpy(m.text + o, c->s + at, m.edit[e].off - at);
        o += m.edit[e].off - at;
        size_t l = strlen(m.edit[e].text);
        memcpy(m.text + o, m.edit[e].text, l);
        o += l;
        at = m.edit[e].off + m.edit[e].len;
    }
    memcpy(m.text + o, c->s + at, c->n - at);
    o += c->n - at;
    m.text[o] = '\0';
    m.text_len = o;
    /* the same text as an earlier mutant of this source: left out */
    uint64_t h = kb_fnv1a64(m.text, m.text_len, 1469598103934665603ull);
    for (size_t k = 0; k < c->out->n; k++)
        if (c->hashes[k] == h && c->out->v[k].text_len == m.text_len && !memcmp(c->out->v[k].text, m.text, o)) {
            free(m.text);
            for (int e = 0; e < m.n_edits; e++)
                free(m.edit[e].text);
            return;
        }
    if (c->out->n == c->out->cap) {
        size_t cap = c->out->cap ? 2 * c->out->cap : 64;
        kb_mutant *v = realloc(c->out->v, cap * sizeof *v);
        uint64_t *hv = realloc(c->hashes, cap * sizeof *hv);
        if (hv)
            c->hashes = hv;
        if (!v || !hv) {
            if (v)
                c->out->v = v;
            free(m.text);
            for (int e = 0; e < m.n_edits; e++)
                free(m.edit[e].text);
            c->oom = 1;
            return;
        }
        c->out->v = v;
        c->out->cap = cap;
    }
    c->hashes[c->out->n] = h;
    c->out->v[c->out->n++] = m;
}

/* replace tokens [a, b] (inclusive) by text */
static void emit_toks(ctx *c, long a, long b, const char *text, const char *incl)
{
    emit(c, a, TK(a)->off, tend(c, b) - TK(a)->off, text, incl);
}

/* the source text of tokens [a, b) */
static int span(const ctx *c, long a, long b, char *buf, size_t cap)
{
    if (b <= a)
        return -1;
    size_t l = tend(c, b - 1) - TK(a)->off;
    if (l + 1 > cap)
        return -1;
    memcpy(buf, c->s + TK(a)->off, l);
    buf[l] = '\0';
    return 0;
}

/* ---- boundary --------------------------------------------------------------------------------- */

static const char *const CASTS[] = {"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "template", NULL};

static void cmp_swap(ctx *c, const char *from, const char *to)
{
    for (long i = 0; ok(c, i); i++)
        if (code(c, i) && c->cond[i] && is(c, i, from) && operand_end_tok(c, i - 1) && !one_of(c, i - 1, CASTS) &&
            (ident(c, i + 1) || is(c, i + 1, "(")) && !keyword(c, i + 1))
            emit_toks(c, i, i, to, NULL);
}
static void r_lt_to_le(ctx *c) { cmp_swap(c, "<", "<="); }
static void r_le_to_lt(ctx *c) { cmp_swap(c, "<=", "<"); }
static void r_ge_to_gt(ctx *c) { cmp_swap(c, ">=", ">"); }

/* if ( cond ): the condition's tokens are a comparison of simple terms; has: one of these operators */
static int simple_cond(const ctx *c, long open, const char *const *has)
{
    static const char *const OK[] = {"<", "<=", ">", ">=", "&&", ".", "->", "[", "]", "+", "-", "*", "(", ")", NULL};
    int found = 0;
    for (long k = open + 1; k < TK(open)->match; k++) {
        if (!(ident(c, k) || number(c, k) || one_of(c, k, OK)))
            return 0;
        found |= one_of(c, k, has);
    }
    return found;
}

/* the last token of the statement (or block) starting at i, or -1 */
static long body_end(const ctx *c, long i)
{
    if (is(c, i, "{"))
        return TK(i)->match > i ? TK(i)->match : -1;
    return stmt_semi(c, i);
}

static void r_guard_removed(ctx *c)
{
    static const char *const LT[] = {"<", "<=", NULL};
    static const char *const EXITS[] = {"return", "break", "continue", NULL};
    for (long i = 0; ok(c, i); i++) {
        if (!c->dev[i] || !is(c, i, "if") || !is(c, i + 1, "(") || TK(i + 1)->match < 0)
            continue;
        long m = TK(i + 1)->match, e = body_end(c, m + 1);
        if (e < 0 || !simple_cond(c, i + 1, LT) || one_of(c, m + 1, EXITS) || is(c, e + 1, "else"))
            continue;
        emit(c, i, TK(i)->off, TK(m + 1)->off - TK(i)->off, "", NULL);
    }
}

static void r_early_exit_removed(ctx *c)
{
    static const char *const GE[] = {">", ">=", NULL};
    for (long i = 0; ok(c, i); i++) {
        if (!c->dev[i] || !is(c, i, "if") || !is(c, i + 1, "(") || TK(i + 1)->match < 0)
            continue;
        long m = TK(i + 1)->match, b = m + 1;
        if (is(c, b, "{"))
            b++;
        if (!is(c, b, "return") || !is(c, b + 1, ";") || (is(c, m + 1, "{") && !is(c, b + 2, "}")) ||
            is(c, is(c, m + 1, "{") ? b + 3 : b + 2, "else") || !simple_cond(c, i + 1, GE))
            continue;
        emit_toks(c, i, is(c, m + 1, "{") ? b + 2 : b + 1, "", NULL);
    }
}

/* (A + B - 1) / B -> (A) / B: a ceiling division made a floor division (the tail is lost) */
static void r_ceil_div_floor(ctx *c)
{
    for (long i = 1; ok(c, i + 6); i++)
        if (code(c, i) && is(c, i, "+") && (ident(c, i + 1) || number(c, i + 1)) && is(c, i + 2, "-") &&
            is(c, i + 3, "1") && is(c, i + 4, ")") && is(c, i + 5, "/") && same_text(c, i + 1, i + 6) &&
            operand_end_tok(c, i - 1))
            emit(c, i, tend(c, i - 1), TK(i + 4)->off - tend(c, i - 1), "", NULL);
}

static void drop_one(ctx *c, const char *op)
{
    static const char *const AFTER[] = {")", ";", "&&", "||", "]", NULL};
    for (long i = 1; ok(c, i + 2); i++)
        if (code(c, i) && c->cond[i] && is(c, i, op) && is(c, i + 1, "1") && operand_end_tok(c, i - 1) &&
            one_of(c, i + 2, AFTER))
            emit(c, i, tend(c, i - 1), tend(c, i + 1) - tend(c, i - 1), "", NULL);
}
static void r_drop_minus_one(ctx *c) { drop_one(c, "-"); }
static void r_drop_plus_one(ctx *c) { drop_one(c, "+"); }

/* ---- synchronisation -------------------------------------------------------------------------- */

static void r_syncthreads_removed(ctx *c)
{
    for (long i = 0; ok(c, i + 3); i++)
        if (code(c, i) && is(c, i, "__syncthreads") && is(c, i + 1, "(") && is(c, i + 2, ")") && is(c, i + 3, ";"))
            emit_toks(c, i, i + 3, "", NULL);
}

static void r_syncwarp_removed(ctx *c)
{
    for (long i = 0; ok(c, i + 1); i++)
        if (code(c, i) && is(c, i, "__syncwarp") && is(c, i + 1, "(") && TK(i + 1)->match > 0 &&
            is(c, TK(i + 1)->match + 1, ";"))
            emit_toks(c, i, TK(i + 1)->match + 1, "", NULL);
}

/* the top-level arguments between open (exclusive) and close (exclusive): first tokens in a[], up to 8 */
static int split_args(const ctx *c, long open, long close, long *a, long *z)
{
    int n = 0;
    long start = open + 1;
    for (long k = open + 1; k <= close && n < 8; k++) {
        if (k == close || is(c, k, ",")) {
            if (k == start)
                return -1;
            a[n] = start;
            z[n++] = k - 1;
            start = k + 1;
            continue;
        }
        if ((is(c, k, "(") || is(c, k, "[") || is(c, k, "{")) && TK(k)->match > k)
            k = TK(k)->match;
    }
    return n;
}

static void r_launch_stream_default(ctx *c)
{
    for (long i = 0; ok(c, i); i++) {
        if (!code(c, i) || !is(c, i, "<<<"))
            continue;
        long j = i + 1;
        while (ok(c, j) && !is(c, j, ">>>") && !is(c, j, ";"))
            j = (is(c, j, "(") && TK(j)->match > j) ? TK(j)->match + 1 : j + 1;
        long a[8], z[8];
        if (!is(c, j, ">>>") || split_args(c, i, j, a, z) != 4 || (a[3] == z[3] && is(c, a[3], "0")))
            continue;
        emit_toks(c, a[3], z[3], "0", NULL);
    }
}

static void r_call_stream_default(ctx *c)
{
    for (long i = 0; ok(c, i + 2); i++) {
        if (!code(c, i) || c->launch[i] || !(is(c, i - 1, "(") || is(c, i - 1, ",")))
            continue;
        long e = -1;
        if (is(c, i, "args") && is(c, i + 1, "->") && is(c, i + 2, "stream"))
            e = i + 2;
        /* [at::cuda::]getCurrentCUDAStream() */
        long k = i;
        while (ident(c, k) && is(c, k + 1, "::"))
            k += 2;
        if (is(c, k, "getCurrentCUDAStream") && is(c, k + 1, "(") && is(c, k + 2, ")"))
            e = k + 2;
        if (e >= 0 && (is(c, e + 1, ")") || is(c, e + 1, ",")))
            emit_toks(c, i, e, "0", NULL);
    }
}

static void r_stream_wait_removed(ctx *c)
{
    static const char *const WAITS[] = {"cudaStreamWaitEvent", "cudaStreamSynchronize", "cudaEventSynchronize",
                                        "cudaDeviceSynchronize", NULL};
    for (long i = 0; ok(c, i + 1); i++) {
        if (!code(c, i) || !one_of(c, i, WAITS) || !is(c, i + 1, "(") || TK(i + 1)->match < 0)
            continue;
        long m = TK(i + 1)->match;
        if (stmt_start_tok(c, i - 1) && is(c, m + 1, ";"))
            emit_toks(c, i, m + 1, "", NULL);
        else
            emit_toks(c, i, m, "cudaSuccess", NULL);
    }
}

static void r_atomic_to_plain(ctx *c)
{
    for (long i = 0; ok(c, i + 1); i++) {
        if (!code(c, i) || !is(c, i, "atomicAdd") || !is(c, i + 1, "(") || TK(i + 1)->match < 0)
            continue;
        long m = TK(i + 1)->match, a[8], z[8];
        char x[512], y[512], out[1100];
        if (!is(c, m + 1, ";") || !(stmt_start_tok(c, i - 1) || is(c, i - 1, ")") || is(c, i - 1, "else")) ||
            split_args(c, i + 1, m, a, z) != 2 || span(c, a[0], z[0] + 1, x, sizeof x) ||
            span(c, a[1], z[1] + 1, y, sizeof y))
            continue;
        if (kb_fmt(out, sizeof out, "*(%s) += (%s)", x, y) < 0)
            continue;
        emit_toks(c, i, m, out, NULL);
    }
}

/* ---- precision -------------------------------------------------------------------------------- */

/* float NAME = ... / float NAME; at a statement's start, NAME += ... later in the same block */
static void acc_type(ctx *c, const char *type, const char *incl)
{
    for (long i = 0; ok(c, i + 2); i++) {
        if (!c->dev[i] || !is(c, i, "float") || !stmt_start_tok(c, i - 1) || !ident(c, i + 1) ||
            !(is(c, i + 2, "=") || is(c, i + 2, ";")))
            continue;
        long end = c->enc[i] >= 0 ? TK(c->enc[i])->match : (long)c->t.n;
        int acc = 0;
        for (long k = i + 3; k < end && ok(c, k + 1) && !acc; k++)
            acc = same_text(c, k, i + 1) && is(c, k + 1, "+=") && !is(c, k - 1, ".") && !is(c, k - 1, "->");
        if (acc)
            emit_toks(c, i, i, type, incl);
    }
}
static void r_acc_half(ctx *c) { acc_type(c, "__half", "cuda_fp16.h"); }
static void r_acc_bf16(ctx *c) { acc_type(c, "__nv_bfloat16", "cuda_bf16.h"); }

/* ACC += A * B;  and  fmaf(A, B, C): A and B rounded to a narrow type first */
static void operands(ctx *c, const char *to, const char *back, const char *incl)
{
    char a[512], b[512], out[1400];
    for (long i = 0; ok(c, i + 1); i++) {
        if (!c->dev[i])
            continue;
        if (is(c, i, "+=")) {
            long ae = op_fwd(c, i + 1);
            if (ae < 0 || !is(c, ae, "*"))
                continue;
            long be = op_fwd(c, ae + 1);
            if (be < 0 || !is(c, be, ";") || span(c, i + 1, ae, a, sizeof a) || span(c, ae + 1, be, b, sizeof b))
                continue;
            if (kb_fmt(out, sizeof out, "%s(%s(%s)) * %s(%s(%s))", back, to, a, back, to, b) < 0)
                continue;
            emit_toks(c, i + 1, be - 1, out, incl);
        } else if (is(c, i, "fmaf") && is(c, i + 1, "(") && TK(i + 1)->match > 0) {
            long az[8], zz[8];
            char rest[512];
            if (split_args(c, i + 1, TK(i + 1)->match, az, zz) != 3 || span(c, az[0], zz[0] + 1, a, sizeof a) ||
                span(c, az[1], zz[1] + 1, b, sizeof b) || span(c, az[2], zz[2] + 1, rest, sizeof rest))
                continue;
            if (kb_fmt(out, sizeof out, "fmaf(%s(%s(%s)), %s(%s(%s)), %s)", back, to, a, back, to, b, rest) < 0)
                continue;
            emit_toks(c, i, TK(i + 1)->match, out, incl);
        }
    }
}
static void r_operands_half(ctx *c) { operands(c, "__float2half", "__half2float", "cuda_fp16.h"); }
static void r_operands_bf16(ctx *c) { operands(c, "__float2bfloat16", "__bfloat162float", "cuda_bf16.h"); }

static void r_double_to_float(ctx *c)
{
    for (long i = 0; ok(c, i); i++)
        if (code(c, i) && is(c, i, "double"))
            emit_toks(c, i, i, "float", NULL);
}

/* ---- indexing --------------------------------------------------------------------------------- */

/* the top-level terms (joined by +) of the subscript opened at token o: starts in a[], ends (exclusive) in z[] */
static int terms(const ctx *c, long o, long *a, long *z, int cap)
{
    int n = 0;
    long start = o + 1, m = TK(o)->match;
    for (long k = o + 1; k <= m && n < cap; k++) {
        if (k == m || (is(c, k, "+") && operand_end_tok(c, k - 1))) {
            if (k == start)
                return -1;
            a[n] = start;
            z[n++] = k;
            start = k + 1;
            continue;
        }
        if (is(c, k, "-") && operand_end_tok(c, k - 1))
            return -1; /* a difference: leave it alone */
        if ((is(c, k, "(") || is(c, k, "[")) && TK(k)->match > k)
            k = TK(k)->match;
    }
    return n;
}

static int has_top_mul(const ctx *c, long a, long z)
{
    for (long k = a; k < z; k++) {
        if (is(c, k, "*") && operand_end_tok(c, k - 1) && k > a)
            return 1;
        if ((is(c, k, "(") || is(c, k, "[")) && TK(k)->match > k)
            k = TK(k)->match;
    }
    return 0;
}

/* [.. X * S + Y ..] -> [.. Y * S + X ..]: row and column exchanged */
static void r_transpose(ctx *c)
{
    char x[256], sx[256], y[256], out[800];
    for (long i = 0; ok(c, i); i++) {
        if (!code(c, i) || !is(c, i, "[") || TK(i)->match < 0)
            continue;
        long a[16], z[16];
        int n = terms(c, i, a, z, 16);
        for (int t = 0; t + 1 < n; t++) {
            long xe = op_fwd(c, a[t]);
            if (xe < 0 || !is(c, xe, "*"))
                continue;
            long se = op_fwd(c, xe + 1);
            if (se != z[t] || op_fwd(c, a[t + 1]) != z[t + 1] || span(c, a[t], xe, x, sizeof x) ||
                span(c, xe + 1, se, sx, sizeof sx) || span(c, a[t + 1], z[t + 1], y, sizeof y) || !strcmp(x, y))
                continue;
            if (kb_fmt(out, sizeof out, "%s * %s + %s", y, sx, x) < 0)
                continue;
            emit_toks(c, a[t], z[t + 1] - 1, out, NULL);
        }
    }
}

static void r_drop_offset_term(ctx *c)
{
    for (long i = 0; ok(c, i); i++) {
        if (!code(c, i))
            continue;
        if (is(c, i, "[") && TK(i)->match > i) {
            long a[16], z[16];
            int n = terms(c, i, a, z, 16);
            for (int t = 0; t < n && n >= 2; t++) {
                if (!has_top_mul(c, a[t], z[t]))
                    continue;
                if (t == 0)
                    emit(c, a[t], TK(a[t])->off, TK(a[t + 1])->off - TK(a[t])->off, "", NULL);
                else
                    emit(c, z[t - 1], tend(c, z[t - 1] - 1), tend(c, z[t] - 1) - tend(c, z[t - 1] - 1), "", NULL);
            }
        } else if (c->dev[i] && is(c, i, "=") && ident(c, i + 1) && is(c, i + 2, "+")) {
            /* p = base + b * stride; (a pointer or index offset) */
            long e = stmt_semi(c, i + 3);
            if (e > i + 3 && has_top_mul(c, i + 3, e))
                emit(c, i + 2, tend(c, i + 1), TK(e)->off - tend(c, i + 1), "", NULL);
        }
    }
}

static void r_stride_minus_one(ctx *c)
{
    char sv[256], out[300];
    for (long i = 0; ok(c, i); i++) {
        if (!code(c, i) || !is(c, i, "[") || TK(i)->match < 0)
            continue;
        long a[16], z[16];
        int n = terms(c, i, a, z, 16);
        for (int t = 0; t < n; t++) {
            long xe = op_fwd(c, a[t]);
            if (xe < 0 || !is(c, xe, "*"))
                continue;
            long se = op_fwd(c, xe + 1);
            if (se != z[t] || (se == xe + 2 && is(c, xe + 1, "1")) || span(c, xe + 1, se, sv, sizeof sv))
                continue;
            if (kb_fmt(out, sizeof out, "(%s - 1)", sv) < 0)
                continue;
            emit_toks(c, xe + 1, se - 1, out, NULL);
        }
    }
}

static void r_swap_2d(ctx *c)
{
    char out[600];
    for (long i = 0; ok(c, i + 5); i++)
        if (code(c, i) && is(c, i, "[") && ident(c, i + 1) && is(c, i + 2, "]") && is(c, i + 3, "[") &&
            ident(c, i + 4) && is(c, i + 5, "]") && !same_text(c, i + 1, i + 4) && !is(c, i + 6, "[") &&
            !(ident(c, i - 1) && (keyword(c, i - 2) || is(c, i - 2, "__shared__")))) { /* not a declaration */
            snprintf(out, sizeof out, "[%.*s][%.*s]", (int)TK(i + 4)->len, tx(c, i + 4), (int)TK(i + 1)->len,
                     tx(c, i + 1));
            emit_toks(c, i, i + 5, out, NULL);
        }
}

static void r_tid_xy_swap(ctx *c)
{
    static const char *const BUILTINS[] = {"threadIdx", "blockIdx", NULL};
    for (const char *const *b = BUILTINS; *b; b++) {
        int has_x = 0, has_y = 0;
        for (long i = 0; ok(c, i + 2); i++)
            if (code(c, i) && is(c, i, *b) && is(c, i + 1, ".")) {
                has_x |= is(c, i + 2, "x");
                has_y |= is(c, i + 2, "y");
            }
        if (!has_x || !has_y)
            continue;
        for (long i = 0; ok(c, i + 2); i++)
            if (code(c, i) && is(c, i, *b) && is(c, i + 1, ".") && (is(c, i + 2, "x") || is(c, i + 2, "y")))
                emit_toks(c, i + 2, i + 2, is(c, i + 2, "x") ? "y" : "x", NULL);
    }
}

/* ---- arithmetic ------------------------------------------------------------------------------- */

/* a float literal's value and suffix; 0 if not one (or not a plain decimal literal) */
static int literal_value(const ctx *c, long i, double *v, char *suffix)
{
    if (!float_literal(c, i) || (TK(i)->pp && TK(i)->pp != 2))
        return 0;
    char buf[64];
    size_t l = TK(i)->len;
    if (l >= sizeof buf)
        return 0;
    memcpy(buf, tx(c, i), l);
    buf[l] = '\0';
    suffix[0] = '\0';
    if (strchr("fFlL", buf[l - 1])) {
        suffix[0] = buf[l - 1];
        suffix[1] = '\0';
        buf[l - 1] = '\0';
    }
    char *end;
    *v = strtod(buf, &end);
    return *end == '\0' && isfinite(*v) && *v != 0.0;
}

static void literal_text(char *out, size_t cap, double v, const char *suffix)
{
    char num[48];
    snprintf(num, sizeof num, "%.9g", v);
    if (!strpbrk(num, ".eE"))
        strcat(num, ".0");
    snprintf(out, cap, "%s%s", num, suffix);
}

/* |v| < 1e-2 (an epsilon): x 100, 1e-5f -> 0.001f */
static void r_eps_up(ctx *c)
{
    double v;
    char sfx[4], out[64];
    for (long i = 0; ok(c, i); i++)
        if (literal_value(c, i, &v, sfx) && fabs(v) < 1e-2) {
            literal_text(out, sizeof out, v * 100.0, sfx);
            emit_toks(c, i, i, out, NULL);
        }
}

/* |v| >= 1e-2: x 1.01, 0.5f -> 0.505f, 1.0f -> 1.01f */
static void r_const_nudge(ctx *c)
{
    double v;
    char sfx[4], out[64];
    for (long i = 0; ok(c, i); i++)
        if (literal_value(c, i, &v, sfx) && fabs(v) >= 1e-2) {
            literal_text(out, sizeof out, v * 1.01, sfx);
            emit_toks(c, i, i, out, NULL);
        }
}

static int arith_site(const ctx *c, long i)
{
    return c->dev[i] && !c->cond[i] && !(c->enc[i] >= 0 && is(c, c->enc[i], "[")) && operand_end_tok(c, i - 1) &&
           !is(c, i + 1, "=") && floaty(c, i);
}
static void r_add_to_sub(ctx *c)
{
    for (long i = 1; ok(c, i); i++)
        if (is(c, i, "+") && arith_site(c, i))
            emit_toks(c, i, i, "-", NULL);
}
static void r_sub_to_add(ctx *c)
{
    for (long i = 1; ok(c, i); i++)
        if (is(c, i, "-") && arith_site(c, i))
            emit_toks(c, i, i, "+", NULL);
}
static void r_accum_sign(ctx *c)
{
    for (long i = 1; ok(c, i); i++)
        if (c->dev[i] && !c->cond[i] && (is(c, i, "+=") || is(c, i, "-=")) && floaty(c, i))
            emit_toks(c, i, i, is(c, i, "+=") ? "-=" : "+=", NULL);
}

/* renames a function at its calls: from[k] -> to[k] */
static void rename_calls(ctx *c, const char *const *from, const char *const *to, int device_only)
{
    for (long i = 0; ok(c, i + 1); i++) {
        if (!code(c, i) || (device_only && !c->dev[i]) || !is(c, i + 1, "(") || is(c, i + 2, ")") ||
            is(c, i - 1, ".") || is(c, i - 1, "->"))
            continue;
        for (int k = 0; from[k]; k++)
            if (is(c, i, from[k])) {
                emit_toks(c, i, i, to[k], NULL);
                break;
            }
    }
}
static void r_fast_intrinsic(ctx *c)
{
    static const char *const F[] = {"expf", "logf", "sinf", "cosf", "tanf", "powf", "exp10f", "log2f", "log10f", NULL};
    static const char *const T[] = {"__expf", "__logf", "__sinf", "__cosf", "__tanf", "__powf", "__exp10f", "__log2f",
                                    "__log10f", NULL};
    rename_calls(c, F, T, 0);
}
static void r_sqrt_rsqrt(ctx *c)
{
    static const char *const F[] = {"sqrtf", "rsqrtf", "sqrt", "rsqrt", NULL};
    static const char *const T[] = {"rsqrtf", "sqrtf", "rsqrt", "sqrt", NULL};
    rename_calls(c, F, T, 0);
}
static void r_exp_base(ctx *c)
{
    static const char *const F[] = {"expf", "exp", "__expf", "logf", "log", "__logf", NULL};
    static const char *const T[] = {"exp2f", "exp2", "exp2f", "log2f", "log2", "__log2f", NULL};
    rename_calls(c, F, T, 0);
}
static void r_max_min_swap(ctx *c)
{
    static const char *const F[] = {"fmaxf", "fminf", "fmax", "fmin", "max", "min", NULL};
    static const char *const T[] = {"fminf", "fmaxf", "fmin", "fmax", "min", "max", NULL};
    rename_calls(c, F, T, 1);
}

/* ---- semantics -------------------------------------------------------------------------------- */

/* f(x) -> (x), f(x, c) -> (x) (the non-constant argument): one op of a chain dropped */
static void r_drop_call(ctx *c)
{
    static const char *const F[] = {"tanhf", "tanh", "erff", "erf", "expf", "__expf", "exp", "logf", "log", "log1pf",
                                    "fabsf", "fabs", "sqrtf", "rsqrtf", "fmaxf", "fminf", "fmax", "fmin", "max",
                                    "min", NULL};
    char arg[512], out[520];
    for (long i = 0; ok(c, i + 1); i++) {
        if (!c->dev[i] || !one_of(c, i, F) || !is(c, i + 1, "(") || TK(i + 1)->match < 0 || is(c, i - 1, ".") ||
            is(c, i - 1, "::"))
            continue;
        long a[8], z[8];
        int n = split_args(c, i + 1, TK(i + 1)->match, a, z);
        if (n < 1 || n > 2)
            continue;
        int k = (n == 2 && a[0] == z[0] && number(c, a[0])) ? 1 : 0;
        if (span(c, a[k], z[k] + 1, arg, sizeof arg))
            continue;
        if (kb_fmt(out, sizeof out, "(%s)", arg) < 0)
            continue;
        emit_toks(c, i, TK(i + 1)->match, out, NULL);
    }
}

/* C ? X : Y: the tokens of C, X and Y (first, last inclusive); 0 if not a simple conditional */
static int ternary(const ctx *c, long q, long *cs, long *xe, long *ys, long *ye)
{
    static const char *const STOP[] = {"=", ",", "return", ";", "{", "}", "?", ":", "+=", "-=", "*=", "/=", NULL};
    long k = q - 1;
    while (ok(c, k) && !one_of(c, k, STOP)) {
        if ((is(c, k, ")") || is(c, k, "]")) && TK(k)->match >= 0 && TK(k)->match < k)
            k = TK(k)->match - 1;
        else if (is(c, k, "(") || is(c, k, "["))
            break;
        else
            k--;
    }
    *cs = k + 1;
    int depth = 0;
    for (k = q + 1; ok(c, k); k++) {
        if ((is(c, k, "(") || is(c, k, "[")) && TK(k)->match > k)
            k = TK(k)->match;
        else if (is(c, k, "?"))
            depth++;
        else if (is(c, k, ":") && depth-- == 0)
            break;
        else if (one_of(c, k, STOP) || is(c, k, ")"))
            return 0;
    }
    if (!is(c, k, ":") || k == q + 1)
        return 0;
    *xe = k - 1;
    *ys = k + 1;
    for (k = *ys; ok(c, k); k++) {
        if ((is(c, k, "(") || is(c, k, "[")) && TK(k)->match > k)
            k = TK(k)->match;
        else if (is(c, k, ";") || is(c, k, ",") || is(c, k, ")") || is(c, k, "]") || is(c, k, "}"))
            break;
    }
    *ye = k - 1;
    return *cs < q && *ye >= *ys && c->dev[*cs];
}

static void ternary_keep(ctx *c, int keep_then)
{
    char part[512], out[520];
    for (long i = 0; ok(c, i); i++) {
        long cs, xe, ys, ye;
        if (!code(c, i) || !is(c, i, "?") || !ternary(c, i, &cs, &xe, &ys, &ye))
            continue;
        if (keep_then ? span(c, i + 1, xe + 1, part, sizeof part) : span(c, ys, ye + 1, part, sizeof part))
            continue;
        if (kb_fmt(out, sizeof out, "(%s)", part) < 0)
            continue;
        emit_toks(c, cs, ye, out, NULL);
    }
}
static void r_ternary_else(ctx *c) { ternary_keep(c, 0); }
static void r_ternary_then(ctx *c) { ternary_keep(c, 1); }

/* NAME = f(NAME ...);  NAME *= ...;  NAME /= ...; at a statement's start: the update deleted */
static void r_drop_update(ctx *c)
{
    for (long i = 0; ok(c, i + 1); i++) {
        if (!c->dev[i] || c->cond[i] || !ident(c, i) || keyword(c, i) || !stmt_start_tok(c, i - 1))
            continue;
        long e = stmt_semi(c, i + 1);
        if (e < 0)
            continue;
        int upd = is(c, i + 1, "*=") || is(c, i + 1, "/=");
        if (is(c, i + 1, "="))
            for (long k = i + 2; k < e && !upd; k++)
                upd = same_text(c, k, i) && !is(c, k - 1, ".") && !is(c, k - 1, "->");
        if (upd)
            emit_toks(c, i, e, "", NULL);
    }
}

static int name_ends(const ctx *c, long i, const char *w)
{
    size_t l = strlen(w), n = TK(i)->len;
    if (n < l)
        return 0;
    for (size_t k = 0; k < l; k++)
        if (tolower((unsigned char)tx(c, i)[n - l + k]) != w[k])
            return 0;
    return n == l || tx(c, i)[n - l - 1] == '_' || islower((unsigned char)tx(c, i)[n - l - 1]) == 0 ||
           !strcmp(w, "mean") || !strcmp(w, "var");
}

/* NAME = EXPR; for a statistic's name: EXPR replaced by what eval mode with fresh running statistics uses */
static void stat_rule(ctx *c, const char *const *names, const char *value)
{
    for (long i = 1; ok(c, i + 1); i++) {
        if (!code(c, i) || !ident(c, i) || !is(c, i + 1, "=") || is(c, i - 1, ".") || is(c, i - 1, "->"))
            continue;
        int hit = 0;
        for (const char *const *w = names; *w && !hit; w++)
            hit = name_ends(c, i, *w);
        long e = stmt_semi(c, i + 2);
        if (!hit || e < 0 || e == i + 2 || (e == i + 3 && number(c, i + 2)))
            continue;
        emit_toks(c, i + 2, e - 1, value, NULL);
    }
}
static void r_eval_mean(ctx *c)
{
    static const char *const N[] = {"mean", "mu", NULL};
    stat_rule(c, N, "0.0f");
}
static void r_eval_var(ctx *c)
{
    static const char *const V[] = {"var", "variance", NULL};
    static const char *const R[] = {"invstd", "rstd", "inv_std", NULL};
    stat_rule(c, V, "1.0f");
    stat_rule(c, R, "rsqrtf(1.0f + 1e-5f)");
}

/* ---- the table -------------------------------------------------------------------------------- */

static const kb_mut_rule RULES[] = {
    {"boundary.lt_to_le", "boundary", "in an if/for/while header, `a < b` (b a name or call) -> `a <= b`"},
    {"boundary.le_to_lt", "boundary", "in an if/for/while header, `a <= b` -> `a < b`"},
    {"boundary.ge_to_gt", "boundary", "in an if/for/while header, `a >= b` -> `a > b`"},
    {"boundary.guard_removed", "boundary",
     "device code: `if (i < n) BODY` (a comparison of simple terms with < or <=, no else) -> `BODY`"},
    {"boundary.early_exit_removed", "boundary", "device code: `if (i >= n) return;` (> or >=) deleted"},
    {"boundary.ceil_div_floor", "boundary", "`(a + B - 1) / B` -> `(a) / B`: a ceiling division becomes a floor"},
    {"boundary.drop_minus_one", "boundary", "in an if/for/while header, `x - 1` (then ) ; && || ]) -> `x`"},
    {"boundary.drop_plus_one", "boundary", "in an if/for/while header, `x + 1` (then ) ; && || ]) -> `x`"},
    {"sync.syncthreads_removed", "sync", "`__syncthreads();` deleted"},
    {"sync.syncwarp_removed", "sync", "`__syncwarp(...);` deleted"},
    {"sync.launch_stream_default", "sync", "`k<<<g, b, smem, STREAM>>>` -> `k<<<g, b, smem, 0>>>` (legacy default stream)"},
    {"sync.call_stream_default", "sync",
     "a call argument `args->stream` or `[at::cuda::]getCurrentCUDAStream()` (outside <<<>>>) -> `0`"},
    {"sync.stream_wait_removed", "sync",
     "`cudaStreamWaitEvent/cudaStreamSynchronize/cudaEventSynchronize/cudaDeviceSynchronize(...)`: the statement "
     "deleted, or the call -> `cudaSuccess` inside an expression"},
    {"sync.atomic_to_plain", "sync", "statement `atomicAdd(p, v);` -> `*(p) += (v);` (a racy read-modify-write)"},
    {"precision.acc_half", "precision",
     "device code: `float acc = ...;` whose block later has `acc += ...` -> `__half acc` (+ #include <cuda_fp16.h>)"},
    {"precision.acc_bf16", "precision", "as acc_half with `__nv_bfloat16` (+ #include <cuda_bf16.h>)"},
    {"precision.operands_half", "precision",
     "device code: `acc += A * B;` and `fmaf(A, B, C)`: A and B -> `__half2float(__float2half(A))` (fp16 operands)"},
    {"precision.operands_bf16", "precision", "as operands_half through `__float2bfloat16` / `__bfloat162float`"},
    {"precision.double_to_float", "precision", "the keyword `double` -> `float` (each occurrence)"},
    {"indexing.transpose", "indexing", "a subscript's terms `X * S + Y` (simple operands) -> `Y * S + X`"},
    {"indexing.drop_offset_term", "indexing",
     "a product term of a subscript with two or more + terms deleted (`[b * S + i]` -> `[i]`); device code "
     "`p = base + b * S;` -> `p = base;`"},
    {"indexing.stride_minus_one", "indexing", "in a subscript's term `X * S` (S a simple operand, not 1) -> `X * (S - 1)`"},
    {"indexing.swap_2d", "indexing", "`[i][j]` (two names, no third subscript) -> `[j][i]`"},
    {"indexing.tid_xy_swap", "indexing",
     "`threadIdx.x` <-> `threadIdx.y` (and blockIdx), each occurrence, where the source uses both"},
    {"arithmetic.eps_up", "arithmetic", "a float literal with 0 < |v| < 1e-2 -> v x 100 (`1e-5f` -> `0.001f`)"},
    {"arithmetic.const_nudge", "arithmetic", "a float literal with |v| >= 1e-2 -> v x 1.01 (`0.5f` -> `0.505f`)"},
    {"arithmetic.add_to_sub", "arithmetic",
     "device code, a binary `+` outside subscripts and headers in a floating-point statement -> `-`"},
    {"arithmetic.sub_to_add", "arithmetic", "as add_to_sub, `-` -> `+`"},
    {"arithmetic.accum_sign", "arithmetic", "device code, `+=` <-> `-=` in a floating-point statement"},
    {"arithmetic.fast_intrinsic", "arithmetic", "calls `expf logf sinf cosf tanf powf exp10f log2f log10f` -> `__expf ...`"},
    {"arithmetic.sqrt_rsqrt", "arithmetic", "calls `sqrtf` <-> `rsqrtf` (and sqrt <-> rsqrt)"},
    {"arithmetic.exp_base", "arithmetic", "calls `expf` -> `exp2f`, `logf` -> `log2f` (and exp, log, __expf, __logf)"},
    {"arithmetic.max_min_swap", "arithmetic", "device code, calls `fmaxf` <-> `fminf` (fmax/fmin, max/min)"},
    {"semantics.drop_call", "semantics",
     "device code, `f(x)` or `f(x, c)` -> `(x)` for f in tanhf erff expf logf log1pf fabsf sqrtf rsqrtf fmaxf fminf "
     "max min (and the double forms)"},
    {"semantics.ternary_else", "semantics", "device code, `c ? x : y` -> `(y)` (a relu/clamp/select dropped)"},
    {"semantics.ternary_then", "semantics", "device code, `c ? x : y` -> `(x)`"},
    {"semantics.drop_update", "semantics",
     "device code, a statement `v = ... v ...;`, `v *= ...;` or `v /= ...;` deleted (one op of a chain)"},
    {"semantics.eval_mean", "semantics",
     "`mean = EXPR;` (names ending in mean or mu) -> `mean = 0.0f;`: eval-mode statistics (running_mean = 0) "
     "instead of the batch's"},
    {"semantics.eval_var", "semantics",
     "`var = EXPR;` -> `1.0f` (running_var = 1); `invstd/rstd = EXPR;` -> `rsqrtf(1.0f + 1e-5f)`"},
};
static void (*const RULE_FN[])(ctx *) = {
    r_lt_to_le, r_le_to_lt, r_ge_to_gt, r_guard_removed, r_early_exit_removed, r_ceil_div_floor, r_drop_minus_one,
    r_drop_plus_one, r_syncthreads_removed, r_syncwarp_removed, r_launch_stream_default, r_call_stream_default,
    r_stream_wait_removed, r_atomic_to_plain, r_acc_half, r_acc_bf16, r_operands_half, r_operands_bf16,
    r_double_to_float, r_transpose, r_drop_offset_term, r_stride_minus_one, r_swap_2d, r_tid_xy_swap, r_eps_up,
    r_const_nudge, r_add_to_sub, r_sub_to_add, r_accum_sign, r_fast_intrinsic, r_sqrt_rsqrt, r_exp_base,
    r_max_min_swap, r_drop_call, r_ternary_else, r_ternary_then, r_drop_update, r_eval_mean, r_eval_var,
};
_Static_assert(sizeof RULES / sizeof *RULES == sizeof RULE_FN / sizeof *RULE_FN, "one function per rule");

const kb_mut_rule *kb_mut_rules(size_t *n)
{
    *n = sizeof RULES / sizeof *RULES;
    return RULES;
}

int kb_mut_family_index(const char *family)
{
    static const char *const F[] = {"boundary", "sync", "precision", "indexing", "arithmetic", "semantics"};
    for (int k = 0; k < 6; k++)
        if (!strcmp(family, F[k]))
            return k;
    return -1;
}

/* ---- putting it together ---------------------------------------------------------------------- */

static int analyse(ctx *c)
{
    size_t n = c->t.n;
    c->dev = calloc(n + 1, 1);
    c->cond = calloc(n + 1, 1);
    c->launch = calloc(n + 1, 1);
    c->enc = malloc((n + 1) * sizeof *c->enc);
    c->fvars = malloc((n + 1) * sizeof *c->fvars);
    if (!c->dev || !c->cond || !c->launch || !c->enc || !c->fvars)
        return -1;
    /* enclosing brackets */
    long *stack = malloc((n + 1) * sizeof *stack);
    if (!stack)
        return -1;
    size_t sp = 0;
    for (size_t i = 0; i < n; i++) {
        c->enc[i] = sp ? stack[sp - 1] : -1;
        kb_tok *k = &c->t.v[i];
        if (k->match > (long)i)
            stack[sp++] = (long)i;
        else if (k->match >= 0 && k->match < (long)i && sp)
            sp--;
    }
    free(stack);
    /* device function bodies: a { whose declaration (since the last ; { } at its level) says
     * __global__ or __device__ */
    int dev_decl = 0;
    for (long i = 0; ok(c, i); i++) {
        if (TK(i)->pp)
            continue;
        if (is(c, i, "__global__") || is(c, i, "__device__"))
            dev_decl = 1;
        else if (is(c, i, ";") || is(c, i, "}"))
            dev_decl = 0;
        else if (is(c, i, "{")) {
            if (dev_decl && TK(i)->match > i) {
                memset(c->dev + i, 1, (size_t)(TK(i)->match - i + 1));
                i = TK(i)->match;
            }
            dev_decl = 0;
        }
    }
    for (long i = 0; ok(c, i + 1); i++) {
        if (code(c, i) && (is(c, i, "if") || is(c, i, "for") || is(c, i, "while")) && is(c, i + 1, "(") &&
            TK(i + 1)->match > i)
            memset(c->cond + i + 2, 1, (size_t)(TK(i + 1)->match - i - 2));
        if (code(c, i) && is(c, i, "<<<"))
            for (long k = i + 1; ok(c, k) && !is(c, k, ">>>") && !is(c, k, ";"); k++)
                c->launch[k] = 1;
        if (code(c, i) && (is(c, i, "float") || is(c, i, "double") || is(c, i, "__half") || is(c, i, "float2") ||
                           is(c, i, "float4"))) {
            long k = i + 1;
            int ptr = 0;
            while (is(c, k, "*") || is(c, k, "&") || is(c, k, "const") || is(c, k, "__restrict__"))
                ptr |= is(c, k++, "*");
            if (ident(c, k) && !keyword(c, k)) {
                /* a pointer's name is kept with a leading '*': it is floating point only when subscripted */
                char *w = malloc(TK(k)->len + 2);
                if (!w)
                    return -1;
                sprintf(w, "%s%.*s", ptr ? "*" : "", (int)TK(k)->len, tx(c, k));
                c->fvars[c->n_fvars++] = w;
            }
        }
    }
    return 0;
}

static void ctx_free(ctx *c)
{
    for (size_t k = 0; k < c->n_fvars; k++)
        free(c->fvars[k]);
    free(c->fvars);
    free(c->dev);
    free(c->cond);
    free(c->launch);
    free(c->enc);
    free(c->treg);
    free(c->hashes);
    kb_toks_free(&c->t);
}

int kb_mutate_find(const char *src, size_t len, int is_py, kb_mutant_list *out, kb_err *err)
{
    memset(out, 0, sizeof *out);
    kb_region *reg = NULL;
    int nr = kb_mut_regions(src, len, is_py, &reg, err);
    if (nr < 0)
        return -1;
    ctx c = {.s = src, .n = len, .reg = reg, .out = out};
    int rc = 0;
    for (int r = 0; r < nr && rc == 0; r++) {
        size_t before = c.t.n;
        rc = kb_mut_tokenize(src, reg[r].lo, reg[r].hi, reg[r].line, &c.t, err);
        int *tr = rc == 0 ? realloc(c.treg, (c.t.n + 1) * sizeof *tr) : NULL;
        if (rc == 0 && !tr)
            rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
        if (rc == 0) {
            c.treg = tr;
            for (size_t k = before; k < c.t.n; k++)
                tr[k] = r;
        }
    }
    if (rc == 0 && c.t.n && analyse(&c) != 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
    size_t nrules = sizeof RULES / sizeof *RULES;
    for (size_t k = 0; k < nrules && rc == 0 && c.t.n; k++) {
        c.rule = &RULES[k];
        RULE_FN[k](&c);
        if (c.oom)
            rc = kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    ctx_free(&c);
    free(reg);
    if (rc != 0)
        kb_mutant_list_free(out);
    return rc;
}

void kb_mutant_list_free(kb_mutant_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].text);
        for (int e = 0; e < l->v[i].n_edits; e++)
            free(l->v[i].edit[e].text);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}
