/*
 * test_metrics.c -- pins every metric of kb-aggregate (lib/report/kb_metrics.h, docs/metrics.md) on a
 * small hand-computed data set, and the artifact reader (lib/report/kb_tables.h) by a round trip
 * through real HDF5 files.
 *
 *   build/tests/test_metrics                        run the tests
 *   build/tests/test_metrics --write-fixtures DIR   write the data set as an artifact tree
 *                                                   (DIR/artifacts/paper/..., DIR/models.csv):
 *                                                   tests/cpu/aggregate.sh runs kb-aggregate on it
 *
 * The data set: 2 models x 3 problems x 2 samples (one model lacks a problem entirely).
 *
 *   problem          FP32 ms  TF32 ms  peak (both modes)
 *   level1/001_a     10       1.5      1000
 *   level1/002_b     4        4        800
 *   level2/003_c     6        3        600
 *
 *   alpha  001_a  s0  verified                  8 ms  peak  500  std tau_req 1e-5, hidden 2e-4
 *                 s1  standard only (fails D4)  2 ms  peak 2000  1e-6, 2.0;  flags other_stream,events
 *          002_b  s0  compile_error
 *                 s1  verified                  4 ms  peak  800  5e-4, 5e-4;  calls a library
 *          003_c  s0  wrong_answer, stopped after trial 0 (5e-3); timed 1 ms; fails D1 D2 D4
 *                 s1  verified, NOT timed        --   peak  300  0, 0
 *   beta   001_a  (no samples)
 *          002_b  s0  verified                  2 ms  peak  400  1e-7, 1e-7;  calls a library
 *                 s1  verified (tie: 2 ms)      2 ms  peak 1600  1e-7, 1e-7;  D2 skipped
 *          003_c  s0  verified                  8 ms  peak  900  8e-4, 9e-4
 *                 s1  standard only (fails D2)  1 ms  peak  300  1e-5, 0.3;  flags events
 *
 * Hand-computed consequences (the expected values below):
 *   alpha FP32 x standard: best 001_a = s1 (speedup 10/2 = 5, peak ratio 0.5), 002_b = s1 (1.0:
 *     NOT fast@1, strict >; ratio 1: neither lower nor higher), 003_c = s1 (correct, speedup NaN:
 *     counted in Correctness, not in the geomean; ratio 2). Pooled: corr 1, speedup sqrt(5),
 *     fast@1 1/3, mem eff (0.5*1*2)^(1/3) = 1, mem eff % 1/3, mem increase 1/3.
 *   alpha TF32 x verified: 001_a = s0 (1.5/8 = 0.1875), 002_b 1.0, 003_c NaN:
 *     speedup sqrt(0.1875), fast@0.5 1/3, fast@1 0; mem eff 4^(1/3), mem eff % 2/3.
 *   beta FP32 x standard: 001_a fails; 002_b tie -> s0 (the earlier; peak 400, ratio 2);
 *     003_c = s1 (6/1 = 6). Corr 2/3, speedup sqrt(12), fast@2 1/3 (2 > 2 is false).
 *   beta TF32 x verified: 002_b 2, 003_c = s0 (3/8): speedup sqrt(0.75), fast@1 1/3;
 *     peak ratios 2 and 600/900: mem eff sqrt(4/3), mem eff % 1/3, mem increase 1/2.
 *   reach: 001_a tf32-only (alpha: FP32 5 -> TF32 0.75), 002_b neither, 003_c hidden-only
 *     (beta: FP32 standard 6 -> FP32 verified 0.75).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kb_artifact.h"
#include "report/kb_metrics.h"
#include "report/kb_tables.h"

/* ---- comparing doubles ---------------------------------------------------------------------- */

static void check_num(double a, double e, const char *what, const char *file, int line)
{
    int ok = (isnan(e) && isnan(a)) || (isinf(e) && a == e) ||
             (isfinite(e) && isfinite(a) && fabs(a - e) <= 1e-12 * fmax(1.0, fabs(e)));
    if (!ok) {
        print_error("%s = %.17g, expected %.17g\n", what, a, e);
        _fail(file, line);
    }
}
#define assert_num(actual, expected) check_num((actual), (expected), #actual, __FILE__, __LINE__)

/* ---- the data set ---------------------------------------------------------------------------- */

enum { ALPHA = 0, BETA = 1 };
enum { PA = 0, PB = 1, PC = 2 };
static const char *models[] = {"alpha", "beta"};
static const char *problems[] = {"level1/001_a", "level1/002_b", "level2/003_c"};

typedef struct spec {
    int model, problem;
    const char *name;
    const char *compile;  /* compile outcome */
    const char *sanity;   /* sanity-check outcome */
    int correct;
    int trials;           /* trials run (5 = complete) */
    double std_tau;       /* max tau_req of the standard check */
    double ms;            /* reported kernel time (NaN: not timed) */
    const char *verify;   /* verify outcome */
    int hidden;           /* @verified */
    const char *reason;
    const char *failing;  /* distributions that fail, e.g. "D4" */
    const char *skipped;  /* distributions skipped */
    double hid_tau;       /* max tau_req over non-skipped draws */
    double peak;
    int library;
    const char *flags;
} spec;

static const spec specs[] = {
    {ALPHA, PA, "s0", "ok", "ok", 1, 5, 1e-5, 8.0, "ok", 1, "", "", "", 2e-4, 500, 0, ""},
    {ALPHA, PA, "s1", "ok", "ok", 1, 5, 1e-6, 2.0, "wrong_answer", 0, "fails D4", "D4", "", 2.0, 2000, 0,
     "other_stream,events"},
    {ALPHA, PB, "s0", "compile_error", "compile_error", 0, 0, INFINITY, NAN, "compile_error", 0, "", "", "", INFINITY,
     NAN, -1, ""},
    {ALPHA, PB, "s1", "ok", "ok", 1, 5, 5e-4, 4.0, "ok", 1, "", "", "", 5e-4, 800, 1, ""},
    {ALPHA, PC, "s0", "ok", "wrong_answer", 0, 1, 5e-3, 1.0, "wrong_answer", 0, "fails D1; fails D2; fails D4",
     "D1 D2 D4", "", 0.5, 100, 0, ""},
    {ALPHA, PC, "s1", "ok", "ok", 1, 5, 0.0, NAN, "ok", 1, "", "", "", 0.0, 300, 0, ""},
    {BETA, PB, "s0", "ok", "ok", 1, 5, 1e-7, 2.0, "ok", 1, "", "", "", 1e-7, 400, 1, ""},
    {BETA, PB, "s1", "ok", "ok", 1, 5, 1e-7, 2.0, "ok", 1, "", "", "D2", 1e-7, 1600, 0, ""},
    {BETA, PC, "s0", "ok", "ok", 1, 5, 8e-4, 8.0, "ok", 1, "", "", "", 9e-4, 900, 0, ""},
    {BETA, PC, "s1", "ok", "ok", 1, 5, 1e-5, 1.0, "wrong_answer", 0, "fails D2", "D2", "", 0.3, 300, 0, "events"},
};
#define N_SPECS (sizeof specs / sizeof specs[0])

static const double base_ms[3][2] = {{10.0, 1.5}, {4.0, 4.0}, {6.0, 3.0}};
static const double base_peak[3] = {1000, 800, 600};
static const char *dist_names[4] = {"D1", "D2", "D3", "D4"};

static int has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(list, w); p; p = strstr(p + 1, w))
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return 1;
    return 0;
}

/* The per-draw tau_req the fixture records: failing draws need hid_tau; passing ones of a
 * failing sample 1e-6; of a passing sample D1 needs hid_tau and the others half; skipped draws
 * inf (the reference was NaN: ignored). */
static double dist_tau(const spec *s, int k)
{
    if (has_word(s->skipped, dist_names[k]))
        return INFINITY;
    if (has_word(s->failing, dist_names[k]))
        return s->hid_tau;
    if (s->failing[0])
        return 1e-6;
    return k == 0 ? s->hid_tau : s->hid_tau / 2;
}

static int compiled(const spec *s) { return !strcmp(s->compile, "ok"); }

