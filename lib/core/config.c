/* config.c -- see kb_config.h. The distribution tables are the protocols' specification;
 * docs/protocols.md explains each row. */
#include "core/kb_config.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables (kb_settings.def) ---------------------------------------------------------- */
#define KB_PROTOCOL(...)
#define KB_TIMER(...)
#define KB_SETTING(KNOB, field, TYPE, lo, hi, def, check, when, stages, help)                                         \
    {#KNOB, #field, KB_SET_##TYPE, lo, hi, def, check, when, stages, help, offsetof(kb_config, field)},
const kb_setting kb_settings[] = {
#include "core/kb_settings.def"
};
#undef KB_SETTING
#undef KB_TIMER
const size_t kb_n_settings = sizeof kb_settings / sizeof kb_settings[0];

#define KB_SETTING(...)
#define KB_TIMER(name, ID, flush, blocking, adaptive, stat, paced) {#name, KB_TIMER_##ID, flush, blocking, adaptive, stat, paced},
const kb_timer_spec kb_timers[KB_N_TIMERS] = {
#include "core/kb_settings.def"
};
#undef KB_TIMER
#define KB_TIMER(...)

/* ---- distributions ------------------------------------------------------------------------- */

#define KEEP {0, 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0}
#define SCALE(s) {0, (s), 0, {KB_GEN_RAND, 0, 0}, 0.0}
#define GEN(kind, a, b) {0, 1.0, 1, {(kind), (a), (b)}, 0.0}
#define GEN_SPARSE(kind, a, b, z) {0, 1.0, 1, {(kind), (a), (b)}, (z)}

/* The paper's hidden distributions: every floating-point INPUT scaled, parameters untouched. */
static const kb_dist paper_dists[] = {
    {"D1", "x 1.0 (fresh draw)", "baseline behaviour on new values", SCALE(1.0), 0, KEEP, 0},
    {"D2", "x 3.0", "overflow in exp/tanh approximations, accumulated error", SCALE(3.0), 0, KEEP, 0},
    {"D3", "x 0.01", "underflow, epsilon handling, small variances", SCALE(0.01), 0, KEEP, 0},
    {"D4", "x -1.0", "sign-dependent paths (ReLU returning its input)", SCALE(-1.0), 0, KEEP, 0},
};

/* The strict protocol: the paper's four, then draws that also perturb the parameters and cover
 * the value ranges the paper's never reach. Parameters are re-drawn U(-1,1): a ones weight or a
 * zeros bias becomes a random value, so a deleted multiply or add shows. */
static const kb_dist strict_dists[] = {
    {"D1", "x 1.0 (fresh draw)", "baseline behaviour on new values", SCALE(1.0), 0, KEEP, 0},
    {"D2", "x 3.0", "overflow in exp/tanh approximations, accumulated error", SCALE(3.0), 0, KEEP, 0},
    {"D3", "x 0.01", "underflow, epsilon handling, small variances", SCALE(0.01), 0, KEEP, 0},
    {"D4", "x -1.0", "sign-dependent paths", SCALE(-1.0), 0, KEEP, 0},
    {"P1", "inputs as generated, parameters U(-1,1)", "deleted multiplies by ones / adds of zeros, unused parameters",
     KEEP, 1, GEN(KB_GEN_UNIFORM, -1.0, 1.0), 0},
    {"S1", "inputs U(-1,1), parameters U(-1,1)", "mixed signs: cancellation, abs/sign bugs", GEN(KB_GEN_UNIFORM, -1.0, 1.0), 1,
     GEN(KB_GEN_UNIFORM, -1.0, 1.0), 0},
    {"S2", "inputs +-10^U(-3,3)", "wide dynamic range: precision downgrades, overflow, lost small terms",
     GEN(KB_GEN_LOGUNIFORM_SIGNED, -3.0, 3.0), 1, GEN(KB_GEN_UNIFORM, -1.0, 1.0), 0},
    {"S3", "inputs U(-1,1) x 1e-6", "tiny values: flush-to-zero, epsilon dominance", GEN(KB_GEN_UNIFORM, -1e-6, 1e-6), 0, KEEP, 0},
    {"S4", "inputs U(-1,1) with 50% exact zeros", "sparse data: zero-skipping shortcuts, division by zero",
     GEN_SPARSE(KB_GEN_UNIFORM, -1.0, 1.0, 0.5), 1, GEN(KB_GEN_UNIFORM, -1.0, 1.0), 0},
    {"S5", "inputs U(-100,100)", "large magnitudes: unstable exp/softmax, overflow", GEN(KB_GEN_UNIFORM, -100.0, 100.0), 0, KEEP, 0},
    {"S6", "inputs U(-1,0)", "all negative: the other half of every sign-dependent path", GEN(KB_GEN_UNIFORM, -1.0, 0.0), 1,
     GEN(KB_GEN_UNIFORM, -1.0, 1.0), 0},
    /* last, so the others keep their seeds; only where the output subtracts a statistic of its input */
    {"S7", "inputs 1000 + U(0,1)", "large offset: cancellation in means and variances (one-pass E[x^2] - E[x]^2), "
     "softmax and log-sum-exp without max subtraction", GEN(KB_GEN_UNIFORM, 1000.0, 1001.0), 0, KEEP, KB_PROB_CENTERED},
};

#define N_OF(a) (sizeof(a) / sizeof(a)[0])
#undef KB_PROTOCOL
#define KB_PROTOCOL(name, ID, timer, regen, dists, exact, scaled, flags, probes, reject, doc)                        \
    {#name, KB_PROTO_##ID, timer, regen, dists, N_OF(dists), exact, scaled, flags, probes, reject, doc},
const kb_protocol kb_protocols[KB_N_PROTOCOLS] = {
#include "core/kb_settings.def"
};
#undef KB_PROTOCOL
#undef KB_TIMER
#undef KB_SETTING

int kb_protocol_tau_based(const char *name)
{
    const kb_protocol *p = name ? kb_protocol_find(name) : NULL;
    return !(p && p->scaled_bound);
}

const kb_protocol *kb_protocol_find(const char *name)
{
    for (size_t i = 0; i < KB_N_PROTOCOLS; i++)
        if (!strcmp(kb_protocols[i].name, name))
            return &kb_protocols[i];
    return NULL;
}

const kb_timer_spec *kb_timer_find(const char *name)
{
    for (size_t i = 0; i < KB_N_TIMERS; i++)
        if (!strcmp(kb_timers[i].name, name))
            return &kb_timers[i];
    return NULL;
}

const kb_protocol *kb_config_protocol(const kb_config *c) { return &kb_protocols[c->protocol]; }
const kb_timer_spec *kb_config_timer(const kb_config *c) { return &kb_timers[c->timer]; }
const char *kb_protocol_name(kb_protocol_id p) { return kb_protocols[p].name; }
const char *kb_timer_name(kb_timer_kind t) { return kb_timers[t].name; }

const char *kb_setting_option(const kb_setting *s, char *buf, size_t len)
{
    size_t i = 0;
    for (; s->knob[i] && i + 1 < len; i++)
        buf[i] = s->knob[i] == '_' ? '-' : (char)(s->knob[i] | 0x20);
    buf[i] = '\0';
    return buf;
}

static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

/* does any setting name this stage as a reader? */
static int stage_known(const char *stage)
{
    for (size_t k = 0; stage && k < kb_n_settings; k++)
        if (in_list(kb_settings[k].stages, stage))
            return 1;
    return 0;
}

int kb_setting_read_by(const kb_setting *s, const char *stage)
{
    return !stage_known(stage) || in_list(s->stages, stage);
}

/* ---- parsing ------------------------------------------------------------------------------- */

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

/* "paper or strict", "paper, robust or x": the names of a table's rows */
static const char *names_sep(char *buf, size_t len, int timers, const char *sep, const char *last)
{
    size_t n = timers ? KB_N_TIMERS : KB_N_PROTOCOLS, off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : i + 1 == n ? last : sep,
                                timers ? kb_timers[i].name : kb_protocols[i].name);
    return buf;
}
#define names_or(buf, len, timers) names_sep(buf, len, timers, ", ", " or ")

static int set_one(kb_config *c, const kb_setting *s, const char *opt, const char *v, kb_err *err)
{
    char *field = (char *)c + s->offset, names[256];
    switch (s->type) {
    case KB_SET_F64:
        return parse_double(opt, v, s->lo, s->hi, (double *)(void *)field, err);
    case KB_SET_INT:
        return parse_int(opt, v, (long)s->lo, (long)s->hi, (int *)(void *)field, err);
    case KB_SET_U64: {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(v, &end, 0);
        /* strtoull accepts "-1" and wraps it to 2^64 - 1 */
        if (errno || end == v || *end || strchr(v, '-'))
            return kb_errf(err, KB_EXIT_USAGE, "--%s %s: expected an unsigned integer", opt, v);
        *(uint64_t *)(void *)field = x;
        return 1;
    }
    case KB_SET_PROTO: {
        const kb_protocol *p = kb_protocol_find(v);
        if (!p)
            return kb_errf(err, KB_EXIT_USAGE, "--%s %s: expected %s", opt, v, names_or(names, sizeof names, 0));
        kb_config_defaults(c, p->id);
        return 1;
    }
    case KB_SET_TIMER: {
        const kb_timer_spec *t = kb_timer_find(v);
        if (!t)
            return kb_errf(err, KB_EXIT_USAGE, "--%s %s: expected %s", opt, v, names_or(names, sizeof names, 1));
        c->timer = t->id;
        return 1;
    }
    }
    return 0;
}

void kb_config_defaults(kb_config *c, kb_protocol_id p)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < kb_n_settings; i++) {
        const kb_setting *s = &kb_settings[i];
        char opt[64];
        if (s->type != KB_SET_PROTO && s->def[0] && set_one(c, s, kb_setting_option(s, opt, sizeof opt), s->def, NULL) != 1)
            abort(); /* a default outside its own range: kb_settings.def is wrong (test_config catches it) */
    }
    c->protocol = p;
    c->timer = kb_protocols[p].timer;
}

