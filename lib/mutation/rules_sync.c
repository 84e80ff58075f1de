/* rules_sync.c -- the sync family of mutation rules (docs/mutation.md; the table is in mutate.c). */
#include "mutation/mutate_rules.h"

/* ---- synchronisation -------------------------------------------------------------------------- */

void mut_r_syncthreads_removed(ctx *c)
{
    for (long i = 0; ok(c, i + 3); i++)
        if (code(c, i) && is(c, i, "__syncthreads") && is(c, i + 1, "(") && is(c, i + 2, ")") && is(c, i + 3, ";"))
            mut_emit_toks(c, i, i + 3, "", NULL);
}

void mut_r_syncwarp_removed(ctx *c)
{
    for (long i = 0; ok(c, i + 1); i++)
        if (code(c, i) && is(c, i, "__syncwarp") && is(c, i + 1, "(") && TK(i + 1)->match > 0 &&
            is(c, TK(i + 1)->match + 1, ";"))
            mut_emit_toks(c, i, TK(i + 1)->match + 1, "", NULL);
}


void mut_r_launch_stream_default(ctx *c)
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
        mut_emit_toks(c, a[3], z[3], "0", NULL);
    }
}

void mut_r_call_stream_default(ctx *c)
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
            mut_emit_toks(c, i, e, "0", NULL);
    }
}

void mut_r_stream_wait_removed(ctx *c)
{
    static const char *const WAITS[] = {"cudaStreamWaitEvent", "cudaStreamSynchronize", "cudaEventSynchronize",
                                        "cudaDeviceSynchronize", NULL};
    for (long i = 0; ok(c, i + 1); i++) {
        if (!code(c, i) || !one_of(c, i, WAITS) || !is(c, i + 1, "(") || TK(i + 1)->match < 0)
            continue;
        long m = TK(i + 1)->match;
        if (stmt_start_tok(c, i - 1) && is(c, m + 1, ";"))
            mut_emit_toks(c, i, m + 1, "", NULL);
        else
            mut_emit_toks(c, i, m, "cudaSuccess", NULL);
    }
}

void mut_r_atomic_to_plain(ctx *c)
{
    for (long i = 0; ok(c, i + 1); i++) {
        if (!code(c, i) || !is(c, i, "atomicAdd") || !is(c, i + 1, "(") || TK(i + 1)->match < 0)
            continue;
        long m = TK(i + 1)->match, a[8], z[8];
        char x[512], y[512], out[1100];
        if (!is(c, m + 1, ";") || !(stmt_start_tok(c, i - 1) || is(c, i - 1, ")") || is(c, i - 1, "else")) ||
            split_args(c, i + 1, m, a, z) != 2 || mut_span(c, a[0], z[0] + 1, x, sizeof x) ||
            mut_span(c, a[1], z[1] + 1, y, sizeof y))
            continue;
        if (kb_fmt(out, sizeof out, "*(%s) += (%s)", x, y) < 0)
            continue;
        mut_emit_toks(c, i, m, out, NULL);
    }
}
