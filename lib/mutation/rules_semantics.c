/* rules_semantics.c -- the semantics family of mutation rules (docs/mutation.md; the table is in mutate.c). */
#include "mutation/mutate_rules.h"

/* ---- semantics -------------------------------------------------------------------------------- */

/* f(x) -> (x), f(x, c) -> (x) (the non-constant argument): one op of a chain dropped */
void mut_r_drop_call(ctx *c)
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
        if (mut_span(c, a[k], z[k] + 1, arg, sizeof arg))
            continue;
        if (kb_fmt(out, sizeof out, "(%s)", arg) < 0)
            continue;
        mut_emit_toks(c, i, TK(i + 1)->match, out, NULL);
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
        if (keep_then ? mut_span(c, i + 1, xe + 1, part, sizeof part) : mut_span(c, ys, ye + 1, part, sizeof part))
            continue;
        if (kb_fmt(out, sizeof out, "(%s)", part) < 0)
            continue;
        mut_emit_toks(c, cs, ye, out, NULL);
    }
}
void mut_r_ternary_else(ctx *c) { ternary_keep(c, 0); }
void mut_r_ternary_then(ctx *c) { ternary_keep(c, 1); }

/* NAME = f(NAME ...);  NAME *= ...;  NAME /= ...; at a statement's start: the update deleted */
void mut_r_drop_update(ctx *c)
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
            mut_emit_toks(c, i, e, "", NULL);
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
        mut_emit_toks(c, i + 2, e - 1, value, NULL);
    }
}
void mut_r_eval_mean(ctx *c)
{
    static const char *const N[] = {"mean", "mu", NULL};
    stat_rule(c, N, "0.0f");
}
void mut_r_eval_var(ctx *c)
{
    static const char *const V[] = {"var", "variance", NULL};
    static const char *const R[] = {"invstd", "rstd", "inv_std", NULL};
    stat_rule(c, V, "1.0f");
    stat_rule(c, R, "rsqrtf(1.0f + 1e-5f)");
}
