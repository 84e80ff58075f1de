/*
 * test_mutate.c -- lib/mutation/kb_mutate.h: the scanner and each family's rules on small snippets.
 *
 * Pinned (the data is the spec): for each case, the whole mutated text of the first mutant of one
 * rule; nothing inside a C comment, a string or a character literal is ever changed; a .py is
 * mutated only inside its cuda_sources strings (not its cpp_sources, Python comments or other
 * strings); the list is a function of the bytes (twice the same).
 */
#include "kbt.h"

#include "mutation/kb_mutate.h"

#define DEV(body) "__global__ void k(const float *x, float *y, int n)\n{\n" body "}\n"

/* the idx-th mutant of `rule` in src (NULL if there is none), as a malloc'd text */
static char *mutant(const char *src, int is_py, const char *rule, size_t idx, size_t *count)
{
    kb_mutant_list l;
    kb_err err = {0};
    KBT_CHECK(kb_mutate_find(src, strlen(src), is_py, &l, &err) == 0, "kb_mutate_find: %s", err.msg);
    char *out = NULL;
    size_t k = 0;
    for (size_t i = 0; i < l.n; i++)
        if (!rule || !strcmp(l.v[i].rule->name, rule)) {
            if (k == idx)
                out = strdup(l.v[i].text);
            k++;
        }
    if (count)
        *count = k;
    kb_mutant_list_free(&l);
    return out;
}

typedef struct rcase {
    const char *rule, *src, *want;
} rcase;

static const rcase CASES[] = {
    /* boundary */
    {"boundary.lt_to_le", DEV("    int i = threadIdx.x;\n    if (i < n) y[i] = x[i];\n"),
     DEV("    int i = threadIdx.x;\n    if (i <= n) y[i] = x[i];\n")},
    {"boundary.guard_removed", DEV("    int i = threadIdx.x;\n    if (i < n) y[i] = x[i];\n"),
     DEV("    int i = threadIdx.x;\n    y[i] = x[i];\n")},
    {"boundary.early_exit_removed", DEV("    int i = threadIdx.x;\n    if (i >= n) return;\n    y[i] = x[i];\n"),
     DEV("    int i = threadIdx.x;\n    \n    y[i] = x[i];\n")},
    {"boundary.ceil_div_floor", "int b = (n + T - 1) / T;\n", "int b = (n) / T;\n"},
    {"boundary.drop_minus_one", DEV("    for (int i = 0; i < n - 1; i++) y[i] = x[i];\n"),
     DEV("    for (int i = 0; i < n; i++) y[i] = x[i];\n")},
    /* sync */
    {"sync.syncthreads_removed", DEV("    y[0] = x[0];\n    __syncthreads();\n"), DEV("    y[0] = x[0];\n    \n")},
    {"sync.syncwarp_removed", DEV("    __syncwarp(0xffffffffu);\n"), DEV("    \n")},
    {"sync.launch_stream_default", "void f(void) { k<<<g, b, 0, args->stream>>>(x); }\n",
     "void f(void) { k<<<g, b, 0, 0>>>(x); }\n"},
    {"sync.call_stream_default", "void f(void) { cudaMemsetAsync(p, 0, n, args->stream); }\n",
     "void f(void) { cudaMemsetAsync(p, 0, n, 0); }\n"},
    {"sync.stream_wait_removed", "void f(void) { cudaStreamWaitEvent(s, e, 0); g(); }\n", "void f(void) {  g(); }\n"},
    /* precision */
    {"precision.acc_half", DEV("    float acc = 0.0f;\n    for (int k = 0; k < n; k++)\n        acc += x[k] * x[k];\n"),
     "#include <cuda_fp16.h>\n" DEV("    __half acc = 0.0f;\n    for (int k = 0; k < n; k++)\n        acc += x[k] * x[k];\n")},
    {"precision.operands_half", DEV("    float acc = 0.0f;\n    acc += x[0] * x[1];\n"),
     "#include <cuda_fp16.h>\n" DEV("    float acc = 0.0f;\n    acc += __half2float(__float2half(x[0])) * "
                                    "__half2float(__float2half(x[1]));\n")},
    {"precision.operands_bf16", DEV("    y[0] = fmaf(x[0], x[1], y[0]);\n"),
     "#include <cuda_bf16.h>\n" DEV("    y[0] = fmaf(__bfloat162float(__float2bfloat16(x[0])), "
                                    "__bfloat162float(__float2bfloat16(x[1])), y[0]);\n")},
    {"precision.double_to_float", "double s = 0;\n", "float s = 0;\n"},
    /* indexing */
    {"indexing.transpose", DEV("    y[r * n + c] = x[0];\n"), DEV("    y[c * n + r] = x[0];\n")},
    {"indexing.drop_offset_term", DEV("    y[b * n + i] = x[0];\n"), DEV("    y[i] = x[0];\n")},
    {"indexing.stride_minus_one", DEV("    y[r * n + c] = x[0];\n"), DEV("    y[r * (n - 1) + c] = x[0];\n")},
    {"indexing.swap_2d", DEV("    y[0] = t[i][j];\n"), DEV("    y[0] = t[j][i];\n")},
    {"indexing.tid_xy_swap", DEV("    y[threadIdx.x] = x[threadIdx.y];\n"), DEV("    y[threadIdx.y] = x[threadIdx.y];\n")},
    /* arithmetic */
    {"arithmetic.eps_up", DEV("    y[0] = x[0] + 1e-5f;\n"), DEV("    y[0] = x[0] + 0.001f;\n")},
    {"arithmetic.const_nudge", DEV("    y[0] = 0.5f * x[0];\n"), DEV("    y[0] = 0.505f * x[0];\n")},
    {"arithmetic.add_to_sub", DEV("    y[0] = x[0] + x[1];\n"), DEV("    y[0] = x[0] - x[1];\n")},
    {"arithmetic.accum_sign", DEV("    float s = 0.0f;\n    s += x[0];\n"), DEV("    float s = 0.0f;\n    s -= x[0];\n")},
    {"arithmetic.fast_intrinsic", DEV("    y[0] = expf(x[0]);\n"), DEV("    y[0] = __expf(x[0]);\n")},
    {"arithmetic.sqrt_rsqrt", DEV("    y[0] = sqrtf(x[0]);\n"), DEV("    y[0] = rsqrtf(x[0]);\n")},
    {"arithmetic.max_min_swap", DEV("    y[0] = fmaxf(x[0], x[1]);\n"), DEV("    y[0] = fminf(x[0], x[1]);\n")},
    /* semantics */
    {"semantics.drop_call", DEV("    y[0] = fmaxf(x[0], 0.0f);\n"), DEV("    y[0] = (x[0]);\n")},
    {"semantics.drop_call", DEV("    y[0] = tanhf(x[0]);\n"), DEV("    y[0] = (x[0]);\n")},
    {"semantics.ternary_else", DEV("    float v = x[0];\n    y[0] = v < 0.0f ? 0.0f : v;\n"),
     DEV("    float v = x[0];\n    y[0] = (v);\n")},
    {"semantics.drop_update", DEV("    float v = x[0];\n    v = v * 2.0f;\n    y[0] = v;\n"),
     DEV("    float v = x[0];\n    \n    y[0] = v;\n")},
    {"semantics.eval_mean", DEV("    float mean = x[0] / n;\n"), DEV("    float mean = 0.0f;\n")},
    {"semantics.eval_var", DEV("    float var = x[1] / n;\n"), DEV("    float var = 1.0f;\n")},
};

