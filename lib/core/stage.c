/* stage.c -- see kb_stage.h. */
#include "core/kb_stage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb_artifact.h"
#include "core/kb_stats.h"

static void print_help(const char *stage, const char *usage, const kb_opt *opts, size_t n)
{
    printf("%s\nOptions (* = required):\n", usage);
    for (size_t i = 0; i < n; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s", opts[i].name, opts[i].value ? " X" : "");
        printf("  %-26s %s\n", left, opts[i].help);
    }
    printf("  %-26s %s\n", "--help", "this text");
    printf("  %-26s %s\n", "--version", "the harness revision and the artifact schema version");
    printf("  %-26s %s\n", "--print-settings", "the settings table (lib/core/kb_settings.def), one knob per line");
    printf("\n");
    kb_config_help(stdout, stage);
    if (strstr(usage, "Exit codes:"))
        return; /* the stage states its own */
    printf("\nExit codes: 0 the artifact was written (whatever the cell's outcome: it is in the artifact);\n"
           "1 the stage failed (message on stderr; nothing written); 2 bad command line;\n"
           "3 no usable CUDA device (GPU stages); 4 a needed input does not exist.\n");
}

/* The value of --protocol (either form) on the command line, or NULL; -1 if given twice with
 * different values. */
static int find_protocol(int argc, char **argv, const char **val)
{
    *val = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--protocol") && i + 1 < argc)
            v = argv[++i];
        else if (!strncmp(argv[i], "--protocol=", 11))
            v = argv[i] + 11;
        if (!v)
            continue;
        if (*val && strcmp(*val, v) != 0)
            return -1;
        *val = v;
    }
    return 0;
}

int kb_stage_parse(int argc, char **argv, const char *usage, const kb_opt *opts, size_t n_opts, kb_config *cfg, kb_err *err)
{
    kb_artifact_mark_start();
    /* the stage's name, as the settings table lists its readers: kb-<stage> */
    const char *prog = strrchr(argv[0], '/');
    prog = prog ? prog + 1 : argv[0];
    const char *stage = !strncmp(prog, "kb-", 3) ? prog + 3 : prog;
    if (kb_version_arg(argc, argv, prog))
        return 1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--print-settings")) {
            kb_config_print_settings(stdout);
            return 1;
        }
    /* The protocol sets every other knob's default, so it applies first, wherever it stands. */
    const char *proto;
    if (find_protocol(argc, argv, &proto) != 0)
        return kb_errf(err, KB_EXIT_USAGE, "--protocol given twice with different values");
    if (proto && kb_config_set(cfg, "protocol", proto, err) < 0)
        return -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            print_help(stage, usage, opts, n_opts);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0)
            return kb_errf(err, KB_EXIT_USAGE, "unexpected argument '%s' (see --help)", a);
        char name[128];
        const char *val = NULL;
        const char *eq = strchr(a + 2, '=');
        if (eq) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a - 2), a + 2);
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a + 2);
        }
        const kb_opt *o = NULL;
        for (size_t k = 0; k < n_opts; k++)
            if (!strcmp(opts[k].name, name))
                o = &opts[k];
        if (o && o->flag && !o->value) {
            *o->flag = 1;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc) {
                /* an unknown option is that, not a missing value: probe the knob on a copy */
                kb_config probe = *cfg;
                kb_err perr = {0};
                if (!o && kb_config_set(&probe, name, "", &perr) == 0)
                    return kb_errf(err, KB_EXIT_USAGE, "unknown option --%s (see --help)", name);
                return kb_errf(err, KB_EXIT_USAGE, "--%s needs a value", name);
            }
            val = argv[++i];
        }
        if (o) {
            *o->value = val;
            continue;
        }
        if (!strcmp(name, "protocol"))
            continue; /* applied above */
        int rc = kb_config_set(cfg, name, val, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return kb_errf(err, KB_EXIT_USAGE, "unknown option --%s (see --help)", name);
    }
    for (size_t k = 0; k < n_opts; k++)
        if (opts[k].help[0] == '*' && opts[k].value && !*opts[k].value)
            return kb_errf(err, KB_EXIT_USAGE, "--%s is required (see --help)", opts[k].name);
    return 0;
}

int kb_stage_fail(const char *stage, const kb_err *err)
{
    fprintf(stderr, "kb-%s: %s\n", stage, err->msg[0] ? err->msg : "failed");
    return err->code ? err->code : KB_EXIT_FAIL;
}

void kb_time_request(const kb_config *cfg, kb_msg_time *t, uint64_t regen_seed)
{
    memset(t, 0, sizeof *t);
    t->timer = (int32_t)cfg->timer;
    t->warmup = cfg->warmup;
    t->trials = cfg->trials;
    t->min_samples = cfg->min_samples;
    t->max_samples = cfg->max_samples;
    t->noise = cfg->noise;
    t->max_time_s = cfg->max_time_s;
    const kb_timer_spec *spec = kb_config_timer(cfg);
    t->flush_l2 = spec->flush_l2;
    t->blocking = spec->blocking;
    t->adaptive = spec->adaptive;
    t->paced = spec->paced;
    t->regen_inputs = kb_config_protocol(cfg)->regen_inputs;
    t->regen_seed = regen_seed;
    t->clock_tol = cfg->clock_tol;
    t->pace = cfg->pace;
}