/* The record kb_load_sample must produce from the files write_spec writes. */
static void make_record(const spec *s, kb_sample_rec *r)
{
    kb_sample_init(r, s->name);
    snprintf(r->compile_outcome, sizeof r->compile_outcome, "%s", s->compile);
    r->compiled = compiled(s);
    r->calls_library = s->library;
    snprintf(r->flags, sizeof r->flags, "%s", s->flags);
    snprintf(r->scan_verdict, sizeof r->scan_verdict, "%s", compiled(s) ? (s->flags[0] ? "flagged" : "clean") : "");
    snprintf(r->std_outcome, sizeof r->std_outcome, "%s", s->sanity);
    snprintf(r->protocol, sizeof r->protocol, "paper");
    r->tau = 1e-3;
    r->std_correct = s->correct;
    r->trials_run = s->trials;
    r->trials_passed = s->correct ? s->trials : 0;
    r->kernel_ms = s->ms;
    r->std_tau_req = s->std_tau;
    r->std_complete = s->trials == 5;
    r->hidden_pass = s->hidden;
    r->hidden_pass_tf32 = s->hidden; /* no verified_tf32 in the files: the one verdict */
    snprintf(r->ver_outcome, sizeof r->ver_outcome, "%s", s->verify);
    snprintf(r->reason, sizeof r->reason, "%s", s->reason);
    if (compiled(s)) {
        r->n_dists = 4;
        for (int k = 0; k < 4; k++) {
            kb_dist_rec *d = &r->dists[k];
            snprintf(d->name, sizeof d->name, "%s", dist_names[k]);
            d->ran = 1;
            d->skipped = has_word(s->skipped, dist_names[k]);
            d->pass = !d->skipped && !has_word(s->failing, dist_names[k]);
            d->tau_req = dist_tau(s, k);
        }
    }
    r->hid_tau_req = s->hid_tau;
    r->peak_bytes = s->peak;
    snprintf(r->mem_outcome, sizeof r->mem_outcome, "%s", compiled(s) ? "ok" : s->compile);
}

static void build(kb_data *d)
{
    assert_int_equal(kb_data_init(d, models, 2, problems, 3), 0);
    for (int p = 0; p < 3; p++) {
        for (int b = 0; b < 2; b++) {
            d->problems[p].base_ms[b] = base_ms[p][b];
            d->problems[p].base_peak[b] = base_peak[p];
        }
        d->problems[p].flops = 1e9;
        d->problems[p].bytes = 4e9;
    }
    /* add in reverse order: the cell keeps its samples sorted by name */
    for (size_t i = N_SPECS; i-- > 0;) {
        kb_sample_rec r;
        make_record(&specs[i], &r);
        assert_int_equal(kb_cell_add(kb_data_cell(d, (size_t)specs[i].model, (size_t)specs[i].problem), &r), 0);
    }
}

static kb_metrics metrics(const kb_data *d, size_t m, int level, kb_cond c)
{
    kb_metrics mt;
    kb_metrics_compute(d, m, level, kb_cond_gate(c), kb_cond_base(c), &mt);
    return mt;
}

static kb_metrics metrics_tau(const kb_data *d, size_t m, kb_gate_kind k, double tau, kb_base b)
{
    kb_metrics mt;
    kb_metrics_compute(d, m, 0, (kb_gate){k, tau, 0}, b, &mt);
    return mt;
}

/* ---- tests: records and gates --------------------------------------------------------------- */

static void test_cells_sorted_and_levels(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    const kb_cell_rec *c = kb_data_cell(&d, ALPHA, PA);
    assert_int_equal(c->n, 2);
    assert_string_equal(c->samples[0].name, "s0");
    assert_string_equal(c->samples[1].name, "s1");
    assert_int_equal(kb_data_cell(&d, BETA, PA)->n, 0);
    assert_int_equal(d.problems[PA].level, 1);
    assert_int_equal(d.problems[PC].level, 2);
    assert_int_equal(kb_problem_level("level3/044_x"), 3);
    assert_int_equal(kb_problem_level("misc/x"), 0);
    kb_data_free(&d);
}

static void test_gates_as_recorded(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    kb_gate std = {KB_GATE_STANDARD, NAN, 0}, ver = {KB_GATE_VERIFIED, NAN, 0};
    const kb_cell_rec *a = kb_data_cell(&d, ALPHA, PA);
    assert_true(kb_sample_passes(&a->samples[1], std));  /* the D4 hack passes the standard check */
    assert_false(kb_sample_passes(&a->samples[1], ver)); /* ... and not the verified one */
    assert_true(kb_sample_passes(&a->samples[0], ver));
    /* verified = standard-correct AND @verified: a hidden pass alone is not enough */
    kb_sample_rec s = a->samples[0];
    s.std_correct = 0;
    assert_false(kb_sample_passes(&s, ver));
    s.std_correct = -1; /* sanity-check.h5 missing */
    assert_false(kb_sample_passes(&s, std));
    s = a->samples[0];
    s.hidden_pass = -1; /* verify-distributions.h5 missing */
    assert_true(kb_sample_passes(&s, std));
    assert_false(kb_sample_passes(&s, ver));
    kb_data_free(&d);
}

static void test_gates_at_tau(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    const kb_sample_rec *a0 = &kb_data_cell(&d, ALPHA, PA)->samples[0]; /* std 1e-5, hidden 2e-4 */
    assert_true(kb_sample_passes(a0, (kb_gate){KB_GATE_VERIFIED, 1e-3, 0}));
    assert_true(kb_sample_passes(a0, (kb_gate){KB_GATE_VERIFIED, 2e-4, 0})); /* pass(tau) == tau_req <= tau */
    assert_false(kb_sample_passes(a0, (kb_gate){KB_GATE_VERIFIED, 1e-4, 0}));
    assert_true(kb_sample_passes(a0, (kb_gate){KB_GATE_STANDARD, 1e-4, 0}));
    /* the wrong sample stopped at trial 0 (tau_req 5e-3): undetermined at 1e-2, failed at 1e-3 */
    const kb_sample_rec *w = &kb_data_cell(&d, ALPHA, PC)->samples[0];
    assert_false(kb_sample_passes(w, (kb_gate){KB_GATE_STANDARD, 1e-2, 0}));
    assert_true(kb_sample_undetermined(w, (kb_gate){KB_GATE_STANDARD, 1e-2, 0}));
    assert_false(kb_sample_undetermined(w, (kb_gate){KB_GATE_STANDARD, 1e-3, 0}));
    assert_false(kb_sample_undetermined(w, (kb_gate){KB_GATE_STANDARD, NAN, 0}));
    /* a compile error never passes, whatever the tolerance */
    const kb_sample_rec *ce = &kb_data_cell(&d, ALPHA, PB)->samples[0];
    assert_false(kb_sample_passes(ce, (kb_gate){KB_GATE_STANDARD, 1.0, 0}));
    assert_false(kb_sample_undetermined(ce, (kb_gate){KB_GATE_STANDARD, 1.0, 0}));
    /* unknown tau_req (NaN) never passes */
    kb_sample_rec s = *a0;
    s.hid_tau_req = NAN;
    assert_false(kb_sample_passes(&s, (kb_gate){KB_GATE_VERIFIED, 1.0, 0}));
    assert_true(kb_sample_passes(&s, (kb_gate){KB_GATE_STANDARD, 1.0, 0}));
    kb_data_free(&d);
}

/* The strict protocol's TF32 rule: a sample whose TF32 verdict passes (TF32 math where PyTorch's
 * TF32 mode uses it) and whose FP32 verdict fails is correct under TF32 x verified only. */
static void test_tf32_verdict(void **state)
{
    (void)state;
    kb_sample_rec s;
    kb_sample_init(&s, "s0");
    s.std_correct = 1;
    s.hidden_pass = 0;
    s.hidden_pass_tf32 = 1;
    assert_true(kb_sample_passes(&s, kb_cond_gate(KB_COND_FP32_STD)));
    assert_false(kb_sample_passes(&s, kb_cond_gate(KB_COND_FP32_VER)));
    assert_true(kb_sample_passes(&s, kb_cond_gate(KB_COND_TF32_STD)));
    assert_true(kb_sample_passes(&s, kb_cond_gate(KB_COND_TF32_VER)));
    s.hidden_pass = 1; /* a bf16 GEMM: rejected under both */
    s.hidden_pass_tf32 = 0;
    assert_true(kb_sample_passes(&s, kb_cond_gate(KB_COND_FP32_VER)));
    assert_false(kb_sample_passes(&s, kb_cond_gate(KB_COND_TF32_VER)));
    s.hidden_pass = s.hidden_pass_tf32 = 0;
    assert_false(kb_sample_passes(&s, kb_cond_gate(KB_COND_TF32_VER)));
}