int kb_config_set(kb_config *c, const char *name, const char *v, kb_err *err)
{
    for (size_t i = 0; i < kb_n_settings; i++) {
        char opt[64];
        if (!strcmp(name, kb_setting_option(&kb_settings[i], opt, sizeof opt)))
            return set_one(c, &kb_settings[i], opt, v, err);
    }
    return 0;
}

/* ---- recording and describing ---------------------------------------------------------------- */

int kb_config_write(const kb_config *c, kb_h5w *w, const char *g)
{
    kb_h5w_group(w, g);
    for (size_t i = 0; i < kb_n_settings; i++) {
        const kb_setting *s = &kb_settings[i];
        const char *field = (const char *)c + s->offset;
        switch (s->type) {
        case KB_SET_F64: kb_h5w_attr_f64(w, g, s->attr, *(const double *)(const void *)field); break;
        case KB_SET_INT: kb_h5w_attr_i64(w, g, s->attr, *(const int *)(const void *)field); break;
        case KB_SET_U64: kb_h5w_attr_i64(w, g, s->attr, (int64_t) * (const uint64_t *)(const void *)field); break;
        case KB_SET_PROTO: kb_h5w_attr_str(w, g, s->attr, kb_protocol_name(c->protocol)); break;
        case KB_SET_TIMER: kb_h5w_attr_str(w, g, s->attr, kb_timer_name(c->timer)); break;
        }
    }
    return kb_h5w_ok(w, NULL);
}

