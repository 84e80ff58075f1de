/*
 * test_stats.c -- lib/core/kb_stats.h: statistics of raw samples.
 *
 * Pinned against values worked out by hand with numpy's default (linear) quantile rule
 * (position q * (n - 1) into the sorted sample, linear interpolation):
 *   - mean / median / quantiles on small samples, unsorted input, duplicates, n = 1;
 *   - NaN (and +-inf: a sample that could not be taken) ignored by every function;
 *   - geometric mean over the positive finite values only;
 *   - distribution-free 95% CI ranks of the median: n = 5 none, n = 6 ranks 1..6 (coverage
 *     1 - 2/64 = 0.969), n = 10 ranks 2..9, n = 100 ranks 40..61, and for every n in 6..1000 the
 *     exact binomial coverage is >= 95% while the next narrower interval's is < 95%;
 *   - kb_summarize on 1..10 (every field), the input left unmodified.
 */
#include "kbt.h"

#include <math.h>

#include "core/kb_stats.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-12 * (1.0 + fabs(b)))
#define CHECK_NEAR(got, want, what) KBT_CHECK(NEAR(got, want), "%s = %.17g, want %.17g", what, (double)(got), (double)(want))

static void test_mean_median_quantiles(void **state)
{
    (void)state;
    /* sorted: 1 1 2 3 4 5 6 9 (n = 8, positions q * 7) */
    const double x[] = {3, 1, 4, 1, 5, 9, 2, 6};
    const size_t n = 8;
    CHECK_NEAR(kb_stats_mean(x, n), 31.0 / 8, "mean");
    CHECK_NEAR(kb_median(x, n), 3.5, "median (pos 3.5)");
    const struct {
        double q, want;
    } qs[] = {
        {0.0, 1.0}, {0.1, 1.0}, /* pos 0.7 between 1 and 1 */
        {0.25, 1.75},           /* pos 1.75: 1 + 0.75 * (2 - 1) */
        {0.5, 3.5},  {0.75, 5.25}, /* pos 5.25: 5 + 0.25 * (6 - 5) */
        {0.9, 6.9},             /* pos 6.3: 6 + 0.3 * (9 - 6) */
        {1.0, 9.0},
    };
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "quantile(%g)", qs[i].q);
        CHECK_NEAR(kb_quantile(x, n, qs[i].q), qs[i].want, what);
    }
    /* odd n: the middle element */
    const double y[] = {10, -3, 7, 7, 0};
    CHECK_NEAR(kb_median(y, 5), 7.0, "median of {10,-3,7,7,0}");
    CHECK_NEAR(kb_quantile(y, 5, 0.25), 0.0, "quantile(0.25) of {-3,0,7,7,10}");
    CHECK_NEAR(kb_quantile(y, 5, 0.1), -1.8, "quantile(0.1): pos 0.4, -3 + 0.4 * 3");
    const double one[] = {42};
    CHECK_NEAR(kb_median(one, 1), 42.0, "median of one sample");
    CHECK_NEAR(kb_quantile(one, 1, 0.9), 42.0, "quantile of one sample");
    KBT_CHECK(isnan(kb_stats_mean(NULL, 0)) && isnan(kb_median(NULL, 0)), "empty sample gives NaN");
    print_message("mean/median/quantile: 8-, 5- and 1-sample cases vs numpy linear interpolation\n");
}

static void test_nan_ignored(void **state)
{
    (void)state;
    const double x[] = {NAN, 3, 1, NAN, 4, 1, 5, 9, 2, 6, NAN};
    const size_t n = sizeof x / sizeof x[0];
    CHECK_NEAR(kb_stats_mean(x, n), 31.0 / 8, "mean with NaNs");
    CHECK_NEAR(kb_median(x, n), 3.5, "median with NaNs");
    CHECK_NEAR(kb_quantile(x, n, 0.9), 6.9, "quantile(0.9) with NaNs");
    CHECK_NEAR(kb_geomean(x, n), pow(3.0 * 1 * 4 * 1 * 5 * 9 * 2 * 6, 1.0 / 8), "geomean with NaNs");
    /* +-inf marks a failed sample the same way (the library filters non-finite values). */
    const double z[] = {INFINITY, 2, -INFINITY, 4};
    CHECK_NEAR(kb_stats_mean(z, 4), 3.0, "mean ignoring +-inf");
    CHECK_NEAR(kb_median(z, 4), 3.0, "median ignoring +-inf");
    const double all_nan[] = {NAN, NAN};
    KBT_CHECK(isnan(kb_stats_mean(all_nan, 2)) && isnan(kb_median(all_nan, 2)) && isnan(kb_geomean(all_nan, 2)),
              "all-NaN sample gives NaN");
    kb_summary s;
    kb_summarize(x, n, &s);
    KBT_CHECK(s.n == 8, "summary n = %zu finite samples, want 8", s.n);
    CHECK_NEAR(s.median, 3.5, "summary median with NaNs");
    kb_summarize(all_nan, 2, &s);
    KBT_CHECK(s.n == 0 && isnan(s.mean) && isnan(s.median) && isnan(s.min) && isnan(s.median_ci_lo),
              "summary of all-NaN: n %zu, mean %g", s.n, s.mean);
    print_message("NaN and +-inf samples ignored by mean, median, quantile, geomean, summarize\n");
}