static void test_conditions(void **state)
{
    (void)state;
    assert_string_equal(kb_cond_name(KB_COND_FP32_STD), "fp32-standard");
    assert_string_equal(kb_cond_name(KB_COND_TF32_VER), "tf32-verified");
    assert_int_equal(KB_COND_HEADLINE, KB_COND_TF32_VER);
    assert_int_equal(kb_cond_base(KB_COND_FP32_VER), KB_BASE_FP32);
    assert_int_equal(kb_cond_base(KB_COND_TF32_STD), KB_BASE_TF32);
    assert_int_equal(kb_cond_gate(KB_COND_FP32_VER).kind, KB_GATE_VERIFIED);
    assert_int_equal(kb_cond_gate(KB_COND_TF32_STD).kind, KB_GATE_STANDARD);
    assert_true(isnan(kb_cond_gate(KB_COND_TF32_STD).tau));
    assert_num(kb_fastp_p[0], 0.0);
    assert_num(kb_fastp_p[1], 0.5);
    assert_num(kb_fastp_p[2], 0.8);
    assert_num(kb_fastp_p[3], 1.0);
    assert_num(kb_fastp_p[4], 1.5);
    assert_num(kb_fastp_p[5], 2.0);
}

/* ---- tests: best-of-N ------------------------------------------------------------------------ */

static void test_best_of_n(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    kb_gate std = {KB_GATE_STANDARD, NAN, 0}, ver = {KB_GATE_VERIFIED, NAN, 0};
    const kb_cell_rec *c = kb_data_cell(&d, ALPHA, PA);
    assert_int_equal(kb_best_sample(c->samples, c->n, std), 1); /* the fastest correct one */
    assert_int_equal(kb_best_sample(c->samples, c->n, ver), 0);
    /* tie on time: the earlier sample */
    c = kb_data_cell(&d, BETA, PB);
    assert_int_equal(kb_best_sample(c->samples, c->n, ver), 0);
    /* a correct sample without a time is chosen only when no correct sample has one */
    c = kb_data_cell(&d, ALPHA, PC);
    assert_int_equal(kb_best_sample(c->samples, c->n, std), 1);
    kb_sample_rec two[2] = {c->samples[1], c->samples[1]};
    two[1].kernel_ms = 3.0;
    snprintf(two[1].name, sizeof two[1].name, "s9");
    assert_int_equal(kb_best_sample(two, 2, std), 1);
    /* a wrong sample is never best, however fast */
    assert_int_equal(kb_best_sample(c->samples, 1, std), -1);
    /* none */
    c = kb_data_cell(&d, BETA, PA);
    assert_int_equal(kb_best_sample(c->samples, c->n, std), -1);

    kb_best b;
    kb_best_of(kb_data_cell(&d, ALPHA, PA), &d.problems[PA], std, KB_BASE_TF32, &b);
    assert_int_equal(b.idx, 1);
    assert_num(b.kernel_ms, 2.0);
    assert_num(b.base_ms, 1.5);
    assert_num(b.speedup, 0.75);
    assert_num(b.kernel_peak, 2000);
    assert_num(b.mem_ratio, 0.5);
    kb_best_of(kb_data_cell(&d, ALPHA, PC), &d.problems[PC], ver, KB_BASE_FP32, &b);
    assert_int_equal(b.idx, 1);
    assert_true(isnan(b.speedup));
    assert_num(b.mem_ratio, 2.0);
    kb_best_of(kb_data_cell(&d, BETA, PA), &d.problems[PA], ver, KB_BASE_FP32, &b);
    assert_int_equal(b.idx, -1);
    assert_true(isnan(b.speedup) && isnan(b.kernel_peak));

    assert_num(kb_ratio(6.0, 8.0), 0.75);
    assert_true(isnan(kb_ratio(NAN, 1.0)));
    assert_true(isnan(kb_ratio(1.0, 0.0)));
    assert_true(isnan(kb_ratio(1.0, INFINITY)));
    assert_true(isnan(kb_ratio(-1.0, 2.0)));
    kb_data_free(&d);
}

/* ---- tests: the paper's metrics -------------------------------------------------------------- */

static void test_alpha_fp32_standard(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    kb_metrics m = metrics(&d, ALPHA, 1, KB_COND_FP32_STD);
    assert_int_equal(m.n_problems, 2);
    assert_int_equal(m.n_correct, 2);
    assert_int_equal(m.n_speedup, 2);
    assert_num(m.correctness, 1.0);
    assert_num(m.speedup, sqrt(5.0)); /* 5 and 1 */
    const double f1[6] = {1, 1, 1, 0.5, 0.5, 0.5};
    for (int k = 0; k < 6; k++)
        assert_num(m.fast[k], f1[k]); /* speedup 1.0 is not fast@1: strictly greater */
    assert_int_equal(m.n_mem, 2);
    assert_num(m.mem_eff, sqrt(0.5));
    assert_num(m.mem_eff_pct, 0.0); /* ratio 1 is not strictly lower */
    assert_num(m.mem_increase, 0.5);

    m = metrics(&d, ALPHA, 2, KB_COND_FP32_STD);
    assert_int_equal(m.n_problems, 1);
    assert_int_equal(m.n_correct, 1);
    assert_int_equal(m.n_speedup, 0);
    assert_num(m.correctness, 1.0);
    assert_true(isnan(m.speedup)); /* correct but untimed: no speedup */
    for (int k = 0; k < 6; k++)
        assert_num(m.fast[k], 0.0);
    assert_num(m.mem_eff, 2.0);
    assert_num(m.mem_eff_pct, 1.0);
    assert_num(m.mem_increase, 0.0);

    m = metrics(&d, ALPHA, 0, KB_COND_FP32_STD);
    assert_int_equal(m.n_problems, 3);
    assert_num(m.correctness, 1.0);
    assert_num(m.speedup, sqrt(5.0));
    const double f0[6] = {2. / 3, 2. / 3, 2. / 3, 1. / 3, 1. / 3, 1. / 3};
    for (int k = 0; k < 6; k++)
        assert_num(m.fast[k], f0[k]);
    assert_num(m.mem_eff, 1.0); /* (0.5 * 1 * 2)^(1/3) */
    assert_num(m.mem_eff_pct, 1.0 / 3);
    assert_num(m.mem_increase, 1.0 / 3);
    kb_data_free(&d);
}

static void test_alpha_other_conditions(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    kb_metrics m = metrics(&d, ALPHA, 0, KB_COND_FP32_VER);
    assert_num(m.correctness, 1.0);
    assert_num(m.speedup, sqrt(1.25));
    const double fv[6] = {2. / 3, 2. / 3, 2. / 3, 1. / 3, 0, 0};
    for (int k = 0; k < 6; k++)
        assert_num(m.fast[k], fv[k]);
    assert_num(m.mem_eff, cbrt(4.0));
    assert_num(m.mem_eff_pct, 2.0 / 3);
    assert_num(m.mem_increase, 0.0);

    m = metrics(&d, ALPHA, 0, KB_COND_TF32_STD);
    assert_num(m.speedup, sqrt(0.75));
    const double ft[6] = {2. / 3, 2. / 3, 1. / 3, 0, 0, 0};
    for (int k = 0; k < 6; k++)
        assert_num(m.fast[k], ft[k]);

    m = metrics(&d, ALPHA, 0, KB_COND_TF32_VER);
    assert_num(m.correctness, 1.0);
    assert_num(m.speedup, sqrt(0.1875));
    const double fh[6] = {2. / 3, 1. / 3, 1. / 3, 0, 0, 0};
    for (int k = 0; k < 6; k++)
        assert_num(m.fast[k], fh[k]);
    assert_num(m.mem_eff, cbrt(4.0));
    assert_num(m.mem_eff_pct, 2.0 / 3);

    m = metrics(&d, ALPHA, 1, KB_COND_TF32_VER);
    assert_num(m.speedup, sqrt(0.1875));
    assert_num(m.fast[1], 0.5);
    assert_num(m.fast[2], 0.5);
    assert_num(m.fast[3], 0.0);
    kb_data_free(&d);
}

