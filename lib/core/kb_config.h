/*
 * kb_config.h -- the protocol and its knobs, as the stages receive them on the command line
 * (the Makefile passes config.mk's values), and as every artifact records them (group /config).
 *
 * Option syntax, shared by every stage: --name value or --name=value; names are the lower-case
 * config.mk variables with '-' for '_' (TAU -> --tau, CALL_TIMEOUT -> --call-timeout).
 */
#ifndef KB_CONFIG_H
#define KB_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "kb/problem.h"
#include "core/kb_h5.h"
#include "core/kb_rng.h"
#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The protocols and timers: ids in the order of their rows in kb_settings.def. */
#define KB_SETTING(...)
#define KB_TIMER(...)
#define KB_PROTOCOL(name, ID, ...) KB_PROTO_##ID,
typedef enum kb_protocol_id {
#include "core/kb_settings.def"
    KB_N_PROTOCOLS
} kb_protocol_id;
#undef KB_PROTOCOL
#undef KB_TIMER
#define KB_TIMER(name, ID, ...) KB_TIMER_##ID,
#define KB_PROTOCOL(...)
typedef enum kb_timer_kind {
#include "core/kb_settings.def"
    KB_N_TIMERS
} kb_timer_kind;
#undef KB_SETTING
#undef KB_TIMER
#undef KB_PROTOCOL

/* The statistic a timer reports. */
typedef enum kb_statistic {
    KB_STAT_MEAN = 0,                 /* mean of the event times */
    KB_STAT_MEDIAN_MINUS_OVERHEAD = 1 /* their median minus the calibrated overhead */
} kb_statistic;

/* A timer as data: one KB_TIMER row of kb_settings.def. */
typedef struct kb_timer_spec {
    const char *name;
    kb_timer_kind id;
    int flush_l2, blocking, adaptive;
    kb_statistic statistic;
    int paced;
} kb_timer_spec;

/* The checks a protocol adds to each comparison (values equal gpu/kb_gpustage.h's KB_CHECK_*). */
enum { KB_PCHECK_POISON = 1u << 0, KB_PCHECK_INPUT_HASH = 1u << 1, KB_PCHECK_MAGNITUDE = 1u << 2 };

struct kb_dist;
/* A protocol as data: one KB_PROTOCOL row of kb_settings.def. Stages read these fields, never
 * the protocol's name. */
typedef struct kb_protocol {
    const char *name;
    kb_protocol_id id;
    kb_timer_kind timer;           /* the default TIMER */
    int regen_inputs;              /* the timer re-draws the inputs before every sample */
    const struct kb_dist *dists;   /* the hidden distributions */
    size_t n_dists;
    int check_math_exact;          /* checks against an exactly computed reference (else fp32) */
    int scaled_bound;              /* pass = the error-model bound, not allclose at TAU */
    unsigned check_flags;          /* KB_PCHECK_* */
    int probes;                    /* the anti-hack probes (kb_settings.def says which) */
    int reject_no_kernel;          /* a .py that calls no custom kernel is rejected */
    const char *doc;
} kb_protocol;

typedef struct kb_config {
    kb_protocol_id protocol;
    double tau;       /* allclose atol = rtol for fp32 outputs */
    double tau_lowp;  /* ... for fp16 / bf16 outputs */
    int std_trials;   /* standard-check trials */
    kb_timer_kind timer;
    int warmup;       /* untimed calls before timing */
    int trials;       /* paper timer: timed calls */
    double noise;     /* robust timer: stop when the median's 95% CI half-width / median <= noise */
    int min_samples;  /* robust timer: at least this many samples */
    int max_samples;  /* robust timer: at most this many */
    double max_time_s; /* robust timer: stop after this much timing time */
    double clock_tol;  /* robust timer: a sample whose mean SM clock is more than this fraction
                          below the run's highest so far is excluded and the GPU left to recover (0 = off) */
    double pace;       /* robust timer: idle this many times a sample's cycle time after it */
    double call_timeout_s;    /* one forward call */
    double compile_timeout_s; /* nvcc */
    uint64_t seed;    /* base seed of every draw */
} kb_config;

/* The rows: kb_protocols[KB_PROTO_x], kb_timers[KB_TIMER_x]; lookup by name (NULL if none). */
extern const kb_protocol kb_protocols[KB_N_PROTOCOLS];
extern const kb_timer_spec kb_timers[KB_N_TIMERS];
const kb_protocol *kb_protocol_find(const char *name);
const kb_timer_spec *kb_timer_find(const char *name);
/* 1 if the named protocol's checks pass by allclose at TAU (its row has no scaled_bound), or the
 * name is no protocol's (an artifact's name is read as the paper's check then). */
