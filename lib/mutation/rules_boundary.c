/* rules_boundary.c -- the boundary family of mutation rules (docs/mutation.md; the table is in mutate.c). */
#include "mutation/mutate_rules.h"

/* ---- boundary --------------------------------------------------------------------------------- */

static const char *const CASTS[] = {"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "template", NULL};

static void cmp_swap(ctx *c, const char *from, const char *to)
{
    for (long i = 0; ok(c, i); i++)
        if (code(c, i) && c->cond[i] && is(c, i, from) && operand_end_tok(c, i - 1) && !one_of(c, i - 1, CASTS) &&
            (ident(c, i + 1) || is(c, i + 1, "(")) && !keyword(c, i + 1))
            mut_emit_toks(c, i, i, to, NULL);
}
void mut_r_lt_to_le(ctx *c) { cmp_swap(c, "<", "<="); }
void mut_r_le_to_lt(ctx *c) { cmp_swap(c, "<=", "<"); }
void mut_r_ge_to_gt(ctx *c) { cmp_swap(c, ">=", ">"); }

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

void mut_r_guard_removed(ctx *c)
{
    static const char *const LT[] = {"<", "<=", NULL};
    static const char *const EXITS[] = {"return", "break", "continue", NULL};
    for (long i = 0; ok(c, i); i++) {
        if (!c->dev[i] || !is(c, i, "if") || !is(c, i + 1, "(") || TK(i + 1)->match < 0)
            continue;
        long m = TK(i + 1)->match, e = body_end(c, m + 1);
        if (e < 0 || !simple_cond(c, i + 1, LT) || one_of(c, m + 1, EXITS) || is(c, e + 1, "else"))
            continue;
        mut_emit(c, i, TK(i)->off, TK(m + 1)->off - TK(i)->off, "", NULL);
    }
}

void mut_r_early_exit_removed(ctx *c)
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
        mut_emit_toks(c, i, is(c, m + 1, "{") ? b + 2 : b + 1, "", NULL);
    }
}

/* (A + B - 1) / B -> (A) / B: a ceiling division made a floor division (the tail is lost) */
void mut_r_ceil_div_floor(ctx *c)
{
    for (long i = 1; ok(c, i + 6); i++)
        if (code(c, i) && is(c, i, "+") && (ident(c, i + 1) || number(c, i + 1)) && is(c, i + 2, "-") &&
            is(c, i + 3, "1") && is(c, i + 4, ")") && is(c, i + 5, "/") && same_text(c, i + 1, i + 6) &&
            operand_end_tok(c, i - 1))
            mut_emit(c, i, tend(c, i - 1), TK(i + 4)->off - tend(c, i - 1), "", NULL);
}

static void drop_one(ctx *c, const char *op)
{
    static const char *const AFTER[] = {")", ";", "&&", "||", "]", NULL};
    for (long i = 1; ok(c, i + 2); i++)
        if (code(c, i) && c->cond[i] && is(c, i, op) && is(c, i + 1, "1") && operand_end_tok(c, i - 1) &&
            one_of(c, i + 2, AFTER))
            mut_emit(c, i, tend(c, i - 1), tend(c, i + 1) - tend(c, i - 1), "", NULL);
}
void mut_r_drop_minus_one(ctx *c) { drop_one(c, "-"); }
void mut_r_drop_plus_one(ctx *c) { drop_one(c, "+"); }
