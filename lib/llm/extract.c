/* extract.c -- see kb_extract.h: one response into one sample, or one file taken as a sample as
 * it is (the tree is extract_tree.c). */
#include "llm/kb_extract.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/kb_prompt_py.h"

static const char *const outcome_names[KB_EX_N] = {"ok",            "not_text",       "empty",          "truncated",
                                                   "no_code_block", "wrong_language", "several_blocks", "wrong_name"};

const char *kb_extract_outcome_name(kb_extract_outcome o) { return (unsigned)o < KB_EX_N ? outcome_names[o] : "?"; }

void kb_extract_result_free(kb_extract_result *r)
{
    free(r->code);
    r->code = NULL;
    r->code_len = 0;
}

/* ---- fences ------------------------------------------------------------------------------------ */

typedef struct block {
    int open_line, close_line; /* 1-based; close_line 0: never closed */
    char fence;                /* '`' or '~' */
    size_t run;                /* its length: the closing fence is at least as long */
    char lang[32];             /* lower case; "" untagged */
    size_t indent;             /* the opening line's */
    size_t begin, end;         /* content bytes (whole lines) */
} block;

typedef struct blocks {
    block *v;
    size_t n, cap;
} blocks;

/* A fence run at line [p, e): its character, length and indentation (<= 3 spaces); 0 if none. */
static size_t fence_run(const char *p, const char *e, char *c, size_t *indent)
{
    size_t i = 0;
    while (i < 4 && p + i < e && p[i] == ' ')
        i++;
    if (i > 3 || p + i >= e || (p[i] != '`' && p[i] != '~'))
        return 0;
    size_t k = i;
    while (p + k < e && p[k] == p[i])
        k++;
    if (k - i < 3)
        return 0;
    *c = p[i];
    *indent = i;
    return k - i;
}

/* The language of an info string: its first word, lower case, up to a character that is not
 * part of a language name ("python:model.py" -> "python", "c++" stays). */
static void info_lang(const char *p, const char *e, char *lang, size_t n)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    size_t k = 0;
    while (p < e && k + 1 < n) {
        char c = *p++;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '#' || c == '-' || c == '_'))
            break;
        lang[k++] = c;
    }
    lang[k] = '\0';
}

static int scan_fences(const char *t, size_t len, size_t from, blocks *bs)
{
    int line = 1;
    for (size_t i = 0; i < from; i++)
        line += t[i] == '\n';
    block *open = NULL;
    for (size_t ls = from; ls < len; line++) {
        const char *nl = memchr(t + ls, '\n', len - ls);
        size_t le = nl ? (size_t)(nl - t) : len, next = nl ? le + 1 : len;
        const char *p = t + ls, *e = t + le;
        char c = 0;
        size_t indent = 0, run = fence_run(p, e, &c, &indent);
        if (open) {
            const char *q = p + indent + run;
            while (q < e && (*q == ' ' || *q == '\t'))
                q++;
            if (run && c == open->fence && run >= open->run && q == e) {
                open->end = ls;
                open->close_line = line;
                open = NULL;
            }
        } else if (run && !(c == '`' && memchr(p + indent + run, '`', (size_t)(e - p) - indent - run))) {
            if (bs->n == bs->cap) {
                size_t cap = bs->cap ? 2 * bs->cap : 8;
                block *v = realloc(bs->v, cap * sizeof *v);
                if (!v)
                    return -1;
                bs->v = v;
                bs->cap = cap;
            }
            open = &bs->v[bs->n++];
            memset(open, 0, sizeof *open);
            open->open_line = line;
            open->fence = c;
            open->indent = indent;
            open->run = run;
            open->begin = next;
            info_lang(p + indent + run, e, open->lang, sizeof open->lang);
        }
        ls = next;
    }
    if (open)
        open->end = len; /* never closed: close_line stays 0 */
    return 0;
}

static int lang_in(const char *lang, const char *const *family)
{
    for (; *family; family++)
        if (!strcmp(lang, *family))
            return 1;
    return 0;
}

static const char *const py_langs[] = {"python", "py", "python3", "py3", NULL};
static const char *const cu_langs[] = {"cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc", "c", NULL};

