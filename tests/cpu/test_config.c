/*
 * test_config.c -- lib/core/kb_config.h and the option parser of lib/core/kb_stage.h.
 *
 * Pinned:
 *   - Defaults per protocol: the paper's values literally (tau 1e-3, tau_lowp 1e-2, 5 standard
 *     trials, 3 warm-ups, paper timer for paper / robust for strict), and every other default
 *     equal to config.mk's (the Makefile passes config.mk, a stage run by hand gets the C
 *     default: they must not drift apart).
 *   - Every option parsed (both --name value and --name=value through kb_stage_parse), bad
 *     values rejected with a message naming the option and the value, exit code 2.
 *   - --protocol resets the other knobs.
 *   - Seeds: FNV-1a and splitmix64 known answers, kb_seed reproduced from its definition,
 *     pinned literal values, and distinct across purpose / index / problem / base seed.
 *   - Distributions: the paper's four are exactly x1, x3, x0.01, x-1 of the inputs with the
 *     parameters untouched; strict has the same four first, then P1 and S1-S6 with the input
 *     generator, sparsity and parameter perturbation of the table below.
 *   - kb_config_write records every knob in /config.
 */
#include "kbt.h"

#include <math.h>

#include "kb/problem.h"
#include "core/kb_config.h"
#include "core/kb_stage.h"

/* Field-wise equality (struct copies need not copy padding, so no memcmp). */
static int cfg_equal(const kb_config *a, const kb_config *b)
{
    return a->protocol == b->protocol && a->tau == b->tau && a->tau_lowp == b->tau_lowp &&
           a->std_trials == b->std_trials && a->timer == b->timer && a->warmup == b->warmup &&
           a->trials == b->trials && a->noise == b->noise && a->min_samples == b->min_samples &&
           a->max_samples == b->max_samples && a->max_time_s == b->max_time_s && a->clock_tol == b->clock_tol &&
           a->pace == b->pace &&
           a->call_timeout_s == b->call_timeout_s && a->compile_timeout_s == b->compile_timeout_s &&
           a->seed == b->seed;
}

/* ---- defaults ---------------------------------------------------------------------------------- */

/* The value of "NAME ?= value" in config.mk, or NULL. */
static int config_mk_value(const char *text, const char *name, char *out, size_t len)
{
    size_t n = strlen(name);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, name, n) != 0)
            continue;
        const char *p = line + n;
        while (*p == ' ')
            p++;
        if (strncmp(p, "?=", 2) != 0)
            continue;
        p += 2;
        while (*p == ' ')
            p++;
        size_t k = strcspn(p, "\n#");
        while (k > 0 && p[k - 1] == ' ')
            k--;
        snprintf(out, len, "%.*s", (int)k, p);
        return 0;
    }
    return -1;
}

