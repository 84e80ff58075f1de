/*
 * kb_metrics.h -- the paper's metrics (KernelBench-Verified, reference/kernelbench-verified.md),
 * as pure functions over in-memory records: no I/O, so that tests can pin every definition.
 * lib/report/kb_tables.h fills the records from the HDF5 artifacts; docs/metrics.md states the same
 * definitions for readers of the tables.
 *
 * Records. One kb_sample_rec per (model, problem, sample), one kb_problem_rec per problem of the
 * --problems list (the denominator), gathered in a kb_data (models x problems cells). Units: times
 * in milliseconds, memory in bytes (doubles, so that "not measured" is NaN), shares in [0, 1].
 * Tri-state flags are 1 (yes), 0 (no, known) and -1 (unknown: the artifact is missing).
 *
 * Definitions (per model; per level and pooled over levels, "level 0" = all):
 *   standard-correct   sanity-check.h5 @correct == 1 (5 trials, allclose at the protocol's tau)
 *   verified           standard-correct AND verify-distributions.h5 @verified == 1
 *   gate               a condition's correctness test: standard or verified, either as recorded
 *                      (tau = NaN) or re-evaluated at another tolerance tau from the archived
 *                      tau_req (see kb_gate)
 *   condition          baseline (FP32 = PyTorch defaults, TF32 = matmul TF32 on) x gate
 *                      (standard, verified). The paper's headline is TF32 x verified.
 *   best-of-N          per (model, problem, gate): among the samples that pass the gate, the one
 *                      with the smallest finite kernel time; ties go to the earlier sample (the
 *                      order of the records: sample names sorted). A passing sample without a
 *                      time is chosen only if no passing sample has one; it is correct, but its
 *                      speedup is NaN. The best sample does not depend on the baseline (one kernel
 *                      time, two baseline times).
 *   speedup            baseline time of the condition / kernel time (NaN unless both are finite
 *                      and positive)
 *   Correctness        problems with >= 1 sample passing the gate / ALL problems
 *   Correct Speedup    geometric mean of the best samples' speedups over the correctly solved
 *                      problems only (those with a finite speedup); NaN if there are none.
 *                      Failures are left out, so a stricter gate can raise it.
 *   Fast@p             problems whose best sample has speedup > p (strictly) / ALL problems;
 *                      failures and NaN speedups count as not fast. p in {0, .5, .8, 1, 1.5, 2}.
 *   Mem Eff            geometric mean over the correctly solved problems of baseline peak /
 *                      kernel peak (the best sample's peak, the condition's baseline mode),
 *                      over those where both peaks were measured
 *   Mem Eff %          problems whose best sample's peak is STRICTLY lower than the baseline's
 *                      / ALL problems
 *   mem increase       correctly solved problems (both peaks measured) whose best sample's peak
 *                      is strictly HIGHER than the baseline's / those problems ("28% of
 *                      GPT-5.5's correct kernels increase peak memory")
 *   ALL problems       the problems of the list at that level, less those flagged excluded
 *                      (baseline-time.h5 @problem_flags & 2: the paper's L2/23, 80, 83)
 *   reach              per problem, union over models: "changed by TF32" if some model's best
 *                      sample is fast@1 under FP32 x standard and not under TF32 x standard;
 *                      "changed by the hidden check" if some model's best sample is fast@1 under
 *                      FP32 x standard and not under FP32 x verified (its verified best is slower,
 *                      or there is none). Categories: both, tf32-only, hidden-only, neither.
 *
 * Ownership: kb_data owns every record (kb_data_free); functions here never keep pointers.
 */
#ifndef KB_METRICS_H
#define KB_METRICS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- records ------------------------------------------------------------------------------- */
#define KB_REC_MAX_DISTS 16

typedef struct kb_dist_rec {
    char name[16];  /* "D1" ... */
    int ran;        /* the draw was run (0: an earlier draw's call failed) */
    int skipped;    /* the reference was NaN/inf on the draw */
    int pass;       /* passed (as recorded) */
    double tau_req; /* max over outputs of tau_req; +inf if the call failed; NaN if unknown */
} kb_dist_rec;