int kb_protocol_tau_based(const char *name);
/* The config's protocol and timer rows. */
const kb_protocol *kb_config_protocol(const kb_config *cfg);
const kb_timer_spec *kb_config_timer(const kb_config *cfg);

/* ---- the settings table (kb_settings.def) ------------------------------------------------- */
typedef enum kb_setting_type { KB_SET_F64, KB_SET_INT, KB_SET_U64, KB_SET_PROTO, KB_SET_TIMER } kb_setting_type;
typedef struct kb_setting {
    const char *knob;    /* config.mk name: "CALL_TIMEOUT" */
    const char *attr;    /* kb_config member and /config attribute: "call_timeout_s" */
    kb_setting_type type;
    double lo, hi;       /* accepted range (F64, INT) */
    const char *def;     /* default ("" = the protocol's) */
    const char *check;   /* the Makefile's check class */
    const char *when;    /* "" or "robust" (stamp condition) */
    const char *stages;  /* space-separated readers */
    const char *help;
    size_t offset;       /* of the member in kb_config */
} kb_setting;
extern const kb_setting kb_settings[];
extern const size_t kb_n_settings;
/* The option name of a setting ("call-timeout"), into buf. */
const char *kb_setting_option(const kb_setting *s, char *buf, size_t len);
/* Does `stage` read setting s? (a NULL or unknown stage: every setting) */
int kb_setting_read_by(const kb_setting *s, const char *stage);

/* Defaults of a protocol (PROTOCOL=paper unless told otherwise). */
void kb_config_defaults(kb_config *cfg, kb_protocol_id p);

/* Applies one option (name without the leading "--"). Returns 1 if it was a config option,
 * 0 if the name is not one, -1 with err for a bad value. "protocol" resets the defaults of the
 * other knobs (kb_stage_parse applies it before the others, wherever it stands). */
int kb_config_set(kb_config *cfg, const char *name, const char *value, kb_err *err);

const char *kb_protocol_name(kb_protocol_id p);
const char *kb_timer_name(kb_timer_kind t);

/* Writes every knob as an attribute of group `group` ("/config"). */
int kb_config_write(const kb_config *cfg, kb_h5w *w, const char *group);

/* The protocol options `stage` reads (every one when stage is NULL or reads none), for --help. */
void kb_config_help(FILE *f, const char *stage);
/* --print-settings: every setting, one per line: KNOB<TAB>type<TAB>lo<TAB>hi<TAB>default<TAB>check
 * <TAB>when<TAB>stages (tests/cpu/settings.sh compares it with tools/settings.awk's view). */
void kb_config_print_settings(FILE *f);

/* ---- seeds --------------------------------------------------------------------------------- */
typedef enum kb_purpose {
    KB_SEED_PARAMS = 1,    /* module parameters: once per problem */
    KB_SEED_STD_TRIAL = 2, /* standard-check trial i */
    KB_SEED_DIST = 3,      /* hidden distribution i */
    KB_SEED_TIMING = 4,    /* the inputs the timer uses */
    KB_SEED_PROBE = 5,     /* anti-hack probes */
    KB_SEED_WITNESS = 6    /* kb-witness: the mutation report's input pool */
} kb_purpose;

uint64_t kb_seed(const kb_config *cfg, const char *problem_id, kb_purpose purpose, uint32_t index);

/* ---- distributions ------------------------------------------------------------------------ */
/* A hidden input distribution: how the inputs (and, in the strict protocol, the parameters) of
 * one verification draw are made. */
struct kb_dist {
    const char *name;  /* "D1" ... */
    const char *what;  /* "x 1.0 (fresh draw)" */
    const char *why;   /* what it catches */
    kb_draw inputs;    /* seed is filled per draw; scale / override / sparsity as defined */
    int perturb_params; /* re-draw parameters with `params` instead of the problem's init */
    kb_draw params;
    uint32_t needs;    /* problem flags (KB_PROB_*) it applies to, any of them; 0: every problem */
};
typedef struct kb_dist kb_dist;

/* Distribution d applies to a problem with these flags (kb_problem.flags). */
int kb_dist_applies(const kb_dist *d, uint32_t problem_flags);

/* The distributions of the config's protocol. */
const kb_dist *kb_protocol_dists(const kb_config *cfg, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* KB_CONFIG_H */