/* the timer row of a request (a bad id: the paper timer's) */
static const kb_timer_spec *req_timer(const kb_msg_time *req)
{
    return &kb_timers[req->timer >= 0 && req->timer < KB_N_TIMERS ? req->timer : KB_TIMER_PAPER];
}

static char *join(char *buf, size_t len, const char *group, const char *name)
{
    snprintf(buf, len, "%s/%s", group, name);
    return buf;
}

/* Dataset <g>/<name>: field `field` of the n records recs[], through buf (double[] for
 * kb_h5w_f64v, int64_t[] for kb_h5w_i64v). Uses the caller's w, g, p (a path buffer) and n. */
#define COLUMN(writer, buf, recs, field, name, units)                                                                 \
    do {                                                                                                              \
        for (size_t i_ = 0; i_ < n; i_++)                                                                             \
            (buf)[i_] = (recs)[i_].field;                                                                             \
        writer(w, join(p, sizeof p, g, name), buf, n, units);                                                         \
    } while (0)

/* Event times of the samples the statistics use (not excluded by the clock guard); *k set. */
static double *included_event_ms(const kb_msg_timed *h, const kb_msg_sample *s, size_t *k)
{
    size_t n = h->n > 0 ? (size_t)h->n : 0;
    double *ev = malloc((n ? n : 1) * sizeof *ev);
    *k = 0;
    if (ev)
        for (size_t i = 0; i < n; i++)
            if (!s[i].excluded)
                ev[(*k)++] = s[i].event_ms;
    return ev;
}

double kb_timing_reported_ms(const kb_msg_time *req, const kb_msg_timed *h, const kb_msg_sample *s)
{
    size_t k;
    double *ev = included_event_ms(h, s, &k);
    if (!ev)
        return NAN;
    double v = kb_stats_mean(ev, k);
    if (req_timer(req)->statistic == KB_STAT_MEDIAN_MINUS_OVERHEAD) {
        v = kb_median(ev, k) - h->overhead_ms;
        if (v < KB_EVENT_RESOLUTION_MS) /* NaN stays NaN */
            v = KB_EVENT_RESOLUTION_MS;
    }
    free(ev);
    return v;
}

int kb_record_timing(kb_h5w *w, const char *g, const kb_msg_time *req, const kb_msg_timed *h, const kb_msg_sample *s)
{
    size_t n = h->n > 0 ? (size_t)h->n : 0, k = 0;
    double *f = calloc(n ? n : 1, sizeof *f), *wall = calloc(n ? n : 1, sizeof *wall);
    int64_t *v = calloc(n ? n : 1, sizeof *v);
    double *ev = included_event_ms(h, s, &k);
    if (!f || !wall || !v || !ev) {
        free(f);
        free(wall);
        free(v);
        free(ev);
        return -1;
    }
    char p[512];
    kb_h5w_group(w, g);
    COLUMN(kb_h5w_f64v, f, s, event_ms, "event_ms", "ms");
    COLUMN(kb_h5w_f64v, f, s, sm_clock_mhz, "sm_clock_mhz", "MHz");
    COLUMN(kb_h5w_f64v, f, s, clock_avg_mhz, "clock_avg_mhz", "MHz");
    COLUMN(kb_h5w_f64v, f, s, power_w, "power_w", "W");
    COLUMN(kb_h5w_f64v, f, s, temp_c, "temp_c", "degrees C");
    COLUMN(kb_h5w_i64v, v, s, throttle_reasons, "throttle_reasons", "NVML clocks-event reasons bitmask");
    COLUMN(kb_h5w_i64v, v, s, blocked, "blocked", "1 = launch held by the blocking kernel");
    COLUMN(kb_h5w_i64v, v, s, excluded, "excluded", "1 = left out of the statistics by the clock guard");
    COLUMN(kb_h5w_f64v, wall, s, wall_ms, "wall_ms", "ms");
    size_t kw = 0;
    for (size_t i = 0; i < n; i++)
        if (!s[i].excluded)
            wall[kw++] = s[i].wall_ms;
    kb_summary sm, sw;
    kb_summarize(ev, k, &sm);
    kb_summarize(wall, kw, &sw);
    const kb_timer_spec *ts = req_timer(req);
    int robust = ts->adaptive, paced = ts->paced;
    kb_h5w_attr_str(w, g, "timer", kb_timer_name((kb_timer_kind)req->timer));
    kb_h5w_attr_i64(w, g, "warmup", req->warmup);
    kb_h5w_attr_i64(w, g, "trials_requested", robust ? req->max_samples : req->trials);
    kb_h5w_attr_i64(w, g, "flush_l2", req->flush_l2);
    kb_h5w_attr_i64(w, g, "regen_inputs", req->regen_inputs);
    kb_h5w_attr_str(w, g, "stop_reason", h->stop_reason);
    kb_h5w_attr_i64(w, g, "n", (int64_t)k);
    kb_h5w_attr_i64(w, g, "n_excluded", h->excluded);
    kb_h5w_attr_f64(w, g, "mean_ms", sm.mean);
    kb_h5w_attr_f64(w, g, "median_ms", sm.median);
    kb_h5w_attr_f64(w, g, "stddev_ms", sm.stddev);
    kb_h5w_attr_f64(w, g, "min_ms", sm.min);
    kb_h5w_attr_f64(w, g, "max_ms", sm.max);
    kb_h5w_attr_f64(w, g, "median_ci_lo_ms", sm.median_ci_lo);
    kb_h5w_attr_f64(w, g, "median_ci_hi_ms", sm.median_ci_hi);
    kb_h5w_attr_f64(w, g, "median_rel_ci", sm.median_rel_ci);
    kb_h5w_attr_f64(w, g, "overhead_ms", h->overhead_ms);
    kb_h5w_attr_f64(w, g, "reported_ms", kb_timing_reported_ms(req, h, s));
    kb_h5w_attr_str(w, g, "reported_statistic",
                    ts->statistic == KB_STAT_MEDIAN_MINUS_OVERHEAD ? "median - overhead_ms" : "mean");
    kb_h5w_attr_f64(w, g, "wall_median_ms", sw.median);
    kb_h5w_attr_f64(w, g, "flush_bytes", h->flush_bytes);
    kb_h5w_attr_i64(w, g, "throttle_samples", h->throttle_samples);
    kb_h5w_attr_f64(w, g, "total_s", h->total_s);
    kb_h5w_attr_f64(w, g, "clock_tol", paced ? req->clock_tol : 0.0);
    kb_h5w_attr_f64(w, g, "pace", paced ? req->pace : 0.0);
    kb_h5w_attr_f64(w, g, "ref_clock_mhz", h->ref_clock_mhz);
    kb_h5w_attr_i64(w, g, "guard_gave_up", h->guard_gave_up);
    kb_h5w_attr_f64(w, g, "recovery_s", h->recovery_s);
    free(f);
    free(wall);
    free(v);
    free(ev);
    return kb_h5w_ok(w, NULL);
}