typedef struct kb_sample_rec {
    char name[32];            /* "s0" */
    /* compile.h5 */
    int compiled;             /* @outcome == ok (1), known failure (0), missing (-1) */
    int calls_library;        /* /symbols @calls_library (1/0; -1 unknown) */
    char flags[256];          /* /symbols @reasons: comma-separated flag/reject categories */
    char scan_verdict[16];    /* /symbols @verdict */
    char kind[16];            /* compile.h5 @submission_kind: "py" for a KernelBench-format file, else "cu" */
    char libraries[64];       /* /symbols @libraries: vendor libraries its object(s) import ("cublas") */
    char torch_libs[64];      /* a .py: library calls through PyTorch ops in its first call
                                 ("cublas=1 cudnn=0", from sanity-check /trials/calls/note) */
    char compile_outcome[32]; /* @outcome; "" if missing */
    /* sanity-check.h5 */
    int std_correct;          /* @correct == 1 (1), 0, -1 missing */
    char std_outcome[32];
    char protocol[16];        /* root @protocol */
    char gpu_uuid[64];        /* sanity-check.h5 @gpu_uuid: the board its time comes from ("" unknown) */
    char timer[16];           /* sanity-check.h5 /config @timer: the timer of kernel_ms ("" unknown) */
    double tau;               /* /config @tau (the tolerance the recorded verdicts used) */
    int trials_run, trials_passed;
    double kernel_ms;         /* /timing/kernel @reported_ms when @timed; NaN otherwise */
    double kernel_ci_lo_ms, kernel_ci_hi_ms; /* the robust timer's 95% CI of the median; NaN otherwise */
    double std_tau_req;       /* max over ran, non-skipped trials and outputs of tau_req; +inf if a
                               * trial's call failed; NaN if unknown */
    int std_complete;         /* every trial of /config @std_trials ran (the stage stops at the
                               * first wrong trial: a looser tau is then undetermined) */
    /* verify-distributions.h5 */
    int hidden_pass;          /* @verified == 1 (1), 0, -1 missing */
    int hidden_pass_tf32;     /* @verified_tf32 (the TF32 condition's verdict); @verified where absent */
    char ver_outcome[32];
    char reason[256];         /* @reason */
    size_t n_dists;
    kb_dist_rec dists[KB_REC_MAX_DISTS];
    double hid_tau_req;       /* max over non-skipped draws of dists[].tau_req; NaN when the check
                               * is not tau-based (strict protocol) or unknown */
    /* memory-profile.h5 */
    double peak_bytes;        /* /memory @peak_bytes when its @outcome is ok; NaN otherwise */
    char mem_outcome[32];
} kb_sample_rec;

/* Baseline math modes (PyTorch's matmul TF32 switch off / on; cuDNN TF32 is on in both). */
typedef enum kb_base { KB_BASE_FP32 = 0, KB_BASE_TF32 = 1 } kb_base;
#define KB_N_BASE 2

typedef struct kb_problem_rec {
    char id[128];     /* "level1/019_relu" */
    int level;        /* 1..3 from the id; 0 if it names none */
    char title[128];  /* baseline-time.h5 @title */
    double flops;     /* minimal FLOPs of one call (NaN unknown) */
    double bytes;     /* minimal device bytes of one call (NaN unknown) */
    int excluded;     /* @problem_flags & 2: left out of every denominator */
    double base_ms[KB_N_BASE];   /* /fp32|/tf32 /timing @reported_ms (BASELINE=torch: fidelity.h5
                                    /fp32|/tf32 /<timer> @torch_ms); NaN if missing */
    double base_peak[KB_N_BASE]; /* baseline memory-profile.h5 /fp32|/tf32 @peak_bytes; NaN if missing */
    char gpu_uuid[64];           /* baseline-time.h5 @gpu_uuid (fidelity.h5's for eager's times): the board it
                                    was timed on ("" unknown) */
    char timer[16];              /* that artifact's /config @timer: the timer of base_ms ("" unknown) */
} kb_problem_rec;

typedef struct kb_cell_rec {
    kb_sample_rec *samples; /* sorted by name */
    size_t n;               /* 0: no submission */
} kb_cell_rec;

typedef struct kb_data {
    size_t n_models, n_problems;
    char **models;           /* directory names */
    kb_problem_rec *problems;
    kb_cell_rec *cells;      /* [m * n_problems + p] */
} kb_data;

