/* rules_precision.c -- the precision family of mutation rules (docs/mutation.md; the table is in mutate.c). */
#include "mutation/mutate_rules.h"

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
            mut_emit_toks(c, i, i, type, incl);
    }
}
void mut_r_acc_half(ctx *c) { acc_type(c, "__half", "cuda_fp16.h"); }
void mut_r_acc_bf16(ctx *c) { acc_type(c, "__nv_bfloat16", "cuda_bf16.h"); }

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
            if (be < 0 || !is(c, be, ";") || mut_span(c, i + 1, ae, a, sizeof a) || mut_span(c, ae + 1, be, b, sizeof b))
                continue;
            if (kb_fmt(out, sizeof out, "%s(%s(%s)) * %s(%s(%s))", back, to, a, back, to, b) < 0)
                continue;
            mut_emit_toks(c, i + 1, be - 1, out, incl);
        } else if (is(c, i, "fmaf") && is(c, i + 1, "(") && TK(i + 1)->match > 0) {
            long az[8], zz[8];
            char rest[512];
            if (split_args(c, i + 1, TK(i + 1)->match, az, zz) != 3 || mut_span(c, az[0], zz[0] + 1, a, sizeof a) ||
                mut_span(c, az[1], zz[1] + 1, b, sizeof b) || mut_span(c, az[2], zz[2] + 1, rest, sizeof rest))
                continue;
            if (kb_fmt(out, sizeof out, "fmaf(%s(%s(%s)), %s(%s(%s)), %s)", back, to, a, back, to, b, rest) < 0)
                continue;
            mut_emit_toks(c, i, TK(i + 1)->match, out, incl);
        }
    }
}
void mut_r_operands_half(ctx *c) { operands(c, "__float2half", "__half2float", "cuda_fp16.h"); }
void mut_r_operands_bf16(ctx *c) { operands(c, "__float2bfloat16", "__bfloat162float", "cuda_bf16.h"); }

void mut_r_double_to_float(ctx *c)
{
    for (long i = 0; ok(c, i); i++)
        if (code(c, i) && is(c, i, "double"))
            mut_emit_toks(c, i, i, "float", NULL);
}