static void test_defaults(void **state)
{
    (void)state;
    kb_config p, s;
    kb_config_defaults(&p, KB_PROTO_PAPER);
    kb_config_defaults(&s, KB_PROTO_STRICT);
    /* the paper's protocol, literally */
    KBT_CHECK(p.protocol == KB_PROTO_PAPER && s.protocol == KB_PROTO_STRICT, "protocol ids");
    KBT_CHECK(p.tau == 1e-3 && p.tau_lowp == 1e-2, "paper tau %g / %g, want 1e-3 / 1e-2", p.tau, p.tau_lowp);
    KBT_CHECK(p.std_trials == 5 && p.warmup == 3, "paper: %d standard trials, %d warm-ups; want 5, 3", p.std_trials,
              p.warmup);
    KBT_CHECK(p.timer == KB_TIMER_PAPER && s.timer == KB_TIMER_ROBUST, "timers: paper %d strict %d", (int)p.timer,
              (int)s.timer);
    KBT_CHECK(!strcmp(kb_protocol_name(KB_PROTO_PAPER), "paper") && !strcmp(kb_protocol_name(KB_PROTO_STRICT), "strict"),
              "protocol names");
    KBT_CHECK(!strcmp(kb_timer_name(KB_TIMER_PAPER), "paper") && !strcmp(kb_timer_name(KB_TIMER_ROBUST), "robust"),
              "timer names");
    /* the strict protocol differs only in the timer */
    kb_config s2 = s;
    s2.protocol = KB_PROTO_PAPER;
    s2.timer = KB_TIMER_PAPER;
    KBT_CHECK(cfg_equal(&s2, &p), "strict defaults differ from paper's in more than protocol and timer");

    /* every other default is config.mk's */
    char *mk = kb_read_file("config.mk", NULL, NULL);
    if (!mk) {
        print_message("config.mk not in the working directory: run from the repository root (make test-unit does)\n");
        skip();
    }
    const struct {
        const char *var;
        double value;
    } knobs[] = {
        {"TAU", p.tau},
        {"TAU_LOWP", p.tau_lowp},
        {"STD_TRIALS", p.std_trials},
        {"WARMUP", p.warmup},
        {"TRIALS", p.trials},
        {"NOISE", p.noise},
        {"MIN_SAMPLES", p.min_samples},
        {"MAX_SAMPLES", p.max_samples},
        {"MAX_TIME", p.max_time_s},
        {"CLOCK_TOL", p.clock_tol},
        {"PACE", p.pace},
        {"CALL_TIMEOUT", p.call_timeout_s},
        {"COMPILE_TIMEOUT", p.compile_timeout_s},
        {"SEED", (double)p.seed},
    };
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        char v[128];
        KBT_CHECK(config_mk_value(mk, knobs[i].var, v, sizeof v) == 0, "config.mk has no \"%s ?=\"", knobs[i].var);
        char *end;
        double d = strtod(v, &end);
        KBT_CHECK(end != v && *end == '\0', "config.mk %s = \"%s\" is not a number", knobs[i].var, v);
        KBT_CHECK(d == knobs[i].value, "default %s: config.mk says %s, kb_config_defaults says %g", knobs[i].var, v,
                  knobs[i].value);
    }
    char t[128];
    /* TIMER's default is the protocol row's timer (the Makefile's KB_PTIMER_<protocol>, from
     * tools/settings.awk; tests/cpu/settings.sh checks what Make makes of it per protocol) */
    KBT_CHECK(config_mk_value(mk, "TIMER", t, sizeof t) == 0 && !strcmp(t, "$(KB_PTIMER_$(PROTOCOL))"),
              "config.mk TIMER is not the protocol row's timer, $(KB_PTIMER_$(PROTOCOL)): %s", t);
    free(mk);
    print_message("defaults: paper's literal values; %zu knobs equal config.mk; strict differs only in the timer\n",
                  sizeof knobs / sizeof knobs[0]);
}

/* ---- parsing ----------------------------------------------------------------------------------- */

typedef struct good_opt {
    const char *name, *value;
    const char *field;
    double want;
} good_opt;

static double field(const kb_config *c, const char *f)
{
    if (!strcmp(f, "tau")) return c->tau;
    if (!strcmp(f, "tau_lowp")) return c->tau_lowp;
    if (!strcmp(f, "std_trials")) return c->std_trials;
    if (!strcmp(f, "timer")) return (double)c->timer;
    if (!strcmp(f, "warmup")) return c->warmup;
    if (!strcmp(f, "trials")) return c->trials;
    if (!strcmp(f, "noise")) return c->noise;
    if (!strcmp(f, "min_samples")) return c->min_samples;
    if (!strcmp(f, "max_samples")) return c->max_samples;
    if (!strcmp(f, "max_time_s")) return c->max_time_s;
    if (!strcmp(f, "clock_tol")) return c->clock_tol;
    if (!strcmp(f, "pace")) return c->pace;
    if (!strcmp(f, "call_timeout_s")) return c->call_timeout_s;
    if (!strcmp(f, "compile_timeout_s")) return c->compile_timeout_s;
    if (!strcmp(f, "seed")) return (double)c->seed;
    if (!strcmp(f, "protocol")) return (double)c->protocol;
    fail_msg("no field %s", f);
    return NAN;
}