/* Allocates models x problems empty cells; names are copied. -1 on out of memory. */
int kb_data_init(kb_data *d, const char *const *models, size_t n_models, const char *const *problems, size_t n_problems);
void kb_data_free(kb_data *d);
kb_cell_rec *kb_data_cell(const kb_data *d, size_t model, size_t problem);
/* Appends a sample (copied) to a cell, keeping the cell sorted by sample name. */
int kb_cell_add(kb_cell_rec *c, const kb_sample_rec *s);
/* A sample record with every field "unknown" (NaN, -1, ""). */
void kb_sample_init(kb_sample_rec *s, const char *name);
/* The level of an id "levelN/...": N, or 0. */
int kb_problem_level(const char *id);

/* ---- conditions ---------------------------------------------------------------------------- */
typedef enum kb_gate_kind { KB_GATE_STANDARD = 0, KB_GATE_VERIFIED = 1 } kb_gate_kind;

/* tau = NaN: as recorded (@correct, @verified). tau finite: re-evaluated from the archive:
 * standard at tau iff every trial ran, every call succeeded and every output's tau_req <= tau;
 * verified at tau iff standard at tau and every non-skipped draw's call succeeded with every
 * output's tau_req <= tau (paper protocol only: the strict check is not tau-based). */
typedef struct kb_gate {
    kb_gate_kind kind;
    double tau;
    int tf32; /* the TF32 condition's verified check: the TF32 verdict (hidden_pass_tf32) */
} kb_gate;

typedef enum kb_cond { KB_COND_FP32_STD = 0, KB_COND_FP32_VER, KB_COND_TF32_STD, KB_COND_TF32_VER } kb_cond;
#define KB_N_COND 4
/* The headline condition of the verified protocol. */
#define KB_COND_HEADLINE KB_COND_TF32_VER

const char *kb_cond_name(kb_cond c);  /* "fp32-standard", ... */
const char *kb_cond_label(kb_cond c); /* "FP32 x standard", ... */
kb_base kb_cond_base(kb_cond c);
kb_gate kb_cond_gate(kb_cond c);      /* as recorded */
const char *kb_base_name(kb_base b);  /* "fp32", "tf32" */

/* Does the sample pass the gate? 1 yes, 0 no. */
int kb_sample_passes(const kb_sample_rec *s, kb_gate g);
/* At a re-evaluation tau: 1 if the answer is unknown because the standard check stopped at a
 * wrong trial that tau would accept (counted as a failure). */
int kb_sample_undetermined(const kb_sample_rec *s, kb_gate g);

/* ---- best-of-N ----------------------------------------------------------------------------- */
typedef struct kb_best {
    int idx;            /* the sample in the cell; -1 if none passes the gate */
    double kernel_ms;   /* NaN if none */
    double base_ms;     /* the condition's baseline */
    double speedup;     /* base_ms / kernel_ms, NaN unless both finite and > 0 */
    double kernel_peak; /* NaN if none or not measured */
    double base_peak;
    double mem_ratio;   /* base_peak / kernel_peak, NaN unless both finite and > 0 */
} kb_best;

int kb_best_sample(const kb_sample_rec *s, size_t n, kb_gate g);
void kb_best_of(const kb_cell_rec *c, const kb_problem_rec *p, kb_gate g, kb_base b, kb_best *out);
/* speedup rule: a / b if both finite and > 0, NaN otherwise. */
double kb_ratio(double num, double den);

/* ---- per (model, level, condition) --------------------------------------------------------- */
#define KB_N_FASTP 6
extern const double kb_fastp_p[KB_N_FASTP]; /* 0, 0.5, 0.8, 1, 1.5, 2 */

typedef struct kb_metrics {
    size_t n_problems;     /* the denominator: active problems at the level */
    size_t n_correct;      /* problems with >= 1 sample passing the gate */
    size_t n_speedup;      /* ... of which with a finite speedup (the geomean's n) */
    size_t n_mem;          /* correct problems with both peaks measured (Mem Eff's n) */
    size_t n_mem_lower;    /* correct problems whose kernel peak < baseline peak */
    size_t n_mem_higher;   /* correct problems whose kernel peak > baseline peak */
    size_t n_fast[KB_N_FASTP];
    size_t n_undetermined; /* samples undetermined at a re-evaluation tau */
    double correctness;    /* n_correct / n_problems (NaN if no problems) */
    double speedup;        /* Correct Speedup: geomean over correct problems (NaN if none) */
    double fast[KB_N_FASTP]; /* Fast@p: n_fast / n_problems */
    double mem_eff;        /* geomean of base_peak / kernel_peak over correct problems */
    double mem_eff_pct;    /* n_mem_lower / n_problems */
    double mem_increase;   /* n_mem_higher / n_mem (NaN if n_mem == 0) */
} kb_metrics;

