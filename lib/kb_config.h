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
#include "kb_h5.h"
#include "kb_rng.h"
#include "kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kb_protocol_id { KB_PROTO_PAPER = 0, KB_PROTO_STRICT = 1 } kb_protocol_id;

typedef enum kb_timer_kind {
    KB_TIMER_PAPER = 0, /* mean of event-timed trials after warm-ups, no L2 flush */
    KB_TIMER_ROBUST = 1 /* cold L2, adaptive count until the median's CI is tight enough */
} kb_timer_kind;

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

/* The common options, for --help texts. */
void kb_config_help(FILE *f);

/* ---- seeds --------------------------------------------------------------------------------- */
typedef enum kb_purpose {
    KB_SEED_PARAMS = 1,    /* module parameters: once per problem */
    KB_SEED_STD_TRIAL = 2, /* standard-check trial i */
    KB_SEED_DIST = 3,      /* hidden distribution i */
    KB_SEED_TIMING = 4,    /* the inputs the timer uses */
    KB_SEED_PROBE = 5      /* anti-hack probes */
} kb_purpose;

uint64_t kb_seed(const kb_config *cfg, const char *problem_id, kb_purpose purpose, uint32_t index);

/* ---- distributions ------------------------------------------------------------------------ */
/* A hidden input distribution: how the inputs (and, in the strict protocol, the parameters) of
 * one verification draw are made. */
typedef struct kb_dist {
    const char *name;  /* "D1" ... */
    const char *what;  /* "x 1.0 (fresh draw)" */
    const char *why;   /* what it catches */
    kb_draw inputs;    /* seed is filled per draw; scale / override / sparsity as defined */
    int perturb_params; /* re-draw parameters with `params` instead of the problem's init */
    kb_draw params;
} kb_dist;

/* The distributions of the config's protocol. */
const kb_dist *kb_protocol_dists(const kb_config *cfg, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* KB_CONFIG_H */