static void test_geomean(void **state)
{
    (void)state;
    const double a[] = {1, 10, 100};
    CHECK_NEAR(kb_geomean(a, 3), 10.0, "geomean(1, 10, 100)");
    const double b[] = {2, 8};
    CHECK_NEAR(kb_geomean(b, 2), 4.0, "geomean(2, 8)");
    /* zero, negative, NaN, inf are not positive finite: left out */
    const double c[] = {0.0, -5.0, 1, NAN, 10, INFINITY, 100};
    CHECK_NEAR(kb_geomean(c, 7), 10.0, "geomean skipping 0, -5, NaN, inf");
    const double d[] = {0.0, -1.0};
    KBT_CHECK(isnan(kb_geomean(d, 2)), "geomean with no positive value is NaN, got %g", kb_geomean(d, 2));
    /* speedups: 0.5 and 2 cancel */
    const double e[] = {0.5, 2.0, 1.0};
    CHECK_NEAR(kb_geomean(e, 3), 1.0, "geomean(0.5, 2, 1)");
    print_message("geomean: 5 cases, non-positive and non-finite values left out\n");
}

/* Exact P(B <= k) for B ~ Binomial(n, 1/2), in long double (independent of the library's lgamma). */
static long double binom_cdf_half(size_t n, size_t k)
{
    long double p = powl(0.5L, (long double)n), cdf = 0; /* P(B = 0) */
    for (size_t i = 0; i <= k; i++) {
        cdf += p;
        p = p * (long double)(n - i) / (long double)(i + 1);
    }
    return cdf;
}

static void test_median_ci_ranks(void **state)
{
    (void)state;
    size_t lo = 0, hi = 0;
    KBT_CHECK(kb_median_ci_ranks(5, 0.95, &lo, &hi) == -1, "n = 5 cannot give a 95%% interval");
    KBT_CHECK(kb_median_ci_ranks(0, 0.95, &lo, &hi) == -1, "n = 0");
    KBT_CHECK(kb_median_ci_ranks(1, 0.5, &lo, &hi) == -1, "n = 1");
    const struct {
        size_t n, lo, hi;
        double coverage;
    } known[] = {
        {6, 1, 6, 0.96875},   /* 1 - 2/64 */
        {10, 2, 9, 0.978515625}, /* 1 - 2 * 11/1024 */
        {20, 6, 15, 0.958610535},
        {100, 40, 61, 0.9647998},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        KBT_CHECK(kb_median_ci_ranks(known[i].n, 0.95, &lo, &hi) == 0, "n = %zu has a 95%% interval", known[i].n);
        KBT_CHECK(lo == known[i].lo && hi == known[i].hi, "n = %zu: ranks %zu..%zu, want %zu..%zu", known[i].n, lo, hi,
                  known[i].lo, known[i].hi);
        double cov = (double)(1.0L - 2.0L * binom_cdf_half(known[i].n, lo - 1));
        KBT_CHECK(fabs(cov - known[i].coverage) < 1e-6, "n = %zu: coverage %.9f, want %.9f", known[i].n, cov,
                  known[i].coverage);
        print_message("median CI n = %3zu: ranks %zu..%zu, coverage %.6f\n", known[i].n, lo, hi, cov);
    }
    /* Every n: symmetric, coverage >= level, and the interval is the narrowest such. */
    const double levels[] = {0.95, 0.99, 0.9};
    for (size_t L = 0; L < 3; L++)
        for (size_t n = 1; n <= 1000; n++) {
            int rc = kb_median_ci_ranks(n, levels[L], &lo, &hi);
            long double alpha2 = (1.0L - levels[L]) / 2.0L;
            if (rc != 0) {
                /* none exists: even [X_(1), X_(n)] misses, i.e. P(B <= 0) > alpha/2 */
                KBT_CHECK(binom_cdf_half(n, 0) > alpha2, "n = %zu level %g: refused, but ranks 1..n cover", n,
                          levels[L]);
                continue;
            }
            KBT_CHECK(lo >= 1 && hi == n + 1 - lo && lo <= hi, "n = %zu: ranks %zu..%zu not symmetric", n, lo, hi);
            KBT_CHECK(binom_cdf_half(n, lo - 1) <= alpha2 * (1 + 1e-9L), "n = %zu level %g: ranks %zu..%zu cover less",
                      n, levels[L], lo, hi);
            KBT_CHECK(binom_cdf_half(n, lo) > alpha2 * (1 - 1e-9L),
                      "n = %zu level %g: ranks %zu..%zu are not the narrowest", n, levels[L], lo + 1, hi - 1);
        }
    print_message("median CI ranks: n = 1..1000 at 0.9/0.95/0.99 are the narrowest symmetric intervals with "
                  "exact coverage >= level\n");
}