static void test_rules(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        char *got = mutant(CASES[k].src, 0, CASES[k].rule, 0, NULL);
        KBT_CHECK(got != NULL, "%s: no mutant of\n%s", CASES[k].rule, CASES[k].src);
        KBT_CHECK(!strcmp(got, CASES[k].want), "%s:\n got:\n%s\n want:\n%s", CASES[k].rule, got, CASES[k].want);
        free(got);
    }
}

/* every rule has a name family.rule of a known family, and at least two rules per family */
static void test_rule_table(void **state)
{
    (void)state;
    size_t n, per[6] = {0};
    const kb_mut_rule *r = kb_mut_rules(&n);
    for (size_t k = 0; k < n; k++) {
        int f = kb_mut_family_index(r[k].family);
        KBT_CHECK(f >= 0, "%s: unknown family %s", r[k].name, r[k].family);
        KBT_CHECK(!strncmp(r[k].name, r[k].family, strlen(r[k].family)) && r[k].name[strlen(r[k].family)] == '.',
                  "%s: not named <family>.<rule>", r[k].name);
        per[f]++;
        for (size_t j = 0; j < k; j++)
            KBT_CHECK(strcmp(r[j].name, r[k].name), "%s: two rules of this name", r[k].name);
    }
    for (int f = 0; f < 6; f++)
        KBT_CHECK(per[f] >= 2, "family %d has %zu rules", f, per[f]);
}

static void test_scanner(void **state)
{
    (void)state;
    const char *s = "a<<<b>>>c; // x < y\n/* if (i < n) */ \"s < t\" '<' 1e-5f p->q\n#define E 1e-3f\n";
    kb_toks t = {0};
    kb_err err = {0};
    KBT_CHECK(kb_mut_tokenize(s, 0, strlen(s), 1, &t, &err) == 0, "tokenize: %s", err.msg);
    static const char *const want[] = {"a", "<<<", "b", ">>>", "c", ";", "\"s < t\"", "'<'", "1e-5f", "p", "->", "q",
                                       "#", "define", "E", "1e-3f"};
    KBT_CHECK(t.n == sizeof want / sizeof *want, "%zu tokens", t.n);
    for (size_t k = 0; k < t.n; k++)
        KBT_CHECK(t.v[k].len == strlen(want[k]) && !strncmp(s + t.v[k].off, want[k], t.v[k].len), "token %zu: %.*s", k,
                  (int)t.v[k].len, s + t.v[k].off);
    KBT_CHECK(t.v[6].kind == KB_TK_STRING && t.v[7].kind == KB_TK_CHAR && t.v[8].kind == KB_TK_NUMBER, "kinds");
    KBT_CHECK(t.v[8].line == 2 && t.v[12].line == 3 && t.v[12].pp == 1 && t.v[15].pp == 2, "lines, pp");
    kb_toks_free(&t);
}

