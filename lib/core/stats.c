/* stats.c -- see kb_stats.h. */
#include "core/kb_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorted copy of the finite samples; *m gets their count. NULL if none or out of memory. */
static double *sorted_finite(const double *x, size_t n, size_t *m)
{
    *m = 0;
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            s[(*m)++] = x[i];
    if (*m == 0) {
        free(s);
        return NULL;
    }
    qsort(s, *m, sizeof *s, cmp_double);
    return s;
}

static double quantile_sorted(const double *s, size_t m, double q)
{
    double pos = q * (double)(m - 1);
    size_t i = (size_t)floor(pos);
    if (i + 1 >= m)
        return s[m - 1];
    double f = pos - (double)i;
    return s[i] + f * (s[i + 1] - s[i]);
}

double kb_quantile(const double *x, size_t n, double q)
{
    size_t m;
    double *s = sorted_finite(x, n, &m);
    if (!s)
        return NAN;
    double v = quantile_sorted(s, m, q);
    free(s);
    return v;
}

double kb_median(const double *x, size_t n) { return kb_quantile(x, n, 0.5); }

double kb_stats_mean(const double *x, size_t n)
{
    double sum = 0.0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) {
            sum += x[i];
            m++;
        }
    return m ? sum / (double)m : NAN;
}

double kb_geomean(const double *x, size_t n)
{
    double sum = 0.0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && x[i] > 0.0) {
            sum += log(x[i]);
            m++;
        }
    return m ? exp(sum / (double)m) : NAN;
}

/* log of the Binomial(n, 1/2) probability of k. */
static double log_binom_half(size_t n, size_t k)
{
    return lgamma((double)n + 1.0) - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0) - (double)n * log(2.0);
}

int kb_median_ci_ranks(size_t n, double level, size_t *lo, size_t *hi)
{
    if (n == 0)
        return -1;
    /* Largest j with P(B <= j-1) <= (1-level)/2; the interval is [X_(j), X_(n+1-j)], whose
     * coverage is 1 - 2 P(B <= j-1) >= level. */
    double alpha2 = (1.0 - level) / 2.0, cdf = 0.0;
    size_t j = 0;
    for (size_t k = 0; k < n; k++) {
        double p = exp(log_binom_half(n, k));
        if (cdf + p > alpha2)
            break;
        cdf += p;
        j = k + 1;
    }
    if (j == 0)
        return -1;
    *lo = j;
    *hi = n + 1 - j;
    return 0;
}

void kb_summarize(const double *x, size_t n, kb_summary *o)
{
    memset(o, 0, sizeof *o);
    o->mean = o->stddev = o->min = o->max = o->median = o->q1 = o->q3 = NAN;
    o->median_ci_lo = o->median_ci_hi = o->median_rel_ci = NAN;
    size_t m;
    double *s = sorted_finite(x, n, &m);
    if (!s)
        return;
    o->n = m;
    double sum = 0.0;
    for (size_t i = 0; i < m; i++)
        sum += s[i];
    o->mean = sum / (double)m;
    double ss = 0.0;
    for (size_t i = 0; i < m; i++)
        ss += (s[i] - o->mean) * (s[i] - o->mean);
    o->stddev = m > 1 ? sqrt(ss / (double)(m - 1)) : NAN;
    o->min = s[0];
    o->max = s[m - 1];
    o->median = quantile_sorted(s, m, 0.5);
    o->q1 = quantile_sorted(s, m, 0.25);
    o->q3 = quantile_sorted(s, m, 0.75);
    size_t lo, hi;
    if (kb_median_ci_ranks(m, 0.95, &lo, &hi) == 0) {
        o->median_ci_lo = s[lo - 1];
        o->median_ci_hi = s[hi - 1];
        if (o->median > 0.0)
            o->median_rel_ci = (o->median_ci_hi - o->median_ci_lo) / (2.0 * o->median);
    }
    free(s);
}
