/*
 * mutreport.c -- the mutation report's judgements (kb_mutreport.h).
 */
#include <math.h>

#include "mutation/kb_mutreport.h"

static double row_excess(const kb_mut_row *r, size_t k, int tf32)
{
    return tf32 ? r->excess_tf32[k] : r->excess[k];
}

int kb_mut_origin_tf32(const kb_mut_row *origin, const int64_t *skipped, size_t K)
{
    for (size_t k = 0; k < K; k++)
        if (!skipped[k] && origin->call[k] == 0 && !(origin->excess[k] <= 1.0))
            return 1;
    return 0;
}

int kb_mut_usable(const kb_mut_row *origin, const int64_t *skipped, size_t k, int tf32)
{
    return !skipped[k] && origin->call[k] == 0 && row_excess(origin, k, tf32) <= 1.0;
}

int kb_mut_witness(const kb_mut_row *origin, const kb_mut_row *mutant, const int64_t *skipped, size_t K, int tf32,
                   int *entry, double *excess)
{
    *entry = -1;
    *excess = NAN;
    double best = -1.0;
    int best_k = -1;
    for (size_t k = 0; k < K; k++) {
        int64_t c = mutant->call[k];
        if (skipped[k])
            continue;
        if (c < 0) /* not run: the run stopped at an earlier failed call */
            continue;
        int usable = kb_mut_usable(origin, skipped, k, tf32);
        if (c != 0) { /* the call failed: the child is gone, no later entry ran */
            *entry = (int)k;
            *excess = INFINITY;
            return usable ? KB_MUT_WITNESSED : KB_MUT_UNDECIDED;
        }
        if (!usable)
            continue;
        double x = row_excess(mutant, k, tf32);
        if (!(x <= 1.0)) {
            *entry = (int)k;
            *excess = isnan(x) ? INFINITY : x;
            return KB_MUT_WITNESSED;
        }
        if (x > best) {
            best = x;
            best_k = (int)k;
        }
    }
    *entry = best_k;
    *excess = best_k >= 0 ? best : NAN;
    return KB_MUT_NOT_WITNESSED;
}

void kb_witness_plan(uint64_t per_entry, uint64_t per_sample, uint64_t budget, size_t npool, size_t wmax, size_t *chunk,
                     size_t *window)
{
    uint64_t all = per_entry * (uint64_t)npool, held;
    if (all + per_sample <= budget) {
        *chunk = npool;
        held = all;
    } else {
        *chunk = 1;
        held = per_entry;
    }
    uint64_t w = held < budget && per_sample ? (budget - held) / per_sample : (per_sample ? 1 : wmax);
    if (w < 1)
        w = 1;
    if (w > wmax)
        w = wmax;
    *window = (size_t)w;
}