static void test_beta_conditions(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    /* a problem without samples is a failure in every denominator */
    kb_metrics m = metrics(&d, BETA, 0, KB_COND_FP32_STD);
    assert_int_equal(m.n_problems, 3);
    assert_int_equal(m.n_correct, 2);
    assert_num(m.correctness, 2.0 / 3);
    assert_num(m.speedup, sqrt(12.0)); /* 2 (the tie) and 6 */
    const double fs[6] = {2. / 3, 2. / 3, 2. / 3, 2. / 3, 2. / 3, 1. / 3};
    for (int k = 0; k < 6; k++)
        assert_num(m.fast[k], fs[k]);
    assert_num(m.mem_eff, 2.0); /* the tie kept s0 (peak 400): ratio 2, not 0.5 */
    assert_num(m.mem_eff_pct, 2.0 / 3);
    assert_num(m.mem_increase, 0.0);

    m = metrics(&d, BETA, 1, KB_COND_FP32_STD);
    assert_int_equal(m.n_problems, 2);
    assert_num(m.correctness, 0.5);
    assert_num(m.speedup, 2.0);
    assert_num(m.fast[5], 0.0); /* 2 > 2 is false */
    assert_num(m.fast[4], 0.5);

    m = metrics(&d, BETA, 0, KB_COND_FP32_VER);
    assert_num(m.correctness, 2.0 / 3);
    assert_num(m.speedup, sqrt(1.5)); /* 2 and 6/8 */
    const double fv[6] = {2. / 3, 2. / 3, 1. / 3, 1. / 3, 1. / 3, 0};
    for (int k = 0; k < 6; k++)
        assert_num(m.fast[k], fv[k]);
    assert_num(m.mem_eff, sqrt(4.0 / 3));
    assert_num(m.mem_eff_pct, 1.0 / 3);
    assert_num(m.mem_increase, 0.5);

    m = metrics(&d, BETA, 0, KB_COND_TF32_STD);
    assert_num(m.speedup, sqrt(6.0));
    assert_num(m.fast[5], 1.0 / 3);

    m = metrics(&d, BETA, 0, KB_COND_TF32_VER);
    assert_num(m.correctness, 2.0 / 3);
    assert_num(m.speedup, sqrt(0.75));
    const double fh[6] = {2. / 3, 1. / 3, 1. / 3, 1. / 3, 1. / 3, 0};
    for (int k = 0; k < 6; k++)
        assert_num(m.fast[k], fh[k]);
    assert_num(m.mem_eff, sqrt(4.0 / 3));
    assert_num(m.mem_eff_pct, 1.0 / 3);
    assert_num(m.mem_increase, 0.5);

    m = metrics(&d, BETA, 2, KB_COND_TF32_VER);
    assert_num(m.speedup, 0.375);
    assert_num(m.fast[3], 0.0);
    kb_data_free(&d);
}

static void test_memory_unmeasured(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    /* 003_c's best sample has no memory profile: still correct, out of the memory metrics' n;
     * Mem Eff % keeps ALL problems as its denominator */
    kb_data_cell(&d, ALPHA, PC)->samples[1].peak_bytes = NAN;
    kb_metrics m = metrics(&d, ALPHA, 0, KB_COND_FP32_STD);
    assert_int_equal(m.n_correct, 3);
    assert_int_equal(m.n_mem, 2);
    assert_num(m.mem_eff, sqrt(0.5));
    assert_num(m.mem_eff_pct, 0.0);
    assert_num(m.mem_increase, 0.5); /* 1 of the 2 measured, not 1 of 3 correct */
    /* an unmeasured baseline peak likewise */
    d.problems[PA].base_peak[KB_BASE_FP32] = NAN;
    m = metrics(&d, ALPHA, 0, KB_COND_FP32_STD);
    assert_int_equal(m.n_mem, 1);
    assert_num(m.mem_increase, 0.0);
    kb_data_free(&d);
}

static void test_fast_p_curve(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    kb_gate ver = kb_cond_gate(KB_COND_TF32_VER);
    /* beta's best verified speedups: 2 and 0.375 */
    assert_num(kb_fast_p(&d, BETA, 0, ver, KB_BASE_TF32, 0.0), 2.0 / 3);
    assert_num(kb_fast_p(&d, BETA, 0, ver, KB_BASE_TF32, 0.375), 1.0 / 3);
    assert_num(kb_fast_p(&d, BETA, 0, ver, KB_BASE_TF32, 1.999), 1.0 / 3);
    assert_num(kb_fast_p(&d, BETA, 0, ver, KB_BASE_TF32, 2.0), 0.0);
    kb_data_free(&d);
}

static void test_excluded_problem(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    d.problems[PB].excluded = 1; /* e.g. the paper's L2/23: out of every denominator */
    kb_metrics m = metrics(&d, BETA, 0, KB_COND_FP32_STD);
    assert_int_equal(m.n_problems, 2);
    assert_num(m.correctness, 0.5);
    assert_num(m.speedup, 6.0);
    kb_sample_counts sc;
    kb_sample_counts_compute(&d, BETA, 0, &sc);
    assert_int_equal(sc.samples, 2);
    assert_int_equal(kb_reach(&d, PB, NULL, NULL), KB_REACH_NEITHER);
    kb_data_free(&d);
}

static void test_no_problems(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    kb_metrics m = metrics(&d, ALPHA, 3, KB_COND_TF32_VER); /* no level-3 problem */
    assert_int_equal(m.n_problems, 0);
    assert_true(isnan(m.correctness) && isnan(m.speedup) && isnan(m.fast[3]) && isnan(m.mem_eff));
    kb_data_free(&d);
}

/* ---- tests: tolerance sensitivity ------------------------------------------------------------ */

static void test_tolerance(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    /* at the recorded tau the re-evaluation agrees with the recorded verdicts */
    for (size_t mi = 0; mi < 2; mi++)
        for (int c = 0; c < KB_N_COND; c++) {
            kb_metrics a = metrics(&d, mi, 0, (kb_cond)c);
            kb_metrics b = metrics_tau(&d, mi, kb_cond_gate((kb_cond)c).kind, 1e-3, kb_cond_base((kb_cond)c));
            assert_int_equal(a.n_correct, b.n_correct);
            assert_num(b.speedup, a.speedup);
        }
    kb_metrics m = metrics_tau(&d, ALPHA, KB_GATE_STANDARD, 1e-4, KB_BASE_FP32);
    assert_int_equal(m.n_correct, 2); /* 002_b needs 5e-4 */
    assert_num(m.speedup, 5.0);
    assert_num(m.fast[3], 1.0 / 3);
    assert_int_equal(m.n_undetermined, 0);
    m = metrics_tau(&d, ALPHA, KB_GATE_STANDARD, 1e-2, KB_BASE_FP32);
    assert_int_equal(m.n_correct, 3);
    assert_int_equal(m.n_undetermined, 1); /* 003_c s0 stopped at its wrong trial 0 */
    assert_num(m.speedup, sqrt(5.0));
    m = metrics_tau(&d, ALPHA, KB_GATE_VERIFIED, 1e-4, KB_BASE_TF32);
    assert_int_equal(m.n_correct, 1); /* only 003_c s1 (tau_req 0), untimed */
    assert_true(isnan(m.speedup));
    assert_num(m.fast[3], 0.0);
    m = metrics_tau(&d, BETA, KB_GATE_VERIFIED, 1e-4, KB_BASE_TF32);
    assert_int_equal(m.n_correct, 1); /* 002_b; the skipped D2 (inf) is ignored */
    assert_num(m.speedup, 2.0);
    assert_num(m.fast[3], 1.0 / 3);
    m = metrics_tau(&d, BETA, KB_GATE_VERIFIED, 1e-2, KB_BASE_TF32);
    assert_num(m.speedup, sqrt(0.75));
    kb_data_free(&d);
}

/* ---- tests: samples, verdicts, flags, distributions, reach ----------------------------------- */

