/* config.c -- see kb_config.h. The distribution tables are the protocols' specification;
 * docs/protocols.md explains each row. */
#include "kb_config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void kb_config_defaults(kb_config *c, kb_protocol_id p)
{
    memset(c, 0, sizeof *c);
    c->protocol = p;
    c->tau = 1e-3;
    c->tau_lowp = 1e-2;
    c->std_trials = 5;
    c->warmup = 3;
    c->trials = 100;
    c->noise = 0.005;
    c->min_samples = 20;
    c->max_samples = 2000;
    c->max_time_s = 10.0;
    c->clock_tol = 0.01;
    c->pace = 1.0;
    c->call_timeout_s = 20.0;
    c->compile_timeout_s = 300.0;
    c->seed = 42;
    c->timer = p == KB_PROTO_STRICT ? KB_TIMER_ROBUST : KB_TIMER_PAPER;
}

const char *kb_protocol_name(kb_protocol_id p) { return p == KB_PROTO_STRICT ? "strict" : "paper"; }
const char *kb_timer_name(kb_timer_kind t) { return t == KB_TIMER_ROBUST ? "robust" : "paper"; }

static int parse_double(const char *name, const char *v, double lo, double hi, double *out, kb_err *err)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !(d >= lo && d <= hi))
        return kb_errf(err, KB_EXIT_USAGE, "--%s %s: expected a number in [%g, %g]", name, v, lo, hi);
    *out = d;
    return 1;
}

static int parse_int(const char *name, const char *v, long lo, long hi, int *out, kb_err *err)
{
    char *end;
    errno = 0;
    long d = strtol(v, &end, 10);
    if (errno || end == v || *end || d < lo || d > hi)
        return kb_errf(err, KB_EXIT_USAGE, "--%s %s: expected an integer in [%ld, %ld]", name, v, lo, hi);
    *out = (int)d;
    return 1;
}

int kb_config_set(kb_config *c, const char *name, const char *v, kb_err *err)
{
    if (!strcmp(name, "protocol")) {
        if (!strcmp(v, "paper"))
            kb_config_defaults(c, KB_PROTO_PAPER);
        else if (!strcmp(v, "strict"))
            kb_config_defaults(c, KB_PROTO_STRICT);
        else
            return kb_errf(err, KB_EXIT_USAGE, "--protocol %s: expected paper or strict", v);
        return 1;
    }
    if (!strcmp(name, "timer")) {
        if (!strcmp(v, "paper"))
            c->timer = KB_TIMER_PAPER;
        else if (!strcmp(v, "robust"))
            c->timer = KB_TIMER_ROBUST;
        else
            return kb_errf(err, KB_EXIT_USAGE, "--timer %s: expected paper or robust", v);
        return 1;
    }
    if (!strcmp(name, "tau"))
        return parse_double(name, v, 0.0, 1e3, &c->tau, err);
    if (!strcmp(name, "tau-lowp"))
        return parse_double(name, v, 0.0, 1e3, &c->tau_lowp, err);
    if (!strcmp(name, "std-trials"))
        return parse_int(name, v, 1, 1000, &c->std_trials, err);
    if (!strcmp(name, "warmup"))
        return parse_int(name, v, 0, 100000, &c->warmup, err);
    if (!strcmp(name, "trials"))
        return parse_int(name, v, 1, 10000000, &c->trials, err);
    if (!strcmp(name, "noise"))
        return parse_double(name, v, 0.0, 1.0, &c->noise, err);
    if (!strcmp(name, "min-samples"))
        return parse_int(name, v, 1, 10000000, &c->min_samples, err);
    if (!strcmp(name, "max-samples"))
        return parse_int(name, v, 1, 10000000, &c->max_samples, err);
    if (!strcmp(name, "max-time"))
        return parse_double(name, v, 0.0, 1e6, &c->max_time_s, err);
    if (!strcmp(name, "clock-tol"))
        return parse_double(name, v, 0.0, 0.5, &c->clock_tol, err);
    if (!strcmp(name, "pace"))
        return parse_double(name, v, 0.0, 100.0, &c->pace, err);
    if (!strcmp(name, "call-timeout"))
        return parse_double(name, v, 0.001, 1e6, &c->call_timeout_s, err);
    if (!strcmp(name, "compile-timeout"))
        return parse_double(name, v, 1.0, 1e6, &c->compile_timeout_s, err);
    if (!strcmp(name, "seed")) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(v, &end, 0);
        /* strtoull accepts "-1" and wraps it to 2^64 - 1 */
        if (errno || end == v || *end || strchr(v, '-'))
            return kb_errf(err, KB_EXIT_USAGE, "--seed %s: expected an unsigned integer", v);
        c->seed = s;
        return 1;
    }
    return 0;
}