static const good_opt good[] = {
    {"tau", "1e-4", "tau", 1e-4},
    {"tau", "0", "tau", 0},
    {"tau-lowp", "0.05", "tau_lowp", 0.05},
    {"std-trials", "1", "std_trials", 1},
    {"std-trials", "1000", "std_trials", 1000},
    {"timer", "robust", "timer", KB_TIMER_ROBUST},
    {"timer", "paper", "timer", KB_TIMER_PAPER},
    {"warmup", "0", "warmup", 0},
    {"trials", "10", "trials", 10},
    {"noise", "0.01", "noise", 0.01},
    {"min-samples", "5", "min_samples", 5},
    {"max-samples", "50000", "max_samples", 50000},
    {"max-time", "2.5", "max_time_s", 2.5},
    {"clock-tol", "0", "clock_tol", 0},
    {"clock-tol", "0.02", "clock_tol", 0.02},
    {"pace", "0", "pace", 0},
    {"pace", "2.5", "pace", 2.5},
    {"call-timeout", "0.5", "call_timeout_s", 0.5},
    {"compile-timeout", "301", "compile_timeout_s", 301},
    {"seed", "7", "seed", 7},
    {"seed", "0x10", "seed", 16},
    {"seed", "18446744073709551615", "seed", 18446744073709551615.0},
    {"protocol", "strict", "protocol", KB_PROTO_STRICT},
};

typedef struct bad_opt {
    const char *name, *value;
} bad_opt;

static const bad_opt bad[] = {
    {"tau", "abc"},          {"tau", ""},          {"tau", "-1e-3"},        {"tau", "1e4"},
    {"tau", "nan"},          {"tau", "1e-3x"},     {"tau-lowp", "inf"},     {"std-trials", "0"},
    {"std-trials", "1.5"},   {"std-trials", "5 "}, {"std-trials", "1001"},  {"timer", "fast"},
    {"timer", ""},           {"warmup", "-1"},     {"trials", "0"},         {"noise", "2"},
    {"min-samples", "0"},    {"max-samples", "x"}, {"max-time", "-1"},      {"call-timeout", "0"},
    {"clock-tol", "0.6"},    {"clock-tol", "-0.01"}, {"pace", "-1"},        {"pace", "1e3"},
    {"compile-timeout", "0.5"}, {"seed", "abc"},   {"seed", ""},            {"seed", "12abc"},
    {"seed", "99999999999999999999999"},          {"protocol", "loose"},   {"protocol", "Paper"},
};

static void test_options(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        kb_config c;
        kb_config_defaults(&c, KB_PROTO_PAPER);
        kb_err err = {0};
        int rc = kb_config_set(&c, good[i].name, good[i].value, &err);
        KBT_CHECK(rc == 1, "--%s %s rejected: %s", good[i].name, good[i].value, err.msg);
        KBT_CHECK(field(&c, good[i].field) == good[i].want, "--%s %s set %s = %g, want %g", good[i].name,
                  good[i].value, good[i].field, field(&c, good[i].field), good[i].want);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kb_config c, before;
        kb_config_defaults(&c, KB_PROTO_PAPER);
        before = c;
        kb_err err = {0};
        int rc = kb_config_set(&c, bad[i].name, bad[i].value, &err);
        KBT_CHECK(rc == -1, "--%s '%s' accepted", bad[i].name, bad[i].value);
        KBT_CHECK(err.code == KB_EXIT_USAGE, "--%s '%s': code %d, want %d", bad[i].name, bad[i].value, err.code,
                  KB_EXIT_USAGE);
        char opt[64];
        snprintf(opt, sizeof opt, "--%s", bad[i].name);
        KBT_MSG_HAS(err.msg, opt);
        KBT_MSG_HAS(err.msg, bad[i].value);
        KBT_CHECK(cfg_equal(&c, &before), "--%s '%s' was rejected but changed the config", bad[i].name,
                  bad[i].value);
    }
    kb_config c;
    kb_config_defaults(&c, KB_PROTO_PAPER);
    KBT_CHECK(kb_config_set(&c, "model", "x", NULL) == 0, "a stage option is claimed by the config");
    KBT_CHECK(kb_config_set(&c, "Tau", "1", NULL) == 0, "option names are case-sensitive");
    print_message("options: %zu good values set their field, %zu bad ones rejected (code 2, message names option "
                  "and value, config unchanged)\n",
                  sizeof good / sizeof good[0], sizeof bad / sizeof bad[0]);
}

