/* rules_arithmetic.c -- the arithmetic family of mutation rules (docs/mutation.md; the table is in mutate.c). */
#include "mutation/mutate_rules.h"

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
void mut_r_eps_up(ctx *c)
{
    double v;
    char sfx[4], out[64];
    for (long i = 0; ok(c, i); i++)
        if (literal_value(c, i, &v, sfx) && fabs(v) < 1e-2) {
            literal_text(out, sizeof out, v * 100.0, sfx);
            mut_emit_toks(c, i, i, out, NULL);
        }
}

/* |v| >= 1e-2: x 1.01, 0.5f -> 0.505f, 1.0f -> 1.01f */
void mut_r_const_nudge(ctx *c)
{
    double v;
    char sfx[4], out[64];
    for (long i = 0; ok(c, i); i++)
        if (literal_value(c, i, &v, sfx) && fabs(v) >= 1e-2) {
            literal_text(out, sizeof out, v * 1.01, sfx);
            mut_emit_toks(c, i, i, out, NULL);
        }
}

static int arith_site(const ctx *c, long i)
{
    return c->dev[i] && !c->cond[i] && !(c->enc[i] >= 0 && is(c, c->enc[i], "[")) && operand_end_tok(c, i - 1) &&
           !is(c, i + 1, "=") && floaty(c, i);
}
void mut_r_add_to_sub(ctx *c)
{
    for (long i = 1; ok(c, i); i++)
        if (is(c, i, "+") && arith_site(c, i))
            mut_emit_toks(c, i, i, "-", NULL);
}
void mut_r_sub_to_add(ctx *c)
{
    for (long i = 1; ok(c, i); i++)
        if (is(c, i, "-") && arith_site(c, i))
            mut_emit_toks(c, i, i, "+", NULL);
}
void mut_r_accum_sign(ctx *c)
{
    for (long i = 1; ok(c, i); i++)
        if (c->dev[i] && !c->cond[i] && (is(c, i, "+=") || is(c, i, "-=")) && floaty(c, i))
            mut_emit_toks(c, i, i, is(c, i, "+=") ? "-=" : "+=", NULL);
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
                mut_emit_toks(c, i, i, to[k], NULL);
                break;
            }
    }
}
void mut_r_fast_intrinsic(ctx *c)
{
    static const char *const F[] = {"expf", "logf", "sinf", "cosf", "tanf", "powf", "exp10f", "log2f", "log10f", NULL};
    static const char *const T[] = {"__expf", "__logf", "__sinf", "__cosf", "__tanf", "__powf", "__exp10f", "__log2f",
                                    "__log10f", NULL};
    rename_calls(c, F, T, 0);
}
void mut_r_sqrt_rsqrt(ctx *c)
{
    static const char *const F[] = {"sqrtf", "rsqrtf", "sqrt", "rsqrt", NULL};
    static const char *const T[] = {"rsqrtf", "sqrtf", "rsqrt", "sqrt", NULL};
    rename_calls(c, F, T, 0);
}
void mut_r_exp_base(ctx *c)
{
    static const char *const F[] = {"expf", "exp", "__expf", "logf", "log", "__logf", NULL};
    static const char *const T[] = {"exp2f", "exp2", "exp2f", "log2f", "log2", "__log2f", NULL};
    rename_calls(c, F, T, 0);
}
void mut_r_max_min_swap(ctx *c)
{
    static const char *const F[] = {"fmaxf", "fminf", "fmax", "fmin", "max", "min", NULL};
    static const char *const T[] = {"fminf", "fmaxf", "fmin", "fmax", "min", "max", NULL};
    rename_calls(c, F, T, 1);
}
