/* mutate.c -- the mutation rules' table, the emitter they share and the driver that runs them over
 * a source (kb_mutate.h, docs/mutation.md); the scanner is lex.c, the rules rules_<family>.c. */
#include "mutation/mutate_rules.h"

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
void mut_emit(ctx *c, long site, size_t off, size_t len, const char *text, const char *incl)
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
void mut_emit_toks(ctx *c, long a, long b, const char *text, const char *incl)
{
    mut_emit(c, a, TK(a)->off, tend(c, b) - TK(a)->off, text, incl);
}

/* the source text of tokens [a, b) */
int mut_span(const ctx *c, long a, long b, char *buf, size_t cap)
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
    mut_r_lt_to_le, mut_r_le_to_lt, mut_r_ge_to_gt, mut_r_guard_removed, mut_r_early_exit_removed, mut_r_ceil_div_floor, mut_r_drop_minus_one,
    mut_r_drop_plus_one, mut_r_syncthreads_removed, mut_r_syncwarp_removed, mut_r_launch_stream_default, mut_r_call_stream_default,
    mut_r_stream_wait_removed, mut_r_atomic_to_plain, mut_r_acc_half, mut_r_acc_bf16, mut_r_operands_half, mut_r_operands_bf16,
    mut_r_double_to_float, mut_r_transpose, mut_r_drop_offset_term, mut_r_stride_minus_one, mut_r_swap_2d, mut_r_tid_xy_swap, mut_r_eps_up,
    mut_r_const_nudge, mut_r_add_to_sub, mut_r_sub_to_add, mut_r_accum_sign, mut_r_fast_intrinsic, mut_r_sqrt_rsqrt, mut_r_exp_base,
    mut_r_max_min_swap, mut_r_drop_call, mut_r_ternary_else, mut_r_ternary_then, mut_r_drop_update, mut_r_eval_mean, mut_r_eval_var,
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