int kb_record_cmp(kb_h5w *w, const char *g, const kb_cmp_stats *st, size_t n)
{
    double *f = calloc(n ? n : 1, sizeof *f);
    int64_t *k = calloc(n ? n : 1, sizeof *k);
    if (!f || !k) {
        free(f);
        free(k);
        return -1;
    }
    char p[512];
    kb_h5w_group(w, g);
#define F64(field, units) COLUMN(kb_h5w_f64v, f, st, field, #field, units)
#define I64(field) COLUMN(kb_h5w_i64v, k, st, field, #field, "elements")
    I64(n);
    I64(n_nan_out);
    I64(n_nan_ref);
    I64(n_inf_ref);
    I64(n_fail);
    I64(n_bitwise_diff);
    I64(worst_index);
    F64(tau, "1");
    F64(tau_req, "1");
    F64(worst_ref, "output units");
    F64(worst_out, "output units");
    F64(max_abs_err, "output units");
    F64(max_abs_ref, "output units");
    F64(sum_sq_err, "output units^2");
    F64(sum_sq_ref, "output units^2");
    F64(scaled_excess, "1");
#undef F64
#undef I64
    free(f);
    free(k);
    return kb_h5w_ok(w, NULL);
}

int kb_record_calls(kb_h5w *w, const char *g, const kb_msg_called *c, size_t n)
{
    double *f = calloc(n ? n : 1, sizeof *f);
    int64_t *k = calloc(n ? n : 1, sizeof *k);
    if (!f || !k) {
        free(f);
        free(k);
        return -1;
    }
    char p[512];
    kb_h5w_group(w, g);
    COLUMN(kb_h5w_f64v, f, c, event_ms, "event_ms", "ms");
    COLUMN(kb_h5w_f64v, f, c, wall_ms, "wall_ms", "ms");
    COLUMN(kb_h5w_f64v, f, c, device_sync_ms, "device_sync_ms", "ms");
    COLUMN(kb_h5w_i64v, k, c, threads_before, "threads_before", "threads");
    COLUMN(kb_h5w_i64v, k, c, threads_after, "threads_after", "threads");
    COLUMN(kb_h5w_i64v, k, c, rc, "return_code", NULL);
    /* a .py target's account of each call (extension calls, library ops, its exception) */
    const char **notes = calloc(n ? n : 1, sizeof *notes);
    if (notes) {
        for (size_t i = 0; i < n; i++)
            notes[i] = c[i].note;
        snprintf(p, sizeof p, "%s/note", g);
        kb_h5w_strv(w, p, notes, n);
        free(notes);
    }
    free(f);
    free(k);
    return kb_h5w_ok(w, NULL);
}

double kb_read_reported_ms(kb_h5r *r, const char *group)
{
    double v = NAN;
    if (kb_h5r_attr_f64(r, group, "reported_ms", &v, NULL) != 0)
        return NAN;
    return v;
}
