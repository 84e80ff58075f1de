/*
 * test_mutreport.c -- lib/mutation/kb_mutreport.h: when the witness pool proves a mutant faulty.
 *
 * Pinned, over a four-entry pool:
 *   - an origin within the fp32 bound everywhere is judged by it; one outside it on an entry it
 *     ran (a TF32 GEMM) by the TF32 bound; skipped entries and failed calls do not count;
 *   - a mutant is witnessed on the first usable entry where it exceeds the origin's bound (NaN
 *     counts as above) or its call fails; an entry where the origin itself is outside its bound
 *     or failed never witnesses;
 *   - a mutant within the bound on every usable entry is not witnessed, reporting its largest
 *     excess; one whose run stopped on an unusable entry first is undecided.
 *   - kb-mutation-report end to end on fixture artifacts (a witness file, both protocols' checks,
 *     a manifest): mutation.csv's exact columns and rows, a stillborn and a missing-witness row,
 *     strict's TF32 verdict for a TF32 origin's mutant, the witnessed list, a false rejection.
 */
#include "kbt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb_h5.h"
#include "mutation/kb_mutreport.h"
#include "core/kb_probe.h"
#include "core/kb_util.h"

#define K 4

typedef struct trow {
    int64_t call[K];
    double ex[K], ex32[K];
} trow;

static kb_mut_row view(const trow *t)
{
    return (kb_mut_row){t->call, t->ex, t->ex32};
}

static void test_origin_bound(void **state)
{
    (void)state;
    int64_t skip[K] = {0, 0, 1, 0};
    trow exact = {{0, 0, 0, 0}, {0.1, 0.5, 9.0, 1.0}, {0, 0, 0, 0}};
    trow tf32 = {{0, 0, 0, 0}, {0.1, 2.3, 0, 0}, {0.01, 0.07, 0, 0}};
    trow failed = {{0, 3, -1, -1}, {0.1, NAN, NAN, NAN}, {0, NAN, NAN, NAN}};
    kb_mut_row e = view(&exact), t = view(&tf32), f = view(&failed);
    KBT_CHECK(kb_mut_origin_tf32(&e, skip, K) == 0, "an excess on a skipped entry made the origin TF32");
    KBT_CHECK(kb_mut_origin_tf32(&t, skip, K) == 1, "an origin over the fp32 bound is not judged by the TF32 one");
    KBT_CHECK(kb_mut_origin_tf32(&f, skip, K) == 0, "a failed call made the origin TF32");
    KBT_CHECK(kb_mut_usable(&e, skip, 3, 0) && !kb_mut_usable(&e, skip, 2, 0), "usable: exactly 1.0 is within, skipped is not");
    KBT_CHECK(!kb_mut_usable(&f, skip, 1, 0) && !kb_mut_usable(&f, skip, 3, 0), "usable: a failed or unrun origin call");
    KBT_CHECK(kb_mut_usable(&t, skip, 1, 1) && !kb_mut_usable(&t, skip, 1, 0), "usable: the TF32 origin by its bound");
}