static void test_negative_seed_rejected(void **state)
{
    (void)state;
    /* strtoull accepts "-1" and wraps it to 2^64 - 1: a typo would silently change every draw */
    kb_config c;
    kb_config_defaults(&c, KB_PROTO_PAPER);
    kb_err err = {0};
    int rc = kb_config_set(&c, "seed", "-1", &err);
    KBT_CHECK(rc == -1, "--seed -1 accepted as %llu", (unsigned long long)c.seed);
    KBT_MSG_HAS(err.msg, "--seed");
    print_message("--seed -1 rejected: \"%s\"\n", err.msg);
}

static void test_protocol_resets(void **state)
{
    (void)state;
    kb_config c;
    kb_config_defaults(&c, KB_PROTO_PAPER);
    kb_err err = {0};
    kb_config_set(&c, "tau", "0.5", &err);
    kb_config_set(&c, "seed", "9", &err);
    kb_config_set(&c, "trials", "7", &err);
    assert_int_equal(kb_config_set(&c, "protocol", "strict", &err), 1);
    kb_config want;
    kb_config_defaults(&want, KB_PROTO_STRICT);
    KBT_CHECK(cfg_equal(&c, &want), "--protocol strict did not reset to strict's defaults (tau %g seed %llu)",
              c.tau, (unsigned long long)c.seed);
    kb_config_set(&c, "timer", "robust", &err);
    assert_int_equal(kb_config_set(&c, "protocol", "paper", &err), 1);
    kb_config_defaults(&want, KB_PROTO_PAPER);
    KBT_CHECK(cfg_equal(&c, &want), "--protocol paper did not reset to paper's defaults");
    print_message("--protocol resets every knob to the protocol's defaults\n");
}

static void test_stage_parse(void **state)
{
    (void)state;
    const char *out = NULL, *model = NULL;
    int flag = 0;
    kb_opt opts[] = {
        {"out", &out, NULL, "* the artifact"},
        {"model", &model, NULL, "model name"},
        {"baseline", NULL, &flag, "a flag"},
    };
    kb_config c;
    kb_config_defaults(&c, KB_PROTO_PAPER);
    kb_err err = {0};
    char *argv1[] = {"kb-x", "--protocol", "strict", "--tau=2e-3", "--seed", "11", "--out", "a.h5",
                     "--model=m1", "--baseline", "--compile-timeout=301", NULL};
    int rc = kb_stage_parse(11, argv1, "usage", opts, 3, &c, &err);
    KBT_CHECK(rc == 0, "parse: %s", err.msg);
    KBT_CHECK(c.protocol == KB_PROTO_STRICT && c.timer == KB_TIMER_ROBUST && c.tau == 2e-3 && c.seed == 11 &&
                  c.compile_timeout_s == 301,
              "config after parse: protocol %d tau %g seed %llu", (int)c.protocol, c.tau, (unsigned long long)c.seed);
    KBT_CHECK(out && !strcmp(out, "a.h5") && model && !strcmp(model, "m1") && flag == 1, "stage options: out %s model %s flag %d",
              out ? out : "(null)", model ? model : "(null)", flag);

    /* the protocol sets the defaults first, wherever it stands: options before it survive */
    kb_config_defaults(&c, KB_PROTO_PAPER);
    char *argv2[] = {"kb-x", "--tau", "2e-3", "--pace=3", "--out", "a.h5", "--protocol=strict", "--seed", "5", NULL};
    rc = kb_stage_parse(9, argv2, "usage", opts, 3, &c, &err);
    KBT_CHECK(rc == 0, "parse: %s", err.msg);
    KBT_CHECK(c.protocol == KB_PROTO_STRICT && c.timer == KB_TIMER_ROBUST && c.tau == 2e-3 && c.pace == 3 && c.seed == 5,
              "--protocol after --tau/--pace: protocol %d timer %d tau %g pace %g seed %llu", (int)c.protocol,
              (int)c.timer, c.tau, c.pace, (unsigned long long)c.seed);
    char *argv3[] = {"kb-x", "--out", "a", "--protocol", "strict", "--timer", "paper", "--protocol", "strict", NULL};
    kb_config_defaults(&c, KB_PROTO_PAPER);
    rc = kb_stage_parse(9, argv3, "usage", opts, 3, &c, &err);
    KBT_CHECK(rc == 0 && c.protocol == KB_PROTO_STRICT && c.timer == KB_TIMER_PAPER,
              "repeated --protocol strict: rc %d protocol %d timer %d (%s)", rc, (int)c.protocol, (int)c.timer, err.msg);

    static struct {
        int argc;
        char *argv[6];
        const char *needle;
    } errs[] = {
        {6, {"kb-x", "--out", "a", "--protocol", "paper", "--protocol=strict"}, "--protocol given twice"},
        {5, {"kb-x", "--out", "a", "--protocol", "loose"}, "--protocol loose"},
        {3, {"kb-x", "--out", "a.h5"}, NULL}, /* fine: only --out is required */
        {1, {"kb-x"}, "--out is required"},
        {4, {"kb-x", "--out", "a", "--bogus"}, "--bogus"},
        {3, {"kb-x", "--out", "a"}, NULL},
        {4, {"kb-x", "--out", "a", "stray"}, "stray"},
        {4, {"kb-x", "--out", "a", "--tau"}, "--tau needs a value"},
        {5, {"kb-x", "--out", "a", "--tau", "big"}, "--tau big"},
        {4, {"kb-x", "--out", "a", "--trials=0"}, "--trials 0"},
    };
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        const char *o = NULL, *m = NULL;
        int f = 0;
        kb_opt op[] = {{"out", &o, NULL, "* the artifact"}, {"model", &m, NULL, "model"}, {"baseline", NULL, &f, "flag"}};
        kb_config_defaults(&c, KB_PROTO_PAPER);
        memset(&err, 0, sizeof err);
        rc = kb_stage_parse(errs[i].argc, errs[i].argv, "usage", op, 3, &c, &err);
        if (!errs[i].needle) {
            KBT_CHECK(rc == 0, "case %zu: %s", i, err.msg);
            continue;
        }
        KBT_CHECK(rc == -1 && err.code == KB_EXIT_USAGE, "case %zu (%s): rc %d code %d", i, errs[i].needle, rc, err.code);
        KBT_MSG_HAS(err.msg, errs[i].needle);
    }
    print_message("kb_stage_parse: --name value / --name=value, flags, stage and protocol options, %zu error cases\n",
                  sizeof errs / sizeof errs[0]);
}

