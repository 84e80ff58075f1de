/*
 * kb_mutreport.h -- the judgements of the mutation report (docs/mutation.md): which
 * mutants the witness pool proves faulty, and which protocol kills them. Pure functions over the
 * arrays of a witness artifact (kb-witness: per sample and pool entry, the call's outcome and the
 * excess over the strict and the TF32 bounds against the fp64 reference); kb-mutation-report does
 * the reading and writing.
 *
 * Rules (docs/mutation.md "Witnessed"):
 *   - an origin is judged by the fp32 bound if it stays within it on every pool entry it ran,
 *     else by the TF32 bound (a TF32 GEMM); an origin that fails both, or whose call fails, on an
 *     entry makes that entry useless for its mutants;
 *   - a mutant is witnessed on the first usable entry where its call fails (crash, CUDA error,
 *     timeout, ...) or its excess over the origin's bound is above 1 (NaN counts as above);
 *   - it is not witnessed when it stays within the bound on every usable entry ("equivalent" as far
 *     as the pool can tell), and undecided when its run stopped (a failed call) on an entry its
 *     origin could not use, before any usable one.
 */
#ifndef KB_MUTREPORT_H
#define KB_MUTREPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One sample's row of a witness artifact: K pool entries. call: kb_outcome of the entry's call
 * (0 = ok), -1 not run; excess / excess_tf32: over each bound (NaN where not run). */
typedef struct kb_mut_row {
    const int64_t *call;
    const double *excess, *excess_tf32;
} kb_mut_row;

/* 1 if the origin needs the TF32 bound (outside the fp32 one on some entry it ran), else 0. */
int kb_mut_origin_tf32(const kb_mut_row *origin, const int64_t *skipped, size_t K);

/* Entry k is usable for the origin's mutants: not skipped, the origin's call ok and within its bound. */
int kb_mut_usable(const kb_mut_row *origin, const int64_t *skipped, size_t k, int tf32);

enum { KB_MUT_NOT_WITNESSED = 0, KB_MUT_WITNESSED = 1, KB_MUT_UNDECIDED = 2 };

/* The mutant's verdict; *entry: the witnessing entry (or, undecided, the one its run stopped at;
 * else the entry of its largest excess, -1 if none), *excess: the excess there (INFINITY for a
 * failed call). */
int kb_mut_witness(const kb_mut_row *origin, const kb_mut_row *mutant, const int64_t *skipped, size_t K, int tf32,
                   int *entry, double *excess);

/* kb-witness's memory plan over a pool of npool entries, within budget bytes of device memory:
 * per_entry, one entry's reference and magnitude buffers; per_sample, one live sample's tensors.
 * If every entry's references fit beside one sample, *chunk = npool (the references are computed
 * once) and *window = as many samples as fit beside them; else *chunk = 1 and *window = as many
 * samples as fit beside one entry's references (each window of live samples then recomputes the
 * references entry by entry: a window of W costs 1/W of the references per sample, where chunks
 * of a few entries would start every sample once per chunk). *window is in [1, wmax]. */
void kb_witness_plan(uint64_t per_entry, uint64_t per_sample, uint64_t budget, size_t npool, size_t wmax, size_t *chunk,
                     size_t *window);

#ifdef __cplusplus
}
#endif

#endif /* KB_MUTREPORT_H */