static void test_witness(void **state)
{
    (void)state;
    int64_t skip[K] = {0, 0, 1, 0};
    /* the origin is outside its bound on entry 1 (as if the pool were too hard there) */
    trow o = {{0, 0, 0, 0}, {0.2, 5.0, 0, 0.3}, {0, 0, 0, 0}};
    kb_mut_row ro = view(&o);
    int entry;
    double x;
    struct {
        trow m;
        int want, want_entry;
        double want_x;
        const char *why;
    } cases[] = {
        {{{0, 0, 0, 0}, {0.3, 50, 7, 0.9}, {0}}, KB_MUT_NOT_WITNESSED, 3, 0.9,
         "excess only where the origin has one too, and on a skipped entry"},
        {{{0, 0, 0, 0}, {0.3, 0.1, 0, 1.5}, {0}}, KB_MUT_WITNESSED, 3, 1.5, "over the bound on a usable entry"},
        {{{0, 0, 0, 0}, {NAN, 0, 0, 0}, {0}}, KB_MUT_WITNESSED, 0, INFINITY, "a NaN excess counts as over the bound"},
        {{{4, -1, -1, -1}, {NAN, NAN, NAN, NAN}, {0}}, KB_MUT_WITNESSED, 0, INFINITY, "a crash on a usable entry"},
        {{{0, 5, -1, -1}, {0.1, NAN, NAN, NAN}, {0}}, KB_MUT_UNDECIDED, 1, INFINITY,
         "the run stopped where the origin is outside its bound"},
        {{{0, 0, 0, 0}, {0, 0, 0, 0}, {0}}, KB_MUT_NOT_WITNESSED, 0, 0.0, "bitwise the origin"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_mut_row rm = view(&cases[i].m);
        int got = kb_mut_witness(&ro, &rm, skip, K, 0, &entry, &x);
        KBT_CHECK(got == cases[i].want, "%s: verdict %d, want %d", cases[i].why, got, cases[i].want);
        KBT_CHECK(entry == cases[i].want_entry, "%s: entry %d, want %d", cases[i].why, entry, cases[i].want_entry);
        KBT_CHECK(x == cases[i].want_x, "%s: excess %g, want %g", cases[i].why, x, cases[i].want_x);
    }
    /* a TF32 origin: its mutants are judged by the TF32 excess */
    trow t = {{0, 0, 0, 0}, {2.0, 2.0, 0, 2.0}, {0.1, 0.1, 0, 0.1}};
    trow m = {{0, 0, 0, 0}, {2.5, 2.5, 0, 2.5}, {0.2, 0.3, 0, 3.0}};
    kb_mut_row rt = view(&t), rm = view(&m);
    KBT_CHECK(kb_mut_witness(&rt, &rm, skip, K, 1, &entry, &x) == KB_MUT_WITNESSED && entry == 3 && x == 3.0,
              "a TF32 origin's mutant over the TF32 bound on entry 3 (got entry %d, excess %g)", entry, x);
    KBT_CHECK(kb_mut_witness(&rt, &rm, skip, K, 0, &entry, &x) == KB_MUT_NOT_WITNESSED,
              "by the fp32 bound every entry of a TF32 origin is unusable");
}

/* ---- the stage, end to end --------------------------------------------------------------- */

/* kb-witness's plan: small outputs hold the whole pool, large ones one entry and a window of
 * live samples; the window never exceeds its cap or falls below one */
static void test_witness_plan(void **state)
{
    (void)state;
    const uint64_t G = 1ull << 30;
    size_t c, w;
    /* 001: 64 MiB outputs (128 MiB an entry), 192 MiB a sample, 16 GiB */
    kb_witness_plan(128ull << 20, 192ull << 20, 16 * G, 18, 8, &c, &w);
    assert_int_equal(c, 18);
    assert_int_equal(w, 8);
    /* 019: 6 GiB outputs (12 GiB an entry), 12 GiB a sample: the pool does not fit */
    kb_witness_plan(12 * G, 12 * G, 64 * G, 18, 8, &c, &w);
    assert_int_equal(c, 1);
    assert_int_equal(w, 4);
    /* all entries fit, but only one sample beside them */
    kb_witness_plan(G, 2 * G, 20 * G, 18, 8, &c, &w);
    assert_int_equal(c, 18);
    assert_int_equal(w, 1);
    /* a budget below one entry still runs: one entry, one sample */
    kb_witness_plan(12 * G, 12 * G, 8 * G, 18, 8, &c, &w);
    assert_int_equal(c, 1);
    assert_int_equal(w, 1);
}

static void put_check(const char *dir, const char *proto, const char *cell, int std_ok, int verified, int verified_tf32,
                      const char *reason)
{
    char p[1024];
    kb_err e = {0};
    snprintf(p, sizeof p, "%s/%s/%s/sanity-check.h5", dir, proto, cell);
    KBT_CHECK(kb_mkdirs_for(p, &e) == 0, "mkdir %s", p);
    kb_h5w *w = kb_h5w_create(p, &e);
    KBT_CHECK(w != NULL, "create %s", p);
    kb_h5w_attr_str(w, "/", "outcome", std_ok ? "ok" : "wrong_answer");
    kb_h5w_attr_str(w, "/", "outcome_detail", std_ok ? "" : "2 of 5 trials not close");
    kb_h5w_attr_i64(w, "/", "correct", std_ok);
    KBT_CHECK(kb_h5w_commit(w, &e) == 0, "commit %s", p);
    if (verified < 0)
        return;
    snprintf(p, sizeof p, "%s/%s/%s/verify-distributions.h5", dir, proto, cell);
    w = kb_h5w_create(p, &e);
    kb_h5w_attr_i64(w, "/", "verified", verified);
    kb_h5w_attr_i64(w, "/", "verified_tf32", verified_tf32);
    kb_h5w_attr_str(w, "/", "reason", verified ? "" : reason);
    kb_h5w_attr_str(w, "/", "reason_tf32", verified_tf32 ? "" : reason);
    KBT_CHECK(kb_h5w_commit(w, &e) == 0, "commit %s", p);
}

static void test_report(void **state)
{
    (void)state;
    char dir[] = "/tmp/kb-test-mutreport.XXXXXX";
    KBT_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char p[1024], cmd[4096];
    kb_err e = {0};
    /* the manifest: 019 (an exact origin) s0..s3, 001 (a TF32 origin) s0, 047 (no witness run) s0 */
    snprintf(p, sizeof p, "%s/mutants.csv", dir);
    FILE *f = fopen(p, "w");
    fprintf(f, "sample,problem,origin,family,rule,line,before,after,compiled,compile_error\n"
               "s0,level1/019_relu,demo-naive/level1/019_relu/s0,semantics,semantics.ternary_else,12,\"a ? b : c\",(c),1,\n"
               "s1,level1/019_relu,demo-naive/level1/019_relu/s0,boundary,boundary.lt_to_le,9,i < n,i <= n,1,\n"
               "s2,level1/019_relu,demo-naive/level1/019_relu/s0,precision,precision.acc_half,7,float acc,__half acc,0,s2.cu(7): error\n"
               "s3,level1/019_relu,demo-naive/level1/019_relu/s0,sync,sync.syncthreads_removed,20,__syncthreads();,,1,\n"
               "s0,level1/001_square_matmul,demo-tuned/level1/001_square_matmul/s0,precision,precision.operands_bf16,40,a * b,bf(a) * bf(b),1,\n"
               "s0,level1/047_sum_dim,demo-naive/level1/047_sum_dim/s0,arithmetic,arithmetic.accum_sign,5,+=,-=,1,\n");
    fclose(f);
    /* witness files: K = 3 entries, entry 2 skipped */
    const char *cells19[] = {"demo-naive/level1/019_relu/s0", "mutants/level1/019_relu/s0", "mutants/level1/019_relu/s1",
                             "mutants/level1/019_relu/s2", "mutants/level1/019_relu/s3"};
    const char *out19[] = {"ok", "ok", "crash", "compile_error", "ok"};
    int64_t call19[] = {0, 0, 0, /**/ 0, 0, 0, /**/ 3, -1, -1, /**/ -1, -1, -1, /**/ 0, 0, 0};
    double ex19[] = {0, 0.5, 0, /**/ 0.2, 7.0, 0, /**/ NAN, NAN, NAN, /**/ NAN, NAN, NAN, /**/ 0.1, 0.9, 30};
    const char *cells01[] = {"demo-tuned/level1/001_square_matmul/s0", "mutants/level1/001_square_matmul/s0"};
    const char *out01[] = {"ok", "ok"};
    int64_t call01[] = {0, 0, 0, 0, 0, 0};
    double ex01[] = {2.3, 2.0, 0, 9.0, 9.0, 0}, ex01t[] = {0.07, 0.06, 0, 0.5, 3.0, 0};
    const char *pool[] = {"G1", "S2", "A1"};
    int64_t skipped[] = {0, 0, 1};
    struct {
        const char *problem, **cells, **outcome;
        size_t n;
        int64_t *call;
        double *ex, *ex32;
    } wf[] = {{"level1/019_relu", cells19, out19, 5, call19, ex19, ex19},
              {"level1/001_square_matmul", cells01, out01, 2, call01, ex01, ex01t}};
    char wits[2048] = "";
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/w%d.h5", dir, i);
        kb_append(wits, sizeof wits, p);
        kb_h5w *w = kb_h5w_create(p, &e);
        KBT_CHECK(w != NULL, "create %s", p);
        kb_h5w_attr_str(w, "/", "problem", wf[i].problem);
        kb_h5w_attr_str(w, "/", "outcome", "ok");
        kb_h5w_attr_str(w, "/", "outcome_detail", "");
        kb_h5w_group(w, "/pool");
        kb_h5w_strv(w, "/pool/name", pool, 3);
        kb_h5w_i64v(w, "/pool/skipped", skipped, 3, NULL);
        kb_h5w_group(w, "/samples");
        kb_h5w_strv(w, "/samples/cell", wf[i].cells, wf[i].n);
        kb_h5w_strv(w, "/samples/outcome", wf[i].outcome, wf[i].n);
        kb_h5w_strv(w, "/samples/detail", wf[i].outcome, wf[i].n);
        uint64_t dims[2] = {wf[i].n, 3};
        kb_h5w_i64(w, "/samples/call", wf[i].call, 2, dims, NULL);
        kb_h5w_f64(w, "/samples/excess", wf[i].ex, 2, dims, NULL);
        kb_h5w_f64(w, "/samples/excess_tf32", wf[i].ex32, 2, dims, NULL);
        KBT_CHECK(kb_h5w_commit(w, &e) == 0, "commit %s", p);
    }
    for (char *c = wits; (c = strstr(c, "; ")); )
        memmove(c, c + 1, strlen(c)); /* kb_append's "; " -> " " */
    /* the checks: 019 s0 survives both; s1 is killed by the standard check; s3 survives paper,
     * strict kills it; the 001 mutant fails strict's TF32 verdict (the one that counts for a TF32
     * origin); the 001 origin fails strict's FP32 verdict only (not a rejection); the 019 origin
     * is falsely rejected by paper */
    put_check(dir, "paper", "demo-naive/level1/019_relu/s0", 1, 0, 0, "fails D1");
    put_check(dir, "strict", "demo-naive/level1/019_relu/s0", 1, 1, 1, "");
    put_check(dir, "paper", "mutants/level1/019_relu/s0", 1, 1, 1, "");
    put_check(dir, "strict", "mutants/level1/019_relu/s0", 1, 1, 1, "");
    put_check(dir, "paper", "mutants/level1/019_relu/s1", 0, -1, -1, "");
    put_check(dir, "strict", "mutants/level1/019_relu/s1", 0, -1, -1, "");
    put_check(dir, "paper", "mutants/level1/019_relu/s3", 1, 1, 1, "");
    put_check(dir, "strict", "mutants/level1/019_relu/s3", 1, 0, 0, "fails S2");
    put_check(dir, "paper", "demo-tuned/level1/001_square_matmul/s0", 1, 1, 1, "");
    put_check(dir, "strict", "demo-tuned/level1/001_square_matmul/s0", 1, 0, 1, "fails S2");
    put_check(dir, "paper", "mutants/level1/001_square_matmul/s0", 1, 1, 1, "");
    put_check(dir, "strict", "mutants/level1/001_square_matmul/s0", 1, 0, 0, "fails S2");
    snprintf(cmd, sizeof cmd,
             "build/bin/kb-mutation-report --manifest %s/mutants.csv --witness '%s' --paper %s/paper --strict %s/strict "
             "--out %s/out > %s/log 2>&1 && build/bin/kb-mutation-report --manifest %s/mutants.csv --witness '%s' "
             "--list-witnessed %s/witnessed.txt >> %s/log 2>&1",
             dir, wits, dir, dir, dir, dir, dir, wits, dir, dir);
    int rc = system(cmd);
    snprintf(p, sizeof p, "%s/log", dir);
    char *log = kb_read_file(p, NULL, &e);
    KBT_CHECK(rc == 0, "kb-mutation-report failed: %s", log ? log : "");
    free(log);
    snprintf(p, sizeof p, "%s/out/mutation.csv", dir);
    char *csv = kb_read_file(p, NULL, &e);
    KBT_CHECK(csv != NULL, "no mutation.csv");
    const char *want[] = {
        "problem,family,rule,witnessed,killed_standard,killed_paper,killed_strict,reason\n",
        "level1/019_relu,semantics,semantics.ternary_else,1,0,0,0,s0: witnessed on S2 (7.00); SURVIVES strict; survives paper\n",
        "level1/019_relu,boundary,boundary.lt_to_le,1,1,1,1,\"s1: witnessed on G1 (crash); strict: standard: wrong_answer, 2 of 5 trials not close\"\n",
        "level1/019_relu,precision,precision.acc_half,,,,,s2: stillborn (compile_error)\n",
        "level1/019_relu,sync,sync.syncthreads_removed,0,0,0,1,s3: not witnessed (within the fp32 bound on every usable entry; largest 0.900 on S2)\n",
        "level1/001_square_matmul,precision,precision.operands_bf16,1,0,0,1,s0: witnessed on S2 (3.00); TF32 origin; strict: fails S2; survives paper\n",
        "level1/047_sum_dim,arithmetic,arithmetic.accum_sign,,,,,s0: no witness run (no witness artifact for the problem)\n",
    };
    size_t off = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        KBT_CHECK(csv && !strncmp(csv + off, want[i], strlen(want[i])), "mutation.csv row %zu: want\n%sgot\n%.300s", i, want[i],
                  csv ? csv + off : "");
        off += strlen(want[i]);
    }
    KBT_CHECK(csv && csv[off] == 0, "mutation.csv has more rows: %s", csv ? csv + off : "");
    free(csv);
    snprintf(p, sizeof p, "%s/witnessed.txt", dir);
    char *wl = kb_read_file(p, NULL, &e);
    KBT_CHECK(wl && !strcmp(wl, "mutants/level1/019_relu/s0\nmutants/level1/019_relu/s1\nmutants/level1/001_square_matmul/s0\n"
                                "demo-naive/level1/019_relu/s0\ndemo-tuned/level1/001_square_matmul/s0\ndemo-naive/level1/047_sum_dim/s0\n"),
              "witnessed.txt: %s", wl ? wl : "(none)");
    free(wl);
    snprintf(p, sizeof p, "%s/out/mutation-summary.md", dir);
    char *md = kb_read_file(p, NULL, &e);
    KBT_CHECK(md && strstr(md, "False rejections of the 3 origins: standard 0, paper 1, strict 0."), "summary: %s", md ? md : "");
    KBT_CHECK(md && strstr(md, "`mutants/level1/019_relu/s0` (semantics.ternary_else"), "the strict survivor is not named");
    free(md);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    KBT_CHECK(system(cmd) == 0, "cleanup");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_origin_bound),
        cmocka_unit_test(test_witness),
        cmocka_unit_test(test_witness_plan),
        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests_name("mutreport", tests, NULL, NULL);
}