static const char *meta(const kb_setting *s, char *buf, size_t len)
{
    switch (s->type) {
    case KB_SET_PROTO: return names_sep(buf, len, 0, "|", "|");
    case KB_SET_TIMER: return names_sep(buf, len, 1, "|", "|");
    case KB_SET_INT: case KB_SET_U64: return "N";
    case KB_SET_F64: break;
    }
    return strstr(s->knob, "TIME") ? "S" : "X";
}

void kb_config_help(FILE *f, const char *stage)
{
    fprintf(f, "Protocol options (config.mk knobs%s; --protocol sets the others' defaults, wherever it stands):\n",
            stage_known(stage) ? " this stage reads" : "");
    for (size_t i = 0; i < kb_n_settings; i++) {
        const kb_setting *s = &kb_settings[i];
        if (!kb_setting_read_by(s, stage))
            continue;
        char opt[64], m[128], left[192];
        snprintf(left, sizeof left, "--%s %s", kb_setting_option(s, opt, sizeof opt), meta(s, m, sizeof m));
        char text[512];
        snprintf(text, sizeof text, "%s%s%s%s", s->help, s->def[0] ? " (default " : "", s->def,
                 s->def[0] ? ")" : "");
        /* wrapped at 100 columns, continuation lines under the text */
        fprintf(f, "  %-25s", left);
        size_t col = 27;
        for (char *w = strtok(text, " "); w; w = strtok(NULL, " ")) {
            if (col + 1 + strlen(w) > 100 && col > 28) {
                fprintf(f, "\n%27s", "");
                col = 27;
            }
            fprintf(f, " %s", w);
            col += 1 + strlen(w);
        }
        fputc('\n', f);
    }
    if (stage_known(stage))
        fprintf(f, "  (the other protocol knobs are accepted, and recorded in /config, but not read)\n");
}

static const char *type_name(kb_setting_type t)
{
    static const char *n[] = {"F64", "INT", "U64", "PROTO", "TIMER"};
    return n[t];
}

void kb_config_print_settings(FILE *f)
{
    for (size_t i = 0; i < kb_n_settings; i++) {
        const kb_setting *s = &kb_settings[i];
        fprintf(f, "%s\t%s\t%.17g\t%.17g\t%s\t%s\t%s\t%s\n", s->knob, type_name(s->type), s->lo, s->hi, s->def,
                s->check, s->when, s->stages);
    }
}

uint64_t kb_seed(const kb_config *c, const char *problem_id, kb_purpose purpose, uint32_t index)
{
    uint64_t h = kb_fnv1a64(problem_id, strlen(problem_id), 0);
    return kb_mix64(h ^ kb_mix64(c->seed) ^ kb_mix64(((uint64_t)purpose << 32) | index));
}

int kb_dist_applies(const kb_dist *d, uint32_t problem_flags)
{
    return d->needs == 0 || (d->needs & problem_flags) != 0;
}

const kb_dist *kb_protocol_dists(const kb_config *c, size_t *n)
{
    *n = kb_protocols[c->protocol].n_dists;
    return kb_protocols[c->protocol].dists;
}