/* level 0: pooled over every level. */
void kb_metrics_compute(const kb_data *d, size_t model, int level, kb_gate g, kb_base b, kb_metrics *out);
/* Fast@p for any p (the curves of plots/fastp.gp). */
double kb_fast_p(const kb_data *d, size_t model, int level, kb_gate g, kb_base b, double p);
/* Is problem p active at `level` (0 = any)? */
int kb_problem_counts(const kb_problem_rec *p, int level);

/* ---- samples: compile rate, library calls, verdicts ---------------------------------------- */
typedef struct kb_sample_counts {
    size_t samples;          /* samples of active problems at the level */
    size_t compiled;         /* compiled == 1 */
    size_t compile_missing;  /* compiled == -1 */
    size_t library;          /* calls_library == 1 */
    size_t flagged;          /* a non-empty flags list */
    size_t std_accepted, std_rejected, std_not_run;
    size_t ver_accepted, ver_rejected, ver_not_run;
    double compile_rate;     /* compiled / samples (NaN if no samples) */
} kb_sample_counts;

void kb_sample_counts_compute(const kb_data *d, size_t model, int level, kb_sample_counts *out);

/* ---- tallies (string -> count) ------------------------------------------------------------- */
typedef struct kb_tally {
    char **keys;
    size_t *counts;
    size_t n, cap;
} kb_tally;

int kb_tally_add(kb_tally *t, const char *key, size_t k);
size_t kb_tally_get(const kb_tally *t, const char *key);
void kb_tally_sort(kb_tally *t); /* by count, descending, then key */
void kb_tally_free(kb_tally *t);

/* Flag categories: samples (of active problems at the level) whose /symbols @reasons names each
 * category. */
int kb_flag_tally(const kb_data *d, size_t model, int level, kb_tally *t);
/* Verdicts of one sample under a check (the verdict report):
 *   standard: accepted (@correct 1), rejected (reason: the sanity-check outcome, e.g.
 *             wrong_answer, compile_error), not run (sanity-check.h5 missing);
 *   verified: a sample the standard check did not accept keeps that verdict, its reason
 *             prefixed "standard: "; otherwise accepted (@verified 1), rejected (reason: verify
 *             @reason, e.g. "fails D4", or its outcome when the reason is empty), or not run
 *             (verify-distributions.h5 missing). */
typedef enum kb_verdict { KB_VERDICT_ACCEPTED = 0, KB_VERDICT_REJECTED, KB_VERDICT_NOT_RUN } kb_verdict;
#define KB_N_VERDICT 3
const char *kb_verdict_name(kb_verdict v); /* "accepted", "rejected", "not_run" */
kb_verdict kb_sample_verdict(const kb_sample_rec *s, kb_gate_kind kind, char *reason, size_t len);
/* Reasons of the samples (of active problems at the level) with verdict v under the check. */
int kb_verdict_tally(const kb_data *d, size_t model, int level, kb_gate_kind kind, kb_verdict v, kb_tally *t);

/* ---- hidden distributions ------------------------------------------------------------------ */
typedef struct kb_dist_counts {
    char name[16];
    size_t samples;   /* samples with a record of this draw */
    size_t ran, skipped, passed, failed, not_run; /* failed = ran, not skipped, not passed */
} kb_dist_counts;

/* Per distribution name (in first-seen order), over all samples of active problems
 * (best_only = 0) or over the best sample per problem under the standard gate, i.e. the sample
 * the standard protocol would report (best_only = 1). Returns the number of names (<= cap). */
size_t kb_dist_tally(const kb_data *d, size_t model, int best_only, kb_dist_counts *out, size_t cap);

/* ---- reach --------------------------------------------------------------------------------- */
typedef enum kb_reach_cat { KB_REACH_NEITHER = 0, KB_REACH_TF32_ONLY, KB_REACH_HIDDEN_ONLY, KB_REACH_BOTH } kb_reach_cat;
const char *kb_reach_name(kb_reach_cat c); /* "neither", "tf32-only", "hidden-only", "both" */

/* For problem p: which models' fast@1 the TF32 baseline removes (tf32_models[m] = 1) and which
 * the hidden check removes (hidden_models[m] = 1); either array may be NULL. */
kb_reach_cat kb_reach(const kb_data *d, size_t p, int *tf32_models, int *hidden_models);

#ifdef __cplusplus
}
#endif

#endif /* KB_METRICS_H */