/* comments, strings and character literals are never mutated */
static void test_skips(void **state)
{
    (void)state;
    const char *src = DEV("    // if (i < n) y[i] = expf(1.0f); __syncthreads();\n"
                          "    /* for (int i = 0; i < n; i++) acc += x[i] * x[i]; */\n"
                          "    const char *s = \"i < n ? 0.5f : expf(x) __syncthreads();\";\n"
                          "    char c = '+';\n");
    size_t n;
    char *m = mutant(src, 0, NULL, 0, &n);
    KBT_CHECK(n == 0, "%zu mutants, the first:\n%s", n, m ? m : "");
    free(m);
}

static const char *const PY =
    "# cuda_sources = r\"\"\"__global__ void no(float *y, int n) { if (0 < n) y[0] = 1.0f; }\"\"\"\n"
    "import torch\n"
    "from torch.utils.cpp_extension import load_inline\n"
    "doc = \"\"\"for (i = 0; i < n; i++) y[i] = expf(x[i]);\"\"\"\n"
    "src = r\"\"\"\n"
    "__global__ void k(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = threadIdx.x; /* if (i < n) expf */\n"
    "    if (i < n) y[i] = x[i];\n"
    "}\n"
    "\"\"\"\n"
    "cpp = \"void f(int n) { if (0 < n) return; }\"\n"
    "ext = load_inline(name='e', cpp_sources=cpp, cuda_sources=[src], functions=['f'])\n";

static void test_py(void **state)
{
    (void)state;
    kb_region *r;
    kb_err err = {0};
    int nr = kb_mut_regions(PY, strlen(PY), 1, &r, &err);
    KBT_CHECK(nr == 1, "%d regions", nr);
    const char *lo = strstr(PY, "src = r\"\"\"") + 10;
    KBT_CHECK(r[0].lo == (size_t)(lo - PY) && r[0].line == 5, "region at %zu line %d", r[0].lo, r[0].line);
    free(r);
    kb_mutant_list l;
    KBT_CHECK(kb_mutate_find(PY, strlen(PY), 1, &l, &err) == 0, "find: %s", err.msg);
    KBT_CHECK(l.n >= 2, "%zu mutants", l.n);
    const char *hi = strstr(lo, "\"\"\"");
    for (size_t i = 0; i < l.n; i++) {
        const kb_edit *e = &l.v[i].edit[l.v[i].n_edits - 1];
        KBT_CHECK(e->off >= (size_t)(lo - PY) && e->off + e->len <= (size_t)(hi - PY), "%s edits outside the CUDA string",
                  l.v[i].rule->name);
    }
    KBT_CHECK(!strcmp(l.v[0].rule->name, "boundary.lt_to_le") && l.v[0].line == 9, "first: %s line %d",
              l.v[0].rule->name, l.v[0].line);
    kb_mutant_list_free(&l);
}

/* the same bytes, the same list (rules in order, sites by position) */
static void test_deterministic(void **state)
{
    (void)state;
    size_t len;
    kb_err err = {0};
    char *src = kb_read_file("submissions/demo-naive/level1/001_square_matmul/s0.cu", &len, &err);
    KBT_CHECK(src, "%s", err.msg);
    kb_mutant_list a, b;
    KBT_CHECK(kb_mutate_find(src, len, 0, &a, &err) == 0 && kb_mutate_find(src, len, 0, &b, &err) == 0, "%s", err.msg);
    KBT_CHECK(a.n == b.n && a.n > 20, "%zu vs %zu mutants", a.n, b.n);
    size_t nr;
    const kb_mut_rule *rules = kb_mut_rules(&nr);
    for (size_t i = 0; i < a.n; i++) {
        KBT_CHECK(a.v[i].rule == b.v[i].rule && a.v[i].text_len == b.v[i].text_len &&
                      !memcmp(a.v[i].text, b.v[i].text, a.v[i].text_len),
                  "mutant %zu differs", i);
        if (i > 0) {
            long ra = a.v[i - 1].rule - rules, rb = a.v[i].rule - rules;
            KBT_CHECK(ra <= rb, "mutant %zu: rule order", i);
            KBT_CHECK(ra < rb || a.v[i - 1].line <= a.v[i].line, "mutant %zu: site order", i);
        }
    }
    kb_mutant_list_free(&a);
    kb_mutant_list_free(&b);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scanner),  cmocka_unit_test(test_rule_table), cmocka_unit_test(test_rules),
        cmocka_unit_test(test_skips),    cmocka_unit_test(test_py),         cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