static void test_sample_counts(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    kb_sample_counts a, b;
    kb_sample_counts_compute(&d, ALPHA, 0, &a);
    assert_int_equal(a.samples, 6);
    assert_int_equal(a.compiled, 5);
    assert_num(a.compile_rate, 5.0 / 6);
    assert_int_equal(a.library, 1);
    assert_int_equal(a.flagged, 1);
    assert_int_equal(a.std_accepted, 4);
    assert_int_equal(a.std_rejected, 2);
    assert_int_equal(a.std_not_run, 0);
    assert_int_equal(a.ver_accepted, 3);
    assert_int_equal(a.ver_rejected, 3);
    assert_int_equal(a.ver_not_run, 0);
    kb_sample_counts_compute(&d, BETA, 0, &b);
    assert_int_equal(b.samples, 4);
    assert_num(b.compile_rate, 1.0);
    assert_int_equal(b.ver_accepted, 3);
    assert_int_equal(b.ver_rejected, 1);
    kb_sample_counts_compute(&d, ALPHA, 1, &a);
    assert_int_equal(a.samples, 4);
    assert_num(a.compile_rate, 0.75);
    /* a missing verify artifact is "not run", not a rejection */
    kb_data_cell(&d, BETA, PC)->samples[0].hidden_pass = -1;
    kb_sample_counts_compute(&d, BETA, 0, &b);
    assert_int_equal(b.ver_not_run, 1);
    assert_int_equal(b.ver_accepted, 2);
    kb_data_free(&d);
}

static void test_verdicts_and_flags(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    char reason[320];
    const kb_cell_rec *c = kb_data_cell(&d, ALPHA, PB);
    assert_int_equal(kb_sample_verdict(&c->samples[0], KB_GATE_STANDARD, reason, sizeof reason), KB_VERDICT_REJECTED);
    assert_string_equal(reason, "compile_error");
    assert_int_equal(kb_sample_verdict(&c->samples[0], KB_GATE_VERIFIED, reason, sizeof reason), KB_VERDICT_REJECTED);
    assert_string_equal(reason, "standard: compile_error");
    c = kb_data_cell(&d, ALPHA, PA);
    assert_int_equal(kb_sample_verdict(&c->samples[1], KB_GATE_STANDARD, reason, sizeof reason), KB_VERDICT_ACCEPTED);
    assert_int_equal(kb_sample_verdict(&c->samples[1], KB_GATE_VERIFIED, reason, sizeof reason), KB_VERDICT_REJECTED);
    assert_string_equal(reason, "fails D4");

    kb_tally t = {0};
    assert_int_equal(kb_verdict_tally(&d, ALPHA, 0, KB_GATE_VERIFIED, KB_VERDICT_REJECTED, &t), 0);
    assert_int_equal(t.n, 3);
    assert_int_equal(kb_tally_get(&t, "fails D4"), 1);
    assert_int_equal(kb_tally_get(&t, "standard: compile_error"), 1);
    assert_int_equal(kb_tally_get(&t, "standard: wrong_answer"), 1);
    kb_tally_free(&t);
    assert_int_equal(kb_verdict_tally(&d, ALPHA, 0, KB_GATE_STANDARD, KB_VERDICT_ACCEPTED, &t), 0);
    assert_int_equal(kb_tally_get(&t, ""), 4);
    kb_tally_free(&t);

    assert_int_equal(kb_flag_tally(&d, ALPHA, 0, &t), 0);
    assert_int_equal(t.n, 2);
    assert_int_equal(kb_tally_get(&t, "other_stream"), 1);
    assert_int_equal(kb_tally_get(&t, "events"), 1);
    kb_tally_free(&t);
    assert_int_equal(kb_flag_tally(&d, BETA, 0, &t), 0);
    assert_int_equal(kb_tally_get(&t, "events"), 1);
    kb_tally_free(&t);

    kb_tally_add(&t, "b", 1);
    kb_tally_add(&t, "a", 1);
    kb_tally_add(&t, "c", 2);
    kb_tally_sort(&t);
    assert_string_equal(t.keys[0], "c");
    assert_string_equal(t.keys[1], "a");
    assert_string_equal(t.keys[2], "b");
    kb_tally_free(&t);
    kb_data_free(&d);
}

static const kb_dist_counts *find_dist(const kb_dist_counts *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return &v[i];
    return NULL;
}

static void test_distributions(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    kb_dist_counts v[8];
    size_t n = kb_dist_tally(&d, ALPHA, 0, v, 8);
    assert_int_equal(n, 4);
    assert_string_equal(v[0].name, "D1");
    const kb_dist_counts *d4 = find_dist(v, n, "D4");
    assert_int_equal(d4->samples, 5); /* the compile error has no draws */
    assert_int_equal(d4->ran, 5);
    assert_int_equal(d4->failed, 2);
    assert_int_equal(d4->passed, 3);
    assert_int_equal(find_dist(v, n, "D3")->failed, 0);
    assert_int_equal(find_dist(v, n, "D1")->failed, 1);
    /* best standard-correct samples: 001_a s1 (fails D4), 002_b s1, 003_c s1 */
    n = kb_dist_tally(&d, ALPHA, 1, v, 8);
    assert_int_equal(find_dist(v, n, "D4")->failed, 1);
    assert_int_equal(find_dist(v, n, "D1")->failed, 0);
    assert_int_equal(find_dist(v, n, "D4")->samples, 3);
    n = kb_dist_tally(&d, BETA, 0, v, 8);
    const kb_dist_counts *d2 = find_dist(v, n, "D2");
    assert_int_equal(d2->failed, 1);
    assert_int_equal(d2->skipped, 1);
    assert_int_equal(d2->passed, 2);
    n = kb_dist_tally(&d, BETA, 1, v, 8); /* best: 002_b s0, 003_c s1 */
    assert_int_equal(find_dist(v, n, "D2")->failed, 1);
    assert_int_equal(find_dist(v, n, "D2")->skipped, 0);
    kb_data_free(&d);
}

static void test_reach(void **state)
{
    (void)state;
    kb_data d;
    build(&d);
    int tm[2], hm[2];
    assert_int_equal(kb_reach(&d, PA, tm, hm), KB_REACH_TF32_ONLY);
    assert_true(tm[ALPHA] && !tm[BETA] && !hm[ALPHA] && !hm[BETA]);
    assert_int_equal(kb_reach(&d, PB, tm, hm), KB_REACH_NEITHER);
    assert_int_equal(kb_reach(&d, PC, tm, hm), KB_REACH_HIDDEN_ONLY);
    assert_true(hm[BETA] && !hm[ALPHA] && !tm[BETA]);
    /* a verified best at exactly 1.0x is not fast@1 either */
    kb_data_cell(&d, BETA, PC)->samples[0].kernel_ms = 6.0;
    assert_int_equal(kb_reach(&d, PC, tm, hm), KB_REACH_HIDDEN_ONLY);
    /* TF32 bringing a speedup down to exactly 1.0 removes fast@1 (strictly > 1) */
    d.problems[PB].base_ms[KB_BASE_TF32] = 2.0;
    assert_int_equal(kb_reach(&d, PB, tm, hm), KB_REACH_TF32_ONLY);
    assert_true(tm[BETA] && !tm[ALPHA]);
    /* without alpha's verified 001_a sample, its FP32 fast@1 falls to the hidden check as well */
    kb_data_cell(&d, ALPHA, PA)->samples[0].hidden_pass = 0;
    assert_int_equal(kb_reach(&d, PA, tm, hm), KB_REACH_BOTH);
    assert_string_equal(kb_reach_name(KB_REACH_BOTH), "both");
    assert_string_equal(kb_reach_name(KB_REACH_TF32_ONLY), "tf32-only");
    assert_string_equal(kb_reach_name(KB_REACH_HIDDEN_ONLY), "hidden-only");
    assert_string_equal(kb_reach_name(KB_REACH_NEITHER), "neither");
    kb_data_free(&d);
}

static void test_roofline(void **state)
{
    (void)state;
    /* 1 GFLOP, 4.3 GB: the memory floor (1 ms) dominates the compute floor (1/67 ms) */
    assert_num(kb_roofline_fraction(1e9, 4.3e9, 2.0), 0.5);
    assert_num(kb_roofline_fraction(67e9, 0, 1.0), 1.0);
    assert_true(isnan(kb_roofline_fraction(1e9, 1e9, NAN)));
    assert_true(isnan(kb_roofline_fraction(NAN, NAN, 1.0)));
}