static void test_summarize(void **state)
{
    (void)state;
    double x[] = {7, 3, 10, 1, 5, 9, 2, 8, 6, 4}; /* 1..10, shuffled */
    double copy[10];
    memcpy(copy, x, sizeof x);
    kb_summary s;
    kb_summarize(x, 10, &s);
    KBT_CHECK(memcmp(copy, x, sizeof x) == 0, "kb_summarize modified its input");
    KBT_CHECK(s.n == 10, "n = %zu", s.n);
    CHECK_NEAR(s.mean, 5.5, "mean");
    CHECK_NEAR(s.stddev, sqrt(82.5 / 9), "sample stddev (n - 1)");
    CHECK_NEAR(s.min, 1.0, "min");
    CHECK_NEAR(s.max, 10.0, "max");
    CHECK_NEAR(s.median, 5.5, "median");
    CHECK_NEAR(s.q1, 3.25, "q1 (pos 2.25)");
    CHECK_NEAR(s.q3, 7.75, "q3 (pos 6.75)");
    CHECK_NEAR(s.median_ci_lo, 2.0, "median CI low (rank 2)");
    CHECK_NEAR(s.median_ci_hi, 9.0, "median CI high (rank 9)");
    CHECK_NEAR(s.median_rel_ci, 7.0 / 11.0, "relative CI half-width (9 - 2) / (2 * 5.5)");

    /* n < 6: no interval */
    const double few[] = {1, 2, 3, 4, 5};
    kb_summarize(few, 5, &s);
    KBT_CHECK(isnan(s.median_ci_lo) && isnan(s.median_ci_hi) && isnan(s.median_rel_ci), "n = 5 has no CI");
    CHECK_NEAR(s.median, 3.0, "median of 1..5");
    /* n = 1: no stddev */
    const double single[] = {4.0};
    kb_summarize(single, 1, &s);
    KBT_CHECK(s.n == 1 && isnan(s.stddev) && s.mean == 4.0 && s.min == 4.0 && s.max == 4.0, "n = 1 summary");
    /* non-positive median: no relative width */
    const double neg[] = {-6, -5, -4, -3, -2, -1};
    kb_summarize(neg, 6, &s);
    KBT_CHECK(s.median_ci_lo == -6 && s.median_ci_hi == -1 && isnan(s.median_rel_ci),
              "negative median: CI [%g, %g], rel %g", s.median_ci_lo, s.median_ci_hi, s.median_rel_ci);
    /* 100 samples 1..100: CI = ranks 40..61 */
    double h[100];
    for (int i = 0; i < 100; i++)
        h[i] = 100 - i;
    kb_summarize(h, 100, &s);
    CHECK_NEAR(s.median_ci_lo, 40.0, "n = 100 CI low");
    CHECK_NEAR(s.median_ci_hi, 61.0, "n = 100 CI high");
    CHECK_NEAR(s.median_rel_ci, 21.0 / (2 * 50.5), "n = 100 relative CI");
    print_message("summarize: 1..10 (every field), n = 5, n = 1, negative median, 1..100\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mean_median_quantiles),
        cmocka_unit_test(test_nan_ignored),
        cmocka_unit_test(test_geomean),
        cmocka_unit_test(test_median_ci_ranks),
        cmocka_unit_test(test_summarize),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