int kb_config_write(const kb_config *c, kb_h5w *w, const char *g)
{
    kb_h5w_group(w, g);
    kb_h5w_attr_str(w, g, "protocol", kb_protocol_name(c->protocol));
    kb_h5w_attr_f64(w, g, "tau", c->tau);
    kb_h5w_attr_f64(w, g, "tau_lowp", c->tau_lowp);
    kb_h5w_attr_i64(w, g, "std_trials", c->std_trials);
    kb_h5w_attr_str(w, g, "timer", kb_timer_name(c->timer));
    kb_h5w_attr_i64(w, g, "warmup", c->warmup);
    kb_h5w_attr_i64(w, g, "trials", c->trials);
    kb_h5w_attr_f64(w, g, "noise", c->noise);
    kb_h5w_attr_i64(w, g, "min_samples", c->min_samples);
    kb_h5w_attr_i64(w, g, "max_samples", c->max_samples);
    kb_h5w_attr_f64(w, g, "max_time_s", c->max_time_s);
    kb_h5w_attr_f64(w, g, "clock_tol", c->clock_tol);
    kb_h5w_attr_f64(w, g, "pace", c->pace);
    kb_h5w_attr_f64(w, g, "call_timeout_s", c->call_timeout_s);
    kb_h5w_attr_f64(w, g, "compile_timeout_s", c->compile_timeout_s);
    kb_h5w_attr_i64(w, g, "seed", (int64_t)c->seed);
    return kb_h5w_ok(w, NULL);
}

void kb_config_help(FILE *f)
{
    fprintf(f,
            "Protocol options (config.mk knobs; --protocol sets the others' defaults, wherever it stands):\n"
            "  --protocol paper|strict   paper = KernelBench-Verified exactly; strict = docs/protocols.md\n"
            "  --tau X                   allclose atol = rtol for fp32 outputs (default 1e-3)\n"
            "  --tau-lowp X              ... for fp16/bf16 outputs (default 1e-2)\n"
            "  --std-trials N            standard-check trials (default 5)\n"
            "  --timer paper|robust      paper: mean of events after warm-ups; robust: cold L2, adaptive\n"
            "  --warmup N --trials N     paper timer: warm-up and timed calls (default 3, 100)\n"
            "  --noise X --min-samples N --max-samples N --max-time S\n"
            "                            robust timer: stop when the median's 95%% CI half-width is\n"
            "                            <= X of the median (default 0.005), within the limits\n"
            "  --clock-tol X             robust timer: exclude a sample whose mean SM clock is more than\n"
            "                            X below the run's highest so far, idle until it recovers\n"
            "                            (default 0.01; 0 = off)\n"
            "  --pace X                  robust timer: idle X times each sample's cycle time after it\n"
            "                            (default 1: at most half the time busy; 0 = off)\n"            "  --call-timeout S          seconds one forward call may take (default 20)\n"
            "  --compile-timeout S       seconds nvcc may take (default 300)\n"
            "  --seed N                  base seed of every draw (default 42)\n");
}

uint64_t kb_seed(const kb_config *c, const char *problem_id, kb_purpose purpose, uint32_t index)
{
    uint64_t h = kb_fnv1a64(problem_id, strlen(problem_id), 0);
    return kb_mix64(h ^ kb_mix64(c->seed) ^ kb_mix64(((uint64_t)purpose << 32) | index));
}