/* ---- writing the data set as artifacts -------------------------------------------------------- */

/* Boards (test_boards_never_mixed): when set, every sample's sanity-check.h5 says it was timed
 * on fx_sample_gpu and problem p's baseline on fx_base_gpu[p]; unset, neither says (as before). */
static const char *fx_sample_gpu;
static const char *fx_base_gpu[3];

static int write_spec(const char *root, const spec *s, kb_err *err)
{
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_cell cell = {models[s->model], problems[s->problem], s->name};
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/%s/%s/%s", root, models[s->model], problems[s->problem], s->name);
    int ok = compiled(s);

    snprintf(path, sizeof path, "%s/compile.h5", dir);
    kb_h5w *w = kb_artifact_begin(path, "compile", &cell, &cfg, err);
    if (!w)
        return -1;
    kb_h5w_attr_i64(w, "/", "compiled", ok);
    kb_h5w_group(w, "/symbols");
    kb_h5w_attr_str(w, "/symbols", "verdict", ok ? (s->flags[0] ? "flagged" : "clean") : "");
    kb_h5w_attr_str(w, "/symbols", "reasons", s->flags);
    if (s->library >= 0)
        kb_h5w_attr_i64(w, "/symbols", "calls_library", s->library);
    if (kb_artifact_finish(w, kb_outcome_parse(s->compile), "", err) != 0)
        return -1;

    /* sanity-check.h5 */
    snprintf(path, sizeof path, "%s/sanity-check.h5", dir);
    if (!(w = kb_artifact_begin(path, "sanity-check", &cell, &cfg, err)))
        return -1;
    if (fx_sample_gpu)
        kb_h5w_attr_str(w, "/", "gpu_uuid", fx_sample_gpu);
    kb_h5w_attr_i64(w, "/", "ran", ok);
    if (ok) {
        int T = s->trials;
        kb_h5w_attr_i64(w, "/", "correct", s->correct);
        kb_h5w_attr_i64(w, "/", "trials_run", T);
        kb_h5w_attr_i64(w, "/", "trials_passed", s->correct ? T : 0);
        kb_h5w_attr_i64(w, "/", "timed", isfinite(s->ms));
        const char *outc[5] = {"ok", "ok", "ok", "ok", "ok"};
        int64_t skipped[5] = {0}, pass[5];
        double req[5];
        for (int t = 0; t < T; t++) {
            req[t] = t == 0 ? s->std_tau : s->std_tau / 4; /* the max is trial 0's */
            pass[t] = req[t] <= cfg.tau;
        }
        kb_h5w_strv(w, "/trials/outcome", outc, (size_t)T);
        kb_h5w_i64v(w, "/trials/skipped", skipped, (size_t)T, NULL);
        kb_h5w_i64v(w, "/trials/pass", pass, (size_t)T, NULL);
        kb_h5w_f64v(w, "/trials/outputs/out/tau_req", req, (size_t)T, "1");
        if (isfinite(s->ms)) {
            kb_h5w_group(w, "/timing/kernel");
            kb_h5w_attr_f64(w, "/timing/kernel", "reported_ms", s->ms);
        }
    }
    if (kb_artifact_finish(w, kb_outcome_parse(s->sanity), "", err) != 0)
        return -1;

    /* verify-distributions.h5 */
    snprintf(path, sizeof path, "%s/verify-distributions.h5", dir);
    if (!(w = kb_artifact_begin(path, "verify-dists", &cell, &cfg, err)))
        return -1;
    kb_h5w_attr_i64(w, "/", "ran", ok);
    if (ok) {
        int64_t ran[4], skip[4], pass[4];
        double req[4];
        const char *outc[4] = {"ok", "ok", "ok", "ok"};
        for (int k = 0; k < 4; k++) {
            ran[k] = 1;
            skip[k] = has_word(s->skipped, dist_names[k]);
            pass[k] = !skip[k] && !has_word(s->failing, dist_names[k]);
            req[k] = dist_tau(s, k);
        }
        kb_h5w_attr_i64(w, "/", "verified", s->hidden);
        kb_h5w_attr_str(w, "/", "reason", s->reason);
        kb_h5w_strv(w, "/distributions/name", dist_names, 4);
        kb_h5w_strv(w, "/distributions/outcome", outc, 4);
        kb_h5w_i64v(w, "/distributions/ran", ran, 4, NULL);
        kb_h5w_i64v(w, "/distributions/skipped", skip, 4, NULL);
        kb_h5w_i64v(w, "/distributions/pass", pass, 4, NULL);
        kb_h5w_f64v(w, "/distributions/outputs/out/tau_req", req, 4, "1");
    }
    if (kb_artifact_finish(w, kb_outcome_parse(s->verify), "", err) != 0)
        return -1;

    /* memory-profile.h5 */
    snprintf(path, sizeof path, "%s/memory-profile.h5", dir);
    if (!(w = kb_artifact_begin(path, "memory", &cell, &cfg, err)))
        return -1;
    kb_h5w_attr_i64(w, "/", "ran", ok);
    if (ok) {
        kb_h5w_group(w, "/memory");
        kb_h5w_attr_str(w, "/memory", "outcome", "ok");
        kb_h5w_attr_i64(w, "/memory", "tracked", 1);
        kb_h5w_attr_i64(w, "/memory", "peak_bytes", (int64_t)s->peak);
    }
    return kb_artifact_finish(w, ok ? KB_OUT_OK : kb_outcome_parse(s->compile), "", err);
}