static int candidate(const block *b, kb_prompt_style style)
{
    return !b->lang[0] || lang_in(b->lang, style == KB_STYLE_ABI ? cu_langs : py_langs);
}

/* "python block at lines 3-40" (the fences' lines) */
static void describe(const block *b, char *buf, size_t n)
{
    snprintf(buf, n, "%s block at lines %d-%d", b->lang[0] ? b->lang : "untagged", b->open_line, b->close_line);
}

/* Appends ", <description>" for every block that `want` selects (at most `most`, then "..."). */
static void list_blocks(const blocks *bs, kb_prompt_style style, int want_candidates, char *buf, size_t n, int most)
{
    int shown = 0;
    for (size_t i = 0; i < bs->n; i++) {
        if (candidate(&bs->v[i], style) != want_candidates)
            continue;
        size_t k = strlen(buf);
        if (shown++ == most) {
            snprintf(buf + k, n - k, ", ...");
            return;
        }
        char d[96];
        describe(&bs->v[i], d, sizeof d);
        snprintf(buf + k, n - k, "%s%s", shown > 1 ? ", " : "", d);
    }
}

/* ---- the entry point ------------------------------------------------------------------------- */

/* src with comments blanked and string / character literal bytes as '$'. */
static char *c_mask(const char *s, size_t n)
{
    char *m = malloc(n + 1);
    if (!m)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        m[i] = s[i];
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
            for (; i < n && s[i] != '\n'; i++)
                m[i] = ' ';
            if (i < n)
                m[i] = '\n';
        } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
            m[i] = m[i + 1] = ' ';
            for (i += 2; i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/'); i++)
                m[i] = s[i] == '\n' ? '\n' : ' ';
            if (i + 1 < n) {
                m[i] = m[i + 1] = ' ';
                i++;
            }
        } else if (s[i] == '"' || s[i] == '\'') {
            char q = s[i];
            m[i] = '$';
            for (i++; i < n && s[i] != q && s[i] != '\n'; i++) {
                m[i] = '$';
                if (s[i] == '\\' && i + 1 < n)
                    m[++i] = '$';
            }
            if (i < n)
                m[i] = s[i] == '\n' ? '\n' : '$';
        }
    }
    m[n] = '\0';
    return m;
}

