/*
 * mutate_rules.h -- internal to lib/mutation: what the rule families (rules_<family>.c) share with
 * the driver (mutate.c): the analysed source (ctx), the token predicates every rule uses, and the
 * emitter that turns one edit at one site into a mutant. Not a public header: kb_mutate.h is.
 */
#ifndef KB_MUTATE_RULES_H
#define KB_MUTATE_RULES_H

#include "mutation/kb_mutate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the analysed source and its tokens -------------------------------------------------------------------------------- */

typedef struct mut_ctx {
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
static inline const char *tx(const ctx *c, long i) { return c->s + c->t.v[i].off; }
static inline int ok(const ctx *c, long i) { return i >= 0 && (size_t)i < c->t.n; }
/* token i is exactly w (and belongs to the same region as token j, when j >= 0) */
static inline int is(const ctx *c, long i, const char *w)
{
    return ok(c, i) && c->t.v[i].len == strlen(w) && !strncmp(tx(c, i), w, c->t.v[i].len);
}
static inline int same_text(const ctx *c, long a, long b)
{
    return ok(c, a) && ok(c, b) && TK(a)->len == TK(b)->len && !strncmp(tx(c, a), tx(c, b), TK(a)->len);
}
static inline size_t tend(const ctx *c, long i) { return TK(i)->off + TK(i)->len; }
static inline int ident(const ctx *c, long i) { return ok(c, i) && TK(i)->kind == KB_TK_IDENT; }
static inline int number(const ctx *c, long i) { return ok(c, i) && TK(i)->kind == KB_TK_NUMBER; }
static inline int code(const ctx *c, long i) { return ok(c, i) && !TK(i)->pp; }
static inline int one_of(const ctx *c, long i, const char *const *ws)
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
static inline int keyword(const ctx *c, long i) { return one_of(c, i, KEYWORDS); }
/* could token i end an operand (so that the next + - < is binary)? */
static inline int operand_end_tok(const ctx *c, long i)
{
    return (ident(c, i) && !keyword(c, i)) || number(c, i) || is(c, i, ")") || is(c, i, "]");
}

/* A simple operand from token i: IDENT | NUMBER | ( ... ), then any [..], (..), .name, ->name.
 * Returns the index after it, or -1. */
static inline long op_fwd(const ctx *c, long i)
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
static inline long stmt_semi(const ctx *c, long i)
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

static inline int stmt_start_tok(const ctx *c, long i) { return !ok(c, i) || is(c, i, ";") || is(c, i, "{") || is(c, i, "}"); }

/* a floating-point value: a name declared float/double/__half/float2/float4, or such a pointer subscripted
 * (not a member: blockIdx.x is no float) */
static inline int fvar(const ctx *c, long i)
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
static inline int float_literal(const ctx *c, long i)
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
static inline int floaty(const ctx *c, long i)
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


/* the top-level arguments between open (exclusive) and close (exclusive): first tokens in a[], up to 8 */
static inline int split_args(const ctx *c, long open, long close, long *a, long *z)
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

/* ---- emitting a mutant (mutate.c) ---------------------------------------------------------------- */

/* One mutant of the current rule at token `site`: src[off, off+len) replaced by text, plus an
 * #include of incl (NULL: none) when the source lacks it. Duplicates and no-ops are dropped. */
void mut_emit(ctx *c, long site, size_t off, size_t len, const char *text, const char *incl);
/* The same over the tokens [a, b]. */
void mut_emit_toks(ctx *c, long a, long b, const char *text, const char *incl);
/* The text of tokens [a, b] into buf (NUL-terminated); 0 when it does not fit. */
int mut_span(const ctx *c, long a, long b, char *buf, size_t cap);

/* ---- the rules, one function each, by family (rules_<family>.c) ------------------------------------ */
/* boundary */
void mut_r_lt_to_le(ctx *c);
void mut_r_le_to_lt(ctx *c);
void mut_r_ge_to_gt(ctx *c);
void mut_r_guard_removed(ctx *c);
void mut_r_early_exit_removed(ctx *c);
void mut_r_ceil_div_floor(ctx *c);
void mut_r_drop_minus_one(ctx *c);
void mut_r_drop_plus_one(ctx *c);
/* sync */
void mut_r_syncthreads_removed(ctx *c);
void mut_r_syncwarp_removed(ctx *c);
void mut_r_launch_stream_default(ctx *c);
void mut_r_call_stream_default(ctx *c);
void mut_r_stream_wait_removed(ctx *c);
void mut_r_atomic_to_plain(ctx *c);
/* precision */
void mut_r_acc_half(ctx *c);
void mut_r_acc_bf16(ctx *c);
void mut_r_operands_half(ctx *c);
void mut_r_operands_bf16(ctx *c);
void mut_r_double_to_float(ctx *c);
/* indexing */
void mut_r_transpose(ctx *c);
void mut_r_drop_offset_term(ctx *c);
void mut_r_stride_minus_one(ctx *c);
void mut_r_swap_2d(ctx *c);
void mut_r_tid_xy_swap(ctx *c);
/* arithmetic */
void mut_r_eps_up(ctx *c);
void mut_r_const_nudge(ctx *c);
void mut_r_add_to_sub(ctx *c);
void mut_r_sub_to_add(ctx *c);
void mut_r_accum_sign(ctx *c);
void mut_r_fast_intrinsic(ctx *c);
void mut_r_sqrt_rsqrt(ctx *c);
void mut_r_exp_base(ctx *c);
void mut_r_max_min_swap(ctx *c);
/* semantics */
void mut_r_drop_call(ctx *c);
void mut_r_ternary_else(ctx *c);
void mut_r_ternary_then(ctx *c);
void mut_r_drop_update(ctx *c);
void mut_r_eval_mean(ctx *c);
void mut_r_eval_var(ctx *c);

#endif
