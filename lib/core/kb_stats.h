/*
 * kb_stats.h -- statistics of raw samples. Samples are never modified (functions copy what they
 * sort). NaN samples are ignored by every function here (a sample that could not be taken is
 * recorded as NaN in the artifacts).
 */
#ifndef KB_STATS_H
#define KB_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_summary {
    size_t n;         /* finite samples used */
    double mean, stddev; /* stddev: sample standard deviation (n-1) */
    double min, max;
    double median, q1, q3;
    /* Distribution-free 95% confidence interval of the median (order statistics of a
     * Binomial(n, 1/2)); NaN when n < 6 (too few samples for 95%). */
    double median_ci_lo, median_ci_hi;
    /* Half-width of that interval relative to the median: the noise figure the strict timer
     * stops on. */
    double median_rel_ci;
} kb_summary;

void kb_summarize(const double *x, size_t n, kb_summary *out);

/* Quantile q in [0,1] with linear interpolation between order statistics (numpy's default). */
double kb_quantile(const double *x, size_t n, double q);
double kb_median(const double *x, size_t n);
double kb_stats_mean(const double *x, size_t n);

/* Geometric mean of the positive finite values; NaN if there are none. */
double kb_geomean(const double *x, size_t n);

/* Ranks (1-based, into the sorted sample) bounding a distribution-free confidence interval of
 * the median at `level` (e.g. 0.95): P(X_(lo) <= median <= X_(hi)) >= level. Returns -1 if n is
 * too small for the level. */
int kb_median_ci_ranks(size_t n, double level, size_t *lo, size_t *hi);

#ifdef __cplusplus
}
#endif

#endif /* KB_STATS_H */
