/*
 * kb_close.h -- what "close" means, the same on host and device.
 *
 * The paper's check is torch.allclose(ref, out, atol=tau, rtol=tau): per element
 *     |ref - out| <= tau + tau * |out|        (torch.isclose(input, other): rtol scales |other|)
 * NaN is never close (equal_nan=False); +inf is close to +inf and -inf to -inf only.
 * Instead of a pass/fail at one tau we record, per output, the smallest tau that passes,
 *     tau_req = max_i |ref_i - out_i| / (1 + |out_i|)        (+inf for a NaN or inf mismatch)
 * so that pass(tau) == (tau_req <= tau) for every tau: the aggregate re-evaluates the tolerance
 * sensitivity (1e-2, 1e-3, 1e-4) from stored statistics without re-running anything.
 * Computed in double; torch evaluates the inequality in the output dtype, which can only differ
 * within one rounding of the threshold.
 *
 * The strict protocol adds a bound scaled by what was summed (kb_close_scaled_excess): for an
 * element computed from K terms, an honest fp32 result differs from the exact one by at most
 * about K * 2^-24 * sum|terms|; `mag` is that sum of magnitudes (from an |A| @ |B|-style
 * reference) and the excess is |ref - out| / (atol + rtol * mag).
 */
#ifndef KB_CLOSE_H
#define KB_CLOSE_H

#include <math.h>
#include <stdint.h>

#include "core/kb_hd.h"

/* Smallest tau with |ref - out| <= tau * (1 + |out|). */
KB_HD double kb_close_tau_req(double ref, double out)
{
    if (isnan(ref) || isnan(out))
        return INFINITY;
    if (isinf(ref) || isinf(out))
        return (ref == out) ? 0.0 : INFINITY;
    return fabs(ref - out) / (1.0 + fabs(out));
}

/* torch.isclose(ref, out, rtol, atol, equal_nan=False). */
KB_HD int kb_isclose(double ref, double out, double atol, double rtol)
{
    if (isnan(ref) || isnan(out))
        return 0;
    if (isinf(ref) || isinf(out))
        return ref == out;
    return fabs(ref - out) <= atol + rtol * fabs(out);
}

/* |ref - out| / (atol + rtol * mag): <= 1 passes the magnitude-scaled bound. */
KB_HD double kb_close_scaled_excess(double ref, double out, double mag, double atol, double rtol)
{
    if (isnan(ref) || isnan(out))
        return INFINITY;
    if (isinf(ref) || isinf(out))
        return (ref == out) ? 0.0 : INFINITY;
    double bound = atol + rtol * fabs(mag);
    double d = fabs(ref - out);
    return d == 0.0 ? 0.0 : (bound > 0.0 ? d / bound : INFINITY);
}

/* The strict protocol's TF32 rule (docs/protocols.md): where PyTorch's TF32 mode computes in
 * TF32, each product's two operands may carry TF32's rounding, truncation at worst: relative error
 * < 2^-10 each, so |error| <= (2^-9 + 2^-20) x sum|a||b|. The scaled bound's rtol grows by this
 * (mag is that sum of magnitudes); the second-order term is inside the bound's fp32 part. */
#define KB_TF32_OPERAND_RTOL (1.0 / 512.0)

/* Error statistics of one output tensor against its reference (one comparison). */
typedef struct kb_cmp_stats {
    int64_t n;            /* elements compared */
    int64_t n_nan_out;    /* NaN in the output */
    int64_t n_nan_ref;    /* NaN in the reference */
    int64_t n_inf_ref;    /* +-inf in the reference */
    int64_t n_fail;       /* elements not close at the tau the comparison was run with */
    int64_t n_bitwise_diff; /* elements whose bits differ from the reference */
    double tau;           /* the tau n_fail refers to */
    double tau_req;       /* smallest passing tau (see above) */
    int64_t worst_index;  /* element attaining tau_req (-1 if none) */
    double worst_ref, worst_out;
    double max_abs_err;   /* max |ref - out| over elements where both are finite */
    double max_abs_ref;   /* max |ref| over finite elements */
    double sum_sq_err;    /* sum (ref - out)^2, finite elements */
    double sum_sq_ref;    /* sum ref^2 */
    double scaled_excess; /* strict: max kb_close_scaled_excess (0 when not computed) */
} kb_cmp_stats;

#endif /* KB_CLOSE_H */