static int c_ident(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* 1: `name` is defined (NAME(...) followed by a body), 0: only declared or mentioned, -1: absent. */
static int c_defines(const char *m, size_t n, const char *name)
{
    size_t k = strlen(name);
    int seen = -1;
    for (size_t i = 0; i + k <= n; i++) {
        if (strncmp(m + i, name, k) != 0 || (i > 0 && c_ident(m[i - 1])) || (i + k < n && c_ident(m[i + k])))
            continue;
        seen = 0;
        size_t j = i + k;
        while (j < n && (m[j] == ' ' || m[j] == '\t' || m[j] == '\n'))
            j++;
        if (j >= n || m[j] != '(')
            continue;
        int depth = 0;
        for (; j < n; j++) {
            depth += m[j] == '(';
            depth -= m[j] == ')';
            if (depth == 0)
                break;
        }
        for (j++; j < n && (m[j] == ' ' || m[j] == '\t' || m[j] == '\n' || c_ident(m[j])); j++)
            ; /* noexcept, const, ... */
        if (j < n && m[j] == '{')
            return 1;
    }
    return seen;
}

/* Top-level `class ModelNew` (or ModelNew = ...) in a Python block; else the reason. */
static int check_py(const char *code, size_t n, const char *where, char *reason, size_t rn, kb_err *err)
{
    kb_py_module m;
    if (kb_py_parse(code, n, &m, err) != 0)
        return -1;
    int ok = 0;
    char classes[256] = "";
    for (size_t i = 0; i < m.n && !ok; i++) {
        const kb_py_stmt *st = &m.stmts[i];
        if (st->kind == KB_PY_CLASS || st->kind == KB_PY_ASSIGN)
            ok = !strcmp(st->name, "ModelNew");
        if (st->kind == KB_PY_CLASS) {
            size_t k = strlen(classes);
            snprintf(classes + k, sizeof classes - k, "%s%s", k ? ", " : "", st->name);
        }
    }
    kb_py_free(&m);
    if (!ok)
        snprintf(reason, rn, "no top-level class ModelNew in the %s (%s%s)", where,
                 classes[0] ? "its classes: " : "it defines no class", classes);
    return ok;
}

/* A definition of kb_forward in a CUDA block; else the reason. */
static int check_cu(const char *code, size_t n, const char *where, char *reason, size_t rn, kb_err *err)
{
    char *m = c_mask(code, n);
    if (!m)
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    int d = c_defines(m, n, "kb_forward");
    int torch = strstr(code, "torch/extension.h") || strstr(code, "PYBIND11_MODULE");
    free(m);
    if (d == 1)
        return 1;
    snprintf(reason, rn, "%s in the %s: the ABI's entry point is int kb_forward(const kb_args *args)%s",
             d == 0 ? "kb_forward is declared but not defined" : "no kb_forward", where,
             torch ? " (the block is a PyTorch extension)" : "");
    return 0;
}

/* ---- one response ---------------------------------------------------------------------------- */

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* CRLF and CR to LF, without a leading UTF-8 byte-order mark; malloc'd, NUL-terminated. */
static char *normalise(const char *text, size_t len, size_t *out_len)
{
    char *t = malloc(len + 1);
    if (!t)
        return NULL;
    size_t i = len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0, k = 0;
    for (; i < len; i++) {
        if (text[i] == '\r') {
            t[k++] = '\n';
            i += i + 1 < len && text[i + 1] == '\n';
        } else {
            t[k++] = text[i];
        }
    }
    t[k] = '\0';
    *out_len = k;
    return t;
}

static void result(kb_extract_result *r, kb_extract_outcome o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void result(kb_extract_result *r, kb_extract_outcome o, const char *fmt, ...)
{
    r->outcome = o;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

/* The content of b with the opening fence's indentation removed from each line. */
static char *unindent(const char *t, const block *b, size_t *n)
{
    char *c = malloc(b->end - b->begin + 1);
    if (!c)
        return NULL;
    size_t k = 0;
    for (size_t i = b->begin; i < b->end;) {
        for (size_t s = 0; s < b->indent && i < b->end && t[i] == ' '; s++)
            i++;
        while (i < b->end && t[i] != '\n')
            c[k++] = t[i++];
        if (i < b->end)
            c[k++] = t[i++];
    }
    c[k] = '\0';
    *n = k;
    return c;
}

static int line_of(const char *t, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off; i++)
        line += t[i] == '\n';
    return line;
}

/* What every text meets first: a NUL byte is not_text; then, on its copy with LF line ends and no
 * byte-order mark, nothing but white space is empty. Returns 1 with that copy in *t (malloc'd, *n
 * bytes, *from: its first byte that is no white space); 0 with r's outcome set; -1 out of memory.
 * `what` names the text in the reasons ("response", "file"). */
static int first_checks(const char *text, size_t len, const char *what, kb_extract_result *r, char **t, size_t *n,
                        size_t *from, kb_err *err)
{
    memset(r, 0, sizeof *r);
    const void *nul = memchr(text, '\0', len);
    if (nul) {
        result(r, KB_EX_NOT_TEXT, "a NUL byte at offset %zu: not a text %s", (size_t)((const char *)nul - text), what);
        return 0;
    }
    if (!(*t = normalise(text, len, n)))
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    for (*from = 0; *from < *n && is_ws((*t)[*from]);)
        (*from)++;
    if (*from < *n)
        return 1;
    if (*n)
        result(r, KB_EX_EMPTY, "only white space (%zu bytes)", *n);
    else
        result(r, KB_EX_EMPTY, "an empty %s", what);
    free(*t);
    *t = NULL;
    return 0;
}

int kb_extract_response(const char *text, size_t len, kb_prompt_style style, kb_extract_result *r, kb_err *err)
{
    size_t n, from;
    char *t;
    int go = first_checks(text, len, "response", r, &t, &n, &from, err);
    if (go <= 0)
        return go;
    if (strncmp(t + from, "<think>", 7) != 0) {
        from = 0; /* fences are read from the start of their line */
    } else {
        const char *end = strstr(t + from + 7, "</think>");
        if (!end) {
            result(r, KB_EX_TRUNCATED, "the <think> section opened at line %d never closes: the output was cut off",
                   line_of(t, from));
            free(t);
            return 0;
        }
        from = (size_t)(end - t) + 8;
    }
    blocks bs = {0};
    if (scan_fences(t, n, from, &bs) != 0) {
        free(t);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    const char *lang = style == KB_STYLE_ABI ? "cuda (or c/c++)" : "python";
    size_t nc = 0, last = 0;
    for (size_t i = 0; i < bs.n; i++)
        if (candidate(&bs.v[i], style)) {
            nc++;
            last = i;
        }
    int rc = 0;
    if (bs.n && !bs.v[bs.n - 1].close_line) {
        const block *b = &bs.v[bs.n - 1];
        result(r, KB_EX_TRUNCATED, "the %s fence %.3s opened at line %d never closes: the output was cut off",
               b->lang[0] ? b->lang : "untagged", b->fence == '~' ? "~~~" : "```", b->open_line);
    } else if (!bs.n) {
        result(r, KB_EX_NO_CODE_BLOCK, "no fenced code block (``` or ~~~) in %zu bytes", len);
    } else if (!nc) {
        result(r, KB_EX_WRONG_LANGUAGE, "no %s block; in other languages: ", lang);
        list_blocks(&bs, style, 0, r->reason, sizeof r->reason, 4);
    } else if (nc > 1) {
        result(r, KB_EX_SEVERAL_BLOCKS, "%zu candidate blocks, which one is the answer is ambiguous: ", nc);
        list_blocks(&bs, style, 1, r->reason, sizeof r->reason, 4);
    } else {
        const block *b = &bs.v[last];
        char where[96];
        describe(b, where, sizeof where);
        size_t cn = 0;
        char *code = unindent(t, b, &cn);
        int ok = code ? 0 : kb_errf(err, KB_EXIT_FAIL, "out of memory");
        if (code && cn == 0)
            result(r, KB_EX_WRONG_NAME, "the %s is empty", where);
        else if (code)
            ok = style == KB_STYLE_ABI ? check_cu(code, cn, where, r->reason, sizeof r->reason, err)
                                       : check_py(code, cn, where, r->reason, sizeof r->reason, err);
        if (ok < 0) {
            rc = -1;
        } else if (ok) {
            result(r, KB_EX_OK, "%s", where);
            if (bs.n > 1) {
                size_t k = strlen(r->reason);
                snprintf(r->reason + k, sizeof r->reason - k, "; ignored, in other languages: ");
                list_blocks(&bs, style, 0, r->reason, sizeof r->reason, 4);
            }
            r->code = code;
            r->code_len = cn;
            code = NULL;
        } else if (cn) {
            r->outcome = KB_EX_WRONG_NAME;
        }
        free(code);
    }
    free(bs.v);
    free(t);
    return rc;
}

int kb_extract_file(const char *text, size_t len, kb_prompt_style style, kb_extract_result *r, kb_err *err)
{
    /* checked as a block is (line ends made LF, no byte-order mark); the sample is the bytes */
    size_t n, from;
    char *t;
    int go = first_checks(text, len, "file", r, &t, &n, &from, err);
    if (go <= 0)
        return go;
    int ok = style == KB_STYLE_ABI ? check_cu(t, n, "file", r->reason, sizeof r->reason, err)
                                   : check_py(t, n, "file", r->reason, sizeof r->reason, err);
    free(t);
    if (ok < 0)
        return -1;
    if (!ok) {
        r->outcome = KB_EX_WRONG_NAME;
        return 0;
    }
    if (!(r->code = malloc(len + 1)))
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    memcpy(r->code, text, len);
    r->code[len] = '\0';
    r->code_len = len;
    result(r, KB_EX_OK, "the file, taken unchanged");
    return 0;
}