/* ---- distributions ------------------------------------------------------------------------- */

#define KEEP {0, 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0}
#define SCALE(s) {0, (s), 0, {KB_GEN_RAND, 0, 0}, 0.0}
#define GEN(kind, a, b) {0, 1.0, 1, {(kind), (a), (b)}, 0.0}
#define GEN_SPARSE(kind, a, b, z) {0, 1.0, 1, {(kind), (a), (b)}, (z)}

/* The paper's hidden distributions: every floating-point INPUT scaled, parameters untouched. */
static const kb_dist paper_dists[] = {
    {"D1", "x 1.0 (fresh draw)", "baseline behaviour on new values", SCALE(1.0), 0, KEEP},
    {"D2", "x 3.0", "overflow in exp/tanh approximations, accumulated error", SCALE(3.0), 0, KEEP},
    {"D3", "x 0.01", "underflow, epsilon handling, small variances", SCALE(0.01), 0, KEEP},
    {"D4", "x -1.0", "sign-dependent paths (ReLU returning its input)", SCALE(-1.0), 0, KEEP},
};

/* The strict protocol: the paper's four, then draws that also perturb the parameters and cover
 * the value ranges the paper's never reach. Parameters are re-drawn U(-1,1): a ones weight or a
 * zeros bias becomes a random value, so a deleted multiply or add shows. */
static const kb_dist strict_dists[] = {
    {"D1", "x 1.0 (fresh draw)", "baseline behaviour on new values", SCALE(1.0), 0, KEEP},
    {"D2", "x 3.0", "overflow in exp/tanh approximations, accumulated error", SCALE(3.0), 0, KEEP},
    {"D3", "x 0.01", "underflow, epsilon handling, small variances", SCALE(0.01), 0, KEEP},
    {"D4", "x -1.0", "sign-dependent paths", SCALE(-1.0), 0, KEEP},
    {"P1", "inputs as generated, parameters U(-1,1)", "deleted multiplies by ones / adds of zeros, unused parameters",
     KEEP, 1, GEN(KB_GEN_UNIFORM, -1.0, 1.0)},
    {"S1", "inputs U(-1,1), parameters U(-1,1)", "mixed signs: cancellation, abs/sign bugs", GEN(KB_GEN_UNIFORM, -1.0, 1.0), 1,
     GEN(KB_GEN_UNIFORM, -1.0, 1.0)},
    {"S2", "inputs +-10^U(-3,3)", "wide dynamic range: precision downgrades, overflow, lost small terms",
     GEN(KB_GEN_LOGUNIFORM_SIGNED, -3.0, 3.0), 1, GEN(KB_GEN_UNIFORM, -1.0, 1.0)},
    {"S3", "inputs U(-1,1) x 1e-6", "tiny values: flush-to-zero, epsilon dominance", GEN(KB_GEN_UNIFORM, -1e-6, 1e-6), 0, KEEP},
    {"S4", "inputs U(-1,1) with 50% exact zeros", "sparse data: zero-skipping shortcuts, division by zero",
     GEN_SPARSE(KB_GEN_UNIFORM, -1.0, 1.0, 0.5), 1, GEN(KB_GEN_UNIFORM, -1.0, 1.0)},
    {"S5", "inputs U(-100,100)", "large magnitudes: unstable exp/softmax, overflow", GEN(KB_GEN_UNIFORM, -100.0, 100.0), 0, KEEP},
    {"S6", "inputs U(-1,0)", "all negative: the other half of every sign-dependent path", GEN(KB_GEN_UNIFORM, -1.0, 0.0), 1,
     GEN(KB_GEN_UNIFORM, -1.0, 1.0)},
};

const kb_dist *kb_protocol_dists(const kb_config *c, size_t *n)
{
    if (c->protocol == KB_PROTO_STRICT) {
        *n = sizeof strict_dists / sizeof strict_dists[0];
        return strict_dists;
    }
    *n = sizeof paper_dists / sizeof paper_dists[0];
    return paper_dists;
}