static int write_baseline(const char *root, int p, kb_err *err)
{
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_cell cell = {"baseline", problems[p], ""};
    char path[4096];
    snprintf(path, sizeof path, "%s/baseline/%s/baseline-time.h5", root, problems[p]);
    kb_h5w *w = kb_artifact_begin(path, "baseline-time", &cell, &cfg, err);
    if (!w)
        return -1;
    if (fx_base_gpu[p])
        kb_h5w_attr_str(w, "/", "gpu_uuid", fx_base_gpu[p]);
    const char *slash = strchr(problems[p], '/');
    kb_h5w_attr_str(w, "/", "title", slash + 5); /* "a", "b", "c" */
    kb_h5w_attr_f64(w, "/", "flops", 1e9);
    kb_h5w_attr_f64(w, "/", "bytes", 4e9);
    kb_h5w_attr_i64(w, "/", "problem_flags", 0);
    for (int b = 0; b < 2; b++) {
        char g[16], tg[32];
        snprintf(g, sizeof g, "/%s", kb_base_name((kb_base)b));
        snprintf(tg, sizeof tg, "/%s/timing", kb_base_name((kb_base)b));
        kb_h5w_group(w, tg);
        kb_h5w_attr_str(w, g, "outcome", "ok");
        kb_h5w_attr_f64(w, tg, "reported_ms", base_ms[p][b]);
    }
    if (kb_artifact_finish(w, KB_OUT_OK, "", err) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/baseline/%s/memory-profile.h5", root, problems[p]);
    if (!(w = kb_artifact_begin(path, "memory", &cell, &cfg, err)))
        return -1;
    for (int b = 0; b < 2; b++) {
        char g[16];
        snprintf(g, sizeof g, "/%s", kb_base_name((kb_base)b));
        kb_h5w_group(w, g);
        kb_h5w_attr_str(w, g, "outcome", "ok");
        kb_h5w_attr_i64(w, g, "tracked", 1);
        kb_h5w_attr_i64(w, g, "peak_bytes", (int64_t)base_peak[p]);
    }
    return kb_artifact_finish(w, KB_OUT_OK, "", err);
}

/* DIR/artifacts/paper/{alpha,beta,baseline,unlisted,tables,tables-level1_019_relu}/...,
 * DIR/models.csv. "unlisted" has no samples and no order in models.csv (it sorts after the ordered models); alpha also holds a
 * problem outside the list (ignored, with a warning). */
static int write_fixtures(const char *dir, kb_err *err)
{
    char root[1024], path[2200];
    snprintf(root, sizeof root, "%.1000s/artifacts/paper", dir);
    for (size_t i = 0; i < N_SPECS; i++)
        if (write_spec(root, &specs[i], err) != 0)
            return -1;
    for (int p = 0; p < 3; p++)
        if (write_baseline(root, p, err) != 0)
            return -1;
    snprintf(path, sizeof path, "%s/unlisted/level1", root);
    if (kb_mkdirs(path, err) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/alpha/level3/009_z/s0", root);
    if (kb_mkdirs(path, err) != 0)
        return -1;
    /* the tables of make report and of a scoped run (make fidelity PROBLEM=...) live in the tree:
     * neither is a model (the GPU suite's scoped fidelity once made every later report fail) */
    const char *not_models[] = {"tables", "tables-level1_019_relu"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", root, not_models[i]);
        if (kb_mkdirs(path, err) != 0 || kb_write_file_atomic(strcat(path, "/fidelity.csv"), "problem\n", 8, err) != 0)
            return -1;
    }
    const char *csv = "model,display_name,paper_name,order,provider,date,sampling,samples_per_problem,prompt_style\n"
                      "beta,Beta Model,GPT-5.5,1,OpenAI,2026-05-14,\"temperature=1.0, top_p=1.0\",5,kernelbench\n"
                      "alpha,\"Alpha, the first\",,2,this project,2026-11-29,-,4,hand-written\n"
                      "gamma,Gamma,,3,Gamma Labs,unknown,unknown,5,abi\n"
                      "unlisted,unlisted,,,Nobody,unknown,unknown,5,kernelbench\n";
    snprintf(path, sizeof path, "%s/models.csv", dir);
    return kb_write_file_atomic(path, csv, strlen(csv), err);
}

/* ---- tests: the reader, through real files ---------------------------------------------------- */

typedef struct tree {
    char dir[256];
    kb_report r;
} tree;

static void rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static int tree_setup(void **state)
{
    tree *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    snprintf(t->dir, sizeof t->dir, "/tmp/kb_test_metrics.XXXXXX");
    kb_err err = {0};
    if (!mkdtemp(t->dir) || write_fixtures(t->dir, &err) != 0) {
        fprintf(stderr, "fixtures: %s\n", err.msg);
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int tree_teardown(void **state)
{
    tree *t = *state;
    rm_rf(t->dir);
    free(t);
    return 0;
}

static int load(tree *t, kb_err *err)
{
    char art[512], models_csv[512];
    snprintf(art, sizeof art, "%s/artifacts/paper/", t->dir);
    snprintf(models_csv, sizeof models_csv, "%s/models.csv", t->dir);
    return kb_report_load(&t->r, art, problems, 3, models_csv, NULL, "", NULL, err);
}

static int model_index(const kb_report *r, const char *name)
{
    for (size_t m = 0; m < r->data.n_models; m++)
        if (!strcmp(r->data.models[m], name))
            return (int)m;
    return -1;
}

static int has_note(const kb_notes *n, const char *a, const char *b)
{
    for (size_t i = 0; i < n->n; i++)
        if (strstr(n->lines[i], a) && (!b || strstr(n->lines[i], b)))
            return 1;
    return 0;
}

static void compare_sample(const kb_sample_rec *got, const kb_sample_rec *want)
{
    assert_string_equal(got->name, want->name);
    assert_int_equal(got->compiled, want->compiled);
    assert_string_equal(got->compile_outcome, want->compile_outcome);
    assert_int_equal(got->calls_library, want->calls_library);
    assert_string_equal(got->flags, want->flags);
    assert_string_equal(got->scan_verdict, want->scan_verdict);
    assert_int_equal(got->std_correct, want->std_correct);
    assert_string_equal(got->std_outcome, want->std_outcome);
    assert_string_equal(got->protocol, want->protocol);
    assert_num(got->tau, want->tau);
    assert_int_equal(got->trials_run, want->trials_run);
    assert_int_equal(got->trials_passed, want->trials_passed);
    assert_num(got->kernel_ms, want->kernel_ms);
    assert_num(got->std_tau_req, want->std_tau_req);
    assert_int_equal(got->std_complete, want->std_complete);
    assert_int_equal(got->hidden_pass, want->hidden_pass);
    assert_int_equal(got->hidden_pass_tf32, want->hidden_pass_tf32);
    assert_string_equal(got->ver_outcome, want->ver_outcome);
    assert_string_equal(got->reason, want->reason);
    assert_int_equal(got->n_dists, want->n_dists);
    for (size_t k = 0; k < want->n_dists; k++) {
        assert_string_equal(got->dists[k].name, want->dists[k].name);
        assert_int_equal(got->dists[k].ran, want->dists[k].ran);
        assert_int_equal(got->dists[k].skipped, want->dists[k].skipped);
        assert_int_equal(got->dists[k].pass, want->dists[k].pass);
        assert_num(got->dists[k].tau_req, want->dists[k].tau_req);
    }
    assert_num(got->hid_tau_req, want->hid_tau_req);
    assert_num(got->peak_bytes, want->peak_bytes);
    assert_string_equal(got->mem_outcome, want->mem_outcome);
}

static void test_reader_round_trip(void **state)
{
    tree *t = *state;
    kb_err err = {0};
    assert_int_equal(load(t, &err), 0);
    kb_report *r = &t->r;
    /* models: in models.csv order, then the one listed without an order */
    assert_int_equal(r->data.n_models, 3);
    assert_string_equal(r->data.models[0], "beta");
    assert_string_equal(r->data.models[1], "alpha");
    assert_string_equal(r->data.models[2], "unlisted");
    assert_string_equal(r->models[0].display, "Beta Model");
    assert_string_equal(r->models[0].paper, "GPT-5.5");
    assert_string_equal(r->models[1].display, "Alpha, the first"); /* quoted CSV field */
    assert_string_equal(r->models[2].display, "unlisted");
    assert_string_equal(r->protocol, "paper");
    assert_num(r->tau, 1e-3);
    assert_true(r->hidden_tau_based);
    assert_int_equal(r->n_levels, 2);
    assert_int_equal(r->levels[0], 1);
    assert_int_equal(r->levels[1], 2);
    for (int p = 0; p < 3; p++) {
        const kb_problem_rec *pr = &r->data.problems[p];
        assert_string_equal(pr->id, problems[p]);
        assert_num(pr->base_ms[0], base_ms[p][0]);
        assert_num(pr->base_ms[1], base_ms[p][1]);
        assert_num(pr->base_peak[0], base_peak[p]);
        assert_num(pr->base_peak[1], base_peak[p]);
        assert_num(pr->flops, 1e9);
        assert_int_equal(pr->excluded, 0);
    }
    assert_string_equal(r->data.problems[0].title, "a");
    for (size_t i = 0; i < N_SPECS; i++) {
        int m = model_index(r, models[specs[i].model]);
        assert_true(m >= 0);
        const kb_cell_rec *c = kb_data_cell(&r->data, (size_t)m, (size_t)specs[i].problem);
        const kb_sample_rec *got = NULL;
        for (size_t k = 0; k < c->n; k++)
            if (!strcmp(c->samples[k].name, specs[i].name))
                got = &c->samples[k];
        assert_non_null(got);
        kb_sample_rec want;
        make_record(&specs[i], &want);
        compare_sample(got, &want);
    }
    /* the metrics of the loaded data equal those of the in-memory data */
    kb_data d;
    build(&d);
    for (size_t mi = 0; mi < 2; mi++) {
        int m = model_index(r, models[mi]);
        for (int c = 0; c < KB_N_COND; c++)
            for (int level = 0; level <= 2; level++) {
                kb_metrics a = metrics(&d, mi, level, (kb_cond)c), b = metrics(&r->data, (size_t)m, level, (kb_cond)c);
                assert_int_equal(a.n_correct, b.n_correct);
                assert_num(b.speedup, a.speedup);
                assert_num(b.fast[3], a.fast[3]);
                assert_num(b.mem_eff, a.mem_eff);
            }
    }
    kb_data_free(&d);
    /* notes: nothing missing or malformed; the unlisted model has no samples; alpha's extra
     * problem directory is ignored */
    assert_int_equal(r->notes.n_errors, 0);
    assert_false(has_note(&r->notes, "missing", NULL));
    assert_true(has_note(&r->notes, "unlisted: no samples for 3 of 3", NULL));
    assert_true(has_note(&r->notes, "beta: no samples for 1 of 3", NULL));
    assert_true(has_note(&r->notes, "alpha: 1 problem directories not in --problems", "level3/009_z"));
    kb_report_free(r);
}

/* A sample timed on another board than its problem's baseline: its time is left out (no speedup
 * divides times from two boards), with a note naming both; samples on the baseline's board, and
 * artifacts that name no board (older trees), keep theirs. */
static void test_boards_never_mixed(void **state)
{
    (void)state;
    tree t;
    memset(&t, 0, sizeof t);
    snprintf(t.dir, sizeof t.dir, "/tmp/kb_test_boards.XXXXXX");
    assert_non_null(mkdtemp(t.dir));
    fx_sample_gpu = "GPU-aaaa";
    fx_base_gpu[0] = "GPU-bbbb"; /* 001_a: its baseline elsewhere */
    fx_base_gpu[1] = "GPU-aaaa"; /* 002_b: the same board */
    fx_base_gpu[2] = NULL;       /* 003_c: the baseline names none */
    kb_err err = {0};
    int wrote = write_fixtures(t.dir, &err);
    fx_sample_gpu = fx_base_gpu[0] = fx_base_gpu[1] = NULL;
    assert_int_equal(wrote, 0);
    assert_int_equal(load(&t, &err), 0);
    kb_report *r = &t.r;
    size_t left_out = 0, kept = 0;
    for (size_t i = 0; i < N_SPECS; i++) {
        const spec *sp = &specs[i];
        int m = model_index(r, models[sp->model]);
        const kb_cell_rec *c = kb_data_cell(&r->data, (size_t)m, (size_t)sp->problem);
        for (size_t k = 0; k < c->n; k++) {
            const kb_sample_rec *got = &c->samples[k];
            if (strcmp(got->name, sp->name) != 0 || !compiled(sp) || !isfinite(sp->ms))
                continue;
            assert_string_equal(got->gpu_uuid, "GPU-aaaa");
            if (sp->problem == 0) {
                assert_true(isnan(got->kernel_ms));
                left_out++;
            } else {
                assert_num(got->kernel_ms, sp->ms);
                kept++;
            }
        }
    }
    assert_true(left_out > 0 && kept > 0);
    assert_true(has_note(&r->notes, "001_a", "timed on GPU-aaaa, its baseline on GPU-bbbb"));
    assert_false(has_note(&r->notes, "002_b", "its baseline on"));
    kb_report_free(r);
    rm_rf(t.dir);
}

static void test_reader_missing_and_corrupt(void **state)
{
    tree *t = *state;
    char path[1024];
    /* a stage not run: beta 003_c s0 has no memory profile */
    snprintf(path, sizeof path, "%s/artifacts/paper/beta/level2/003_c/s0/memory-profile.h5", t->dir);
    assert_int_equal(unlink(path), 0);
    /* a corrupt artifact: alpha 001_a s0's standard check */
    snprintf(path, sizeof path, "%s/artifacts/paper/alpha/level1/001_a/s0/sanity-check.h5", t->dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("this is not HDF5\n", f);
    fclose(f);
    kb_err err = {0};
    assert_int_equal(load(t, &err), 0);
    kb_report *r = &t->r;
    assert_int_equal(r->notes.n_errors, 1);
    assert_true(has_note(&r->notes, "error: ", "alpha/level1/001_a/s0/sanity-check.h5"));
    assert_true(has_note(&r->notes, "alpha/level1/001_a/s0/sanity-check.h5", "delete it and re-run make"));
    assert_true(has_note(&r->notes, "warning: ", "beta/level2/003_c/s0/memory-profile.h5: missing"));
    int a = model_index(r, "alpha"), b = model_index(r, "beta");
    const kb_sample_rec *s = &kb_data_cell(&r->data, (size_t)a, PA)->samples[0];
    assert_int_equal(s->std_correct, -1); /* treated as not run */
    assert_true(isnan(s->kernel_ms));
    assert_int_equal(s->hidden_pass, 1); /* the other stages are still read */
    assert_true(isnan(kb_data_cell(&r->data, (size_t)b, PC)->samples[0].peak_bytes));
    /* beta TF32 x verified: 003_c's peak is unknown, so only 002_b enters the memory metrics */
    kb_metrics m = metrics(&r->data, (size_t)b, 0, KB_COND_TF32_VER);
    assert_int_equal(m.n_mem, 1);
    assert_num(m.mem_eff, 2.0);
    assert_num(m.mem_eff_pct, 1.0 / 3);
    assert_num(m.mem_increase, 0.0);
    assert_num(m.speedup, sqrt(0.75)); /* timing is unaffected */
    /* alpha: 001_a's verified sample is gone, so 001_a fails TF32 x verified */
    m = metrics(&r->data, (size_t)a, 0, KB_COND_TF32_VER);
    assert_num(m.correctness, 2.0 / 3);
    assert_num(m.speedup, 1.0);
    kb_report_free(r);
}

static void test_csv_readers(void **state)
{
    tree *t = *state;
    char path[1024];
    kb_err err = {0};
    snprintf(path, sizeof path, "%s/ref.csv", t->dir);
    const char *ref = "model,level,metric,value\nGPT-5.5,level1,speedup,0.9\nGPT-5.5,all,fast_1,0.53\n\n";
    assert_int_equal(kb_write_file_atomic(path, ref, strlen(ref), &err), 0);
    kb_ref_row *rows;
    size_t n;
    assert_int_equal(kb_read_reference_csv(path, &rows, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_num(kb_ref_value(rows, n, "GPT-5.5", "level1", "speedup"), 0.9);
    assert_num(kb_ref_value(rows, n, "GPT-5.5", "all", "fast_1"), 0.53);
    assert_true(isnan(kb_ref_value(rows, n, "GPT-5.5", "level2", "speedup")));
    assert_true(isnan(kb_ref_value(rows, n, "", "level1", "speedup")));
    free(rows);
    const char *bad = "model,level,metric,value\nGPT-5.5,level1,speedup,fast\n";
    assert_int_equal(kb_write_file_atomic(path, bad, strlen(bad), &err), 0);
    assert_int_equal(kb_read_reference_csv(path, &rows, &n, &err), -1);
    assert_non_null(strstr(err.msg, "not a number"));
    const char *nohdr = "name,x\na,1\n";
    assert_int_equal(kb_write_file_atomic(path, nohdr, strlen(nohdr), &err), 0);
    kb_model_info *mi;
    assert_int_equal(kb_read_models_csv(path, &mi, &n, &err), -1);
    assert_non_null(strstr(err.msg, "lacks the column(s) model, display_name"));
    snprintf(path, sizeof path, "%s/nonexistent.csv", t->dir);
    assert_int_equal(kb_read_models_csv(path, &mi, &n, &err), -1);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write-fixtures")) {
        kb_err err = {0};
        if (write_fixtures(argv[2], &err) != 0) {
            fprintf(stderr, "test_metrics: cannot write fixtures: %s\n", err.msg);
            return 1;
        }
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cells_sorted_and_levels),
        cmocka_unit_test(test_gates_as_recorded),
        cmocka_unit_test(test_gates_at_tau),
        cmocka_unit_test(test_tf32_verdict),
        cmocka_unit_test(test_conditions),
        cmocka_unit_test(test_best_of_n),
        cmocka_unit_test(test_alpha_fp32_standard),
        cmocka_unit_test(test_alpha_other_conditions),
        cmocka_unit_test(test_beta_conditions),
        cmocka_unit_test(test_memory_unmeasured),
        cmocka_unit_test(test_fast_p_curve),
        cmocka_unit_test(test_excluded_problem),
        cmocka_unit_test(test_no_problems),
        cmocka_unit_test(test_tolerance),
        cmocka_unit_test(test_sample_counts),
        cmocka_unit_test(test_verdicts_and_flags),
        cmocka_unit_test(test_distributions),
        cmocka_unit_test(test_reach),
        cmocka_unit_test(test_roofline),
        cmocka_unit_test_setup_teardown(test_reader_round_trip, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_reader_missing_and_corrupt, tree_setup, tree_teardown),
        cmocka_unit_test(test_boards_never_mixed),
        cmocka_unit_test_setup_teardown(test_csv_readers, tree_setup, tree_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
