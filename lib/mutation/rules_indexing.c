/* rules_indexing.c -- the indexing family of mutation rules (docs/mutation.md; the table is in mutate.c). */
#include "mutation/mutate_rules.h"

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
void mut_r_transpose(ctx *c)
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
            if (se != z[t] || op_fwd(c, a[t + 1]) != z[t + 1] || mut_span(c, a[t], xe, x, sizeof x) ||
                mut_span(c, xe + 1, se, sx, sizeof sx) || mut_span(c, a[t + 1], z[t + 1], y, sizeof y) || !strcmp(x, y))
                continue;
            if (kb_fmt(out, sizeof out, "%s * %s + %s", y, sx, x) < 0)
                continue;
            mut_emit_toks(c, a[t], z[t + 1] - 1, out, NULL);
        }
    }
}

void mut_r_drop_offset_term(ctx *c)
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
                    mut_emit(c, a[t], TK(a[t])->off, TK(a[t + 1])->off - TK(a[t])->off, "", NULL);
                else
                    mut_emit(c, z[t - 1], tend(c, z[t - 1] - 1), tend(c, z[t] - 1) - tend(c, z[t - 1] - 1), "", NULL);
            }
        } else if (c->dev[i] && is(c, i, "=") && ident(c, i + 1) && is(c, i + 2, "+")) {
            /* p = base + b * stride; (a pointer or index offset) */
            long e = stmt_semi(c, i + 3);
            if (e > i + 3 && has_top_mul(c, i + 3, e))
                mut_emit(c, i + 2, tend(c, i + 1), TK(e)->off - tend(c, i + 1), "", NULL);
        }
    }
}

void mut_r_stride_minus_one(ctx *c)
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
            if (se != z[t] || (se == xe + 2 && is(c, xe + 1, "1")) || mut_span(c, xe + 1, se, sv, sizeof sv))
                continue;
            if (kb_fmt(out, sizeof out, "(%s - 1)", sv) < 0)
                continue;
            mut_emit_toks(c, xe + 1, se - 1, out, NULL);
        }
    }
}

void mut_r_swap_2d(ctx *c)
{
    char out[600];
    for (long i = 0; ok(c, i + 5); i++)
        if (code(c, i) && is(c, i, "[") && ident(c, i + 1) && is(c, i + 2, "]") && is(c, i + 3, "[") &&
            ident(c, i + 4) && is(c, i + 5, "]") && !same_text(c, i + 1, i + 4) && !is(c, i + 6, "[") &&
            !(ident(c, i - 1) && (keyword(c, i - 2) || is(c, i - 2, "__shared__")))) { /* not a declaration */
            snprintf(out, sizeof out, "[%.*s][%.*s]", (int)TK(i + 4)->len, tx(c, i + 4), (int)TK(i + 1)->len,
                     tx(c, i + 1));
            mut_emit_toks(c, i, i + 5, out, NULL);
        }
}

void mut_r_tid_xy_swap(ctx *c)
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
                mut_emit_toks(c, i + 2, i + 2, is(c, i + 2, "x") ? "y" : "x", NULL);
    }
}