/* ---- seeds ------------------------------------------------------------------------------------- */

static uint64_t ref_fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t ref_splitmix(uint64_t x)
{
    uint64_t s = x;
    return kbt_next(&s); /* kbt.h's splitmix64 step: one output from state x */
}

static void test_seeds(void **state)
{
    (void)state;
    /* known answers: FNV-1a 64 ("", "a", "foobar"), splitmix64's first output from state 0 */
    KBT_CHECK(kb_fnv1a64("", 0, 0) == 0xcbf29ce484222325ull, "fnv1a(\"\")");
    KBT_CHECK(kb_fnv1a64("a", 1, 0) == 0xaf63dc4c8601ec8cull, "fnv1a(\"a\") = %#llx",
              (unsigned long long)kb_fnv1a64("a", 1, 0));
    KBT_CHECK(kb_fnv1a64("foobar", 6, 0) == 0x85944171f73967e8ull, "fnv1a(\"foobar\")");
    KBT_CHECK(kb_mix64(0) == 0xe220a8397b1dcdafull, "splitmix64(0) = %#llx", (unsigned long long)kb_mix64(0));
    KBT_CHECK(kb_mix64(0x9e3779b97f4a7c15ull) == 0x6e789e6aa1b965f4ull, "splitmix64 second output");

    kb_config c;
    kb_config_defaults(&c, KB_PROTO_PAPER);
    /* the definition: mix(fnv(id) ^ mix(seed) ^ mix(purpose << 32 | index)) */
    const char *ids[] = {"level1/019_relu", "level1/001_square_matmul", "level2/017_conv_in_div", "level3/043_mingpt"};
    for (size_t i = 0; i < 4; i++)
        for (int p = KB_SEED_PARAMS; p <= KB_SEED_PROBE; p++)
            for (uint32_t k = 0; k < 5; k++) {
                uint64_t want = ref_splitmix(ref_fnv1a(ids[i]) ^ ref_splitmix(c.seed) ^
                                             ref_splitmix(((uint64_t)p << 32) | k));
                uint64_t got = kb_seed(&c, ids[i], (kb_purpose)p, k);
                KBT_CHECK(got == want, "kb_seed(%s, %d, %u) = %#llx, definition gives %#llx", ids[i], p, k,
                          (unsigned long long)got, (unsigned long long)want);
            }
    /* pinned literals: the seeds every stored artifact was drawn with */
    KBT_CHECK(kb_seed(&c, "level1/019_relu", KB_SEED_PARAMS, 0) == 0x7b14d7bd2fc8fcd9ull, "pinned seed 1");
    KBT_CHECK(kb_seed(&c, "level1/019_relu", KB_SEED_STD_TRIAL, 3) == 0x8a89281f5030ce29ull, "pinned seed 2");
    KBT_CHECK(kb_seed(&c, "level2/001_conv", KB_SEED_DIST, 1) == 0x978b7325fd696247ull, "pinned seed 3");
    /* distinct: 4 problems x 5 purposes x 50 indices x 3 base seeds */
    enum { N = 4 * 5 * 50 * 3 };
    static uint64_t all[N];
    size_t n = 0;
    const uint64_t bases[] = {42, 43, 42ull << 32};
    for (size_t b = 0; b < 3; b++) {
        c.seed = bases[b];
        for (size_t i = 0; i < 4; i++)
            for (int p = KB_SEED_PARAMS; p <= KB_SEED_PROBE; p++)
                for (uint32_t k = 0; k < 50; k++)
                    all[n++] = kb_seed(&c, ids[i], (kb_purpose)p, k);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            KBT_CHECK(all[i] != all[j], "seeds %zu and %zu collide (%#llx)", i, j, (unsigned long long)all[i]);
    c.seed = 42;
    KBT_CHECK(kb_seed(&c, "level1/019_relu", KB_SEED_PARAMS, 0) == kb_seed(&c, "level1/019_relu", KB_SEED_PARAMS, 0),
              "kb_seed is not stable");
    print_message("seeds: FNV-1a / splitmix64 known answers, definition reproduced, 3 literals pinned, %zu distinct\n",
                  n);
}

/* ---- distributions ----------------------------------------------------------------------------- */

typedef struct dist_spec {
    const char *name;
    double scale;
    int override_gen;
    kb_gen gen;
    double zero_fraction;
    int perturb;
    uint32_t needs;
} dist_spec;

static const dist_spec paper_spec[] = {
    {"D1", 1.0, 0, {KB_GEN_RAND, 0, 0}, 0, 0},
    {"D2", 3.0, 0, {KB_GEN_RAND, 0, 0}, 0, 0},
    {"D3", 0.01, 0, {KB_GEN_RAND, 0, 0}, 0, 0},
    {"D4", -1.0, 0, {KB_GEN_RAND, 0, 0}, 0, 0},
};

static const dist_spec strict_spec[] = {
    {"D1", 1.0, 0, {KB_GEN_RAND, 0, 0}, 0, 0},
    {"D2", 3.0, 0, {KB_GEN_RAND, 0, 0}, 0, 0},
    {"D3", 0.01, 0, {KB_GEN_RAND, 0, 0}, 0, 0},
    {"D4", -1.0, 0, {KB_GEN_RAND, 0, 0}, 0, 0},
    {"P1", 1.0, 0, {KB_GEN_RAND, 0, 0}, 0, 1},                    /* inputs as generated, parameters U(-1,1) */
    {"S1", 1.0, 1, {KB_GEN_UNIFORM, -1, 1}, 0, 1},                /* mixed signs */
    {"S2", 1.0, 1, {KB_GEN_LOGUNIFORM_SIGNED, -3, 3}, 0, 1},      /* wide dynamic range */
    {"S3", 1.0, 1, {KB_GEN_UNIFORM, -1e-6, 1e-6}, 0, 0},          /* tiny values */
    {"S4", 1.0, 1, {KB_GEN_UNIFORM, -1, 1}, 0.5, 1},              /* half exact zeros */
    {"S5", 1.0, 1, {KB_GEN_UNIFORM, -100, 100}, 0, 0},            /* large magnitudes */
    {"S6", 1.0, 1, {KB_GEN_UNIFORM, -1, 0}, 0, 1},                /* all negative */
    {"S7", 1.0, 1, {KB_GEN_UNIFORM, 1000, 1001}, 0, 0, KB_PROB_CENTERED}, /* large offset, centring problems only */
};

static void check_dists(const kb_dist *d, size_t n, const dist_spec *spec, size_t n_spec, const char *proto)
{
    KBT_CHECK(n == n_spec, "%s has %zu distributions, want %zu", proto, n, n_spec);
    for (size_t i = 0; i < n; i++) {
        const dist_spec *s = &spec[i];
        KBT_CHECK(d[i].name && !strcmp(d[i].name, s->name), "%s distribution %zu is %s, want %s", proto, i,
                  d[i].name ? d[i].name : "(null)", s->name);
        KBT_CHECK(d[i].what && d[i].what[0] && d[i].why && d[i].why[0], "%s %s lacks what/why", proto, s->name);
        KBT_CHECK(d[i].inputs.scale == s->scale, "%s %s scale %g, want %g", proto, s->name, d[i].inputs.scale, s->scale);
        KBT_CHECK(d[i].inputs.override_gen == s->override_gen, "%s %s override %d", proto, s->name,
                  d[i].inputs.override_gen);
        if (s->override_gen)
            KBT_CHECK(d[i].inputs.gen.kind == s->gen.kind && d[i].inputs.gen.a == s->gen.a && d[i].inputs.gen.b == s->gen.b,
                      "%s %s input generator (%d, %g, %g), want (%d, %g, %g)", proto, s->name, (int)d[i].inputs.gen.kind,
                      d[i].inputs.gen.a, d[i].inputs.gen.b, (int)s->gen.kind, s->gen.a, s->gen.b);
        KBT_CHECK(d[i].inputs.zero_fraction == s->zero_fraction, "%s %s zero_fraction %g", proto, s->name,
                  d[i].inputs.zero_fraction);
        KBT_CHECK(d[i].perturb_params == s->perturb, "%s %s perturb_params %d, want %d", proto, s->name,
                  d[i].perturb_params, s->perturb);
        if (s->perturb) {
            /* parameters re-drawn U(-1, 1), unscaled, dense */
            KBT_CHECK(d[i].params.override_gen && d[i].params.gen.kind == KB_GEN_UNIFORM && d[i].params.gen.a == -1 &&
                          d[i].params.gen.b == 1 && d[i].params.scale == 1.0 && d[i].params.zero_fraction == 0,
                      "%s %s parameter draw is not U(-1,1)", proto, s->name);
        } else {
            KBT_CHECK(d[i].params.scale == 1.0 && !d[i].params.override_gen && d[i].params.zero_fraction == 0,
                      "%s %s leaves parameters untouched but its params draw is not the identity", proto, s->name);
        }
        KBT_CHECK(d[i].inputs.seed == 0 && d[i].params.seed == 0, "%s %s has a seed in the table", proto, s->name);
        KBT_CHECK(d[i].needs == s->needs, "%s %s applies to problem flags %#x, want %#x", proto, s->name, d[i].needs, s->needs);
        KBT_CHECK(kb_dist_applies(&d[i], 0) == (d[i].needs == 0), "%s %s: kb_dist_applies on a plain problem", proto, s->name);
        KBT_CHECK(kb_dist_applies(&d[i], KB_PROB_CENTERED), "%s %s does not apply to a centring problem", proto, s->name);
        for (size_t j = 0; j < i; j++)
            KBT_CHECK(strcmp(d[i].name, d[j].name) != 0, "%s: duplicate distribution %s", proto, d[i].name);
    }
}

static void test_distributions(void **state)
{
    (void)state;
    kb_config c;
    size_t n;
    kb_config_defaults(&c, KB_PROTO_PAPER);
    const kb_dist *d = kb_protocol_dists(&c, &n);
    check_dists(d, n, paper_spec, 4, "paper");
    kb_config_defaults(&c, KB_PROTO_STRICT);
    const kb_dist *s = kb_protocol_dists(&c, &n);
    check_dists(s, n, strict_spec, sizeof strict_spec / sizeof strict_spec[0], "strict");
    /* a tau or timer change does not change the set */
    kb_config_set(&c, "timer", "paper", NULL);
    KBT_CHECK(kb_protocol_dists(&c, &n) == s, "the strict set depends on the timer");

    /* docs/protocols.md describes each of them (a table row "| NAME |") */
    char *doc = kb_read_file("docs/protocols.md", NULL, NULL);
    if (doc) {
        for (size_t i = 0; i < n; i++) {
            char row[32];
            snprintf(row, sizeof row, "| %s |", s[i].name);
            int in_paper_row = i < 4 && strstr(doc, "D1 x1, D2 x3, D3 x0.01, D4 x-1") != NULL;
            KBT_CHECK(strstr(doc, row) || in_paper_row, "docs/protocols.md has no row for %s", s[i].name);
        }
        free(doc);
    } else {
        print_message("docs/protocols.md not found (run from the repository root): documentation check skipped\n");
    }

    /* What a distribution does to an element, end to end: D4 negates a U[0,1) input exactly,
     * leaves an int64 input alone; S4 zeroes half of the floats. */
    kb_draw d4 = d[3].inputs;
    d4.seed = 77;
    kb_gen rnd = {KB_GEN_RAND, 0, 0}, ri = {KB_GEN_RANDINT, 0, 10};
    for (uint64_t i = 0; i < 1000; i++) {
        KBT_CHECK(kb_draw_value(&d4, rnd, KB_F32, 0, i) == -kb_gen_value(rnd, 77, 0, i), "D4 is not an exact negation");
        KBT_CHECK(kb_draw_value(&d4, ri, KB_I64, 1, i) == kb_gen_value(ri, 77, 1, i), "D4 touched an int64 input");
    }
    print_message("distributions: paper = D1 x1, D2 x3, D3 x0.01, D4 x-1 (parameters untouched); strict = those + "
                  "P1, S1..S6 as specified\n");
}

static void test_config_write(void **state)
{
    (void)state;
    char *dir = kbt_tmpdir("config");
    assert_non_null(dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/c.h5", dir);
    kb_config c;
    kb_config_defaults(&c, KB_PROTO_STRICT);
    kb_config_set(&c, "tau", "2e-4", NULL);
    kb_config_set(&c, "seed", "123456789", NULL);
    kb_err err = {0};
    kb_h5w *w = kb_h5w_create(path, &err);
    assert_non_null(w);
    KBT_CHECK(kb_config_write(&c, w, "/config") == 0, "kb_config_write failed");
    KBT_CHECK(kb_h5w_commit(w, &err) == 0, "commit: %s", err.msg);
    kb_h5r *r = kb_h5r_open(path, &err);
    assert_non_null(r);
    char s[64];
    assert_int_equal(kb_h5r_attr_str(r, "/config", "protocol", s, sizeof s, &err), 0);
    KBT_CHECK(!strcmp(s, "strict"), "protocol %s", s);
    assert_int_equal(kb_h5r_attr_str(r, "/config", "timer", s, sizeof s, &err), 0);
    KBT_CHECK(!strcmp(s, "robust"), "timer %s", s);
    const struct {
        const char *name;
        double want;
    } nums[] = {{"tau", 2e-4},
                {"tau_lowp", c.tau_lowp},
                {"std_trials", c.std_trials},
                {"warmup", c.warmup},
                {"trials", c.trials},
                {"noise", c.noise},
                {"min_samples", c.min_samples},
                {"max_samples", c.max_samples},
                {"max_time_s", c.max_time_s},
                {"clock_tol", c.clock_tol},
                {"pace", c.pace},
                {"call_timeout_s", c.call_timeout_s},
                {"compile_timeout_s", c.compile_timeout_s},
                {"seed", 123456789}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        double v = NAN;
        KBT_CHECK(kb_h5r_attr_f64(r, "/config", nums[i].name, &v, &err) == 0, "/config@%s: %s", nums[i].name, err.msg);
        KBT_CHECK(v == nums[i].want, "/config@%s = %g, want %g", nums[i].name, v, nums[i].want);
    }
    kb_h5r_close(r);
    kbt_rmtree(dir);
    free(dir);
    print_message("kb_config_write: protocol, timer and %zu numeric knobs recorded in /config\n",
                  sizeof nums / sizeof nums[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_negative_seed_rejected),
        cmocka_unit_test(test_protocol_resets),
        cmocka_unit_test(test_stage_parse),
        cmocka_unit_test(test_seeds),
        cmocka_unit_test(test_distributions),
        cmocka_unit_test(test_config_write),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
