/*
 * test_timing.c -- the timing record (lib/core/stage.c): what the artifact says about a set of raw
 * samples, computed by hand here.
 *   - the reported time: paper timer = mean, robust timer = median - calibrated overhead;
 *   - samples the robust timer's clock guard excluded are archived (every raw sample is kept,
 *     with its flag) but left out of every statistic and of the reported time;
 *   - the per-sample power-state datasets (clock_avg_mhz, power_w, temp_c) are written as given.
 */
#include "kbt.h"

#include <math.h>

#include "core/kb_h5.h"
#include "core/kb_stage.h"

/* 7 samples: 5 included (1, 2, 3, 4, 10 ms) and 2 excluded (100, 200 ms: a throttled clock). */
static const double ev[] = {3.0, 100.0, 1.0, 10.0, 200.0, 2.0, 4.0};
static const int excl[] = {0, 1, 0, 0, 1, 0, 0};
#define N (sizeof ev / sizeof ev[0])

static void fill(kb_msg_sample *s, kb_msg_timed *h, double overhead)
{
    memset(h, 0, sizeof *h);
    h->n = (int32_t)N;
    h->overhead_ms = overhead;
    h->excluded = 2;
    h->ref_clock_mhz = 1980.0;
    h->recovery_s = 0.15;
    snprintf(h->stop_reason, sizeof h->stop_reason, "noise");
    for (size_t i = 0; i < N; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].event_ms = ev[i];
        s[i].wall_ms = ev[i] + 0.5;
        s[i].sm_clock_mhz = excl[i] ? 1905.0 : 1980.0;
        s[i].clock_avg_mhz = excl[i] ? 1890.0 + (double)i : 1979.0 + (double)i;
        s[i].power_w = 400.0 + (double)i;
        s[i].temp_c = 40.0 + (double)i;
        s[i].excluded = excl[i];
        s[i].blocked = 1;
    }
}

/* The request a protocol's stages send (its timer and knobs). */
static kb_msg_time request(kb_protocol_id p, kb_config *c)
{
    kb_msg_time req;
    kb_config_defaults(c, p);
    kb_time_request(c, &req, 1);
    return req;
}

static void test_reported(void **state)
{
    (void)state;
    kb_msg_sample s[N];
    kb_msg_timed h;
    kb_config c;
    kb_msg_time req = request(KB_PROTO_STRICT, &c);
    fill(s, &h, 0.25);
    /* included: 1 2 3 4 10 -> median 3, minus 0.25 */
    double r = kb_timing_reported_ms(&req, &h, s);
    KBT_CHECK(fabs(r - 2.75) < 1e-12, "robust: reported %.17g, want 2.75 (median of included 3 - overhead 0.25)", r);
    req = request(KB_PROTO_PAPER, &c);
    /* the paper timer never excludes; if a flag were set, the mean is still of included ones */
    r = kb_timing_reported_ms(&req, &h, s);
    KBT_CHECK(fabs(r - 4.0) < 1e-12, "paper: reported %.17g, want 4 (mean of 1 2 3 4 10)", r);
    for (size_t i = 0; i < N; i++)
        s[i].excluded = 0;
    r = kb_timing_reported_ms(&req, &h, s);
    KBT_CHECK(fabs(r - 320.0 / 7.0) < 1e-12, "paper, nothing excluded: reported %.17g, want 320/7", r);
    /* a call with no work on its stream: events closer together than an empty kernel's */
    req = request(KB_PROTO_STRICT, &c);
    fill(s, &h, 20.0);
    r = kb_timing_reported_ms(&req, &h, s);
    KBT_CHECK(r == KB_EVENT_RESOLUTION_MS, "robust, median 3 - overhead 20: reported %.17g, want the floor %g", r,
              KB_EVENT_RESOLUTION_MS);
    h.n = 0;
    r = kb_timing_reported_ms(&req, &h, s);
    KBT_CHECK(isnan(r), "no samples: reported %g, want NaN", r);
    print_message("reported time: robust = median of included - overhead (2.75), never below %g ms; paper = mean of "
                  "included (4); NaN without samples\n",
                  KB_EVENT_RESOLUTION_MS);
}

/* The child's timer is told the timer's parts from its KB_TIMER row, never its name. */
static void test_request_parts(void **state)
{
    (void)state;
    for (int t = 0; t < KB_N_TIMERS; t++) {
        kb_config c;
        kb_config_defaults(&c, KB_PROTO_PAPER);
        c.timer = kb_timers[t].id;
        kb_msg_time req;
        kb_time_request(&c, &req, 1);
        KBT_CHECK(req.flush_l2 == kb_timers[t].flush_l2 && req.blocking == kb_timers[t].blocking &&
                      req.adaptive == kb_timers[t].adaptive && req.paced == kb_timers[t].paced,
                  "timer %s: request parts flush %d blocking %d adaptive %d paced %d differ from its row",
                  kb_timers[t].name, req.flush_l2, req.blocking, req.adaptive, req.paced);
    }
    kb_config c;
    kb_msg_time req = request(KB_PROTO_STRICT, &c);
    KBT_CHECK(req.blocking && req.adaptive && req.paced && req.flush_l2, "strict's robust timer lost a part");
    req = request(KB_PROTO_PAPER, &c);
    KBT_CHECK(!req.blocking && !req.adaptive && !req.paced && !req.flush_l2, "the paper timer gained a part");
}

static void test_record(void **state)
{
    (void)state;
    kb_msg_sample s[N];
    kb_msg_timed h;
    kb_config c;
    kb_msg_time req = request(KB_PROTO_STRICT, &c);
    fill(s, &h, 0.25);
    char *dir = kbt_tmpdir("timing");
    assert_non_null(dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/t.h5", dir);
    kb_err err = {0};
    kb_h5w *w = kb_h5w_create(path, &err);
    assert_non_null(w);
    KBT_CHECK(kb_record_timing(w, "/timing/kernel", &req, &h, s) == 0, "kb_record_timing failed");
    KBT_CHECK(kb_h5w_commit(w, &err) == 0, "commit: %s", err.msg);
    kb_h5r *r = kb_h5r_open(path, &err);
    assert_non_null(r);
    const char *g = "/timing/kernel";
    const struct {
        const char *name;
        double want;
    } attrs[] = {
        {"n", 5},          {"n_excluded", 2},      {"median_ms", 3.0},     {"mean_ms", 4.0},
        {"min_ms", 1.0},   {"max_ms", 10.0},       {"reported_ms", 2.75},  {"overhead_ms", 0.25},
        {"wall_median_ms", 3.5}, {"ref_clock_mhz", 1980.0}, {"recovery_s", 0.15}, {"clock_tol", c.clock_tol},
        {"pace", c.pace},  {"guard_gave_up", 0},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        double v = NAN;
        KBT_CHECK(kb_h5r_attr_f64(r, g, attrs[i].name, &v, &err) == 0, "%s@%s: %s", g, attrs[i].name, err.msg);
        KBT_CHECK(fabs(v - attrs[i].want) < 1e-12, "%s@%s = %.17g, want %g", g, attrs[i].name, v, attrs[i].want);
    }
    /* every raw sample is archived, excluded ones included, in the order taken */
    double *d;
    int64_t *k;
    size_t n;
    assert_int_equal(kb_h5r_f64(r, "/timing/kernel/event_ms", &d, &n, &err), 0);
    KBT_CHECK(n == N, "event_ms has %zu entries, want %zu (all raw samples)", n, N);
    for (size_t i = 0; i < N; i++)
        KBT_CHECK(d[i] == ev[i], "event_ms[%zu] = %g, want %g", i, d[i], ev[i]);
    free(d);
    assert_int_equal(kb_h5r_i64(r, "/timing/kernel/excluded", &k, &n, &err), 0);
    KBT_CHECK(n == N, "excluded has %zu entries", n);
    for (size_t i = 0; i < N; i++)
        KBT_CHECK(k[i] == excl[i], "excluded[%zu] = %lld, want %d", i, (long long)k[i], excl[i]);
    free(k);
    const char *per[] = {"clock_avg_mhz", "power_w", "temp_c", "sm_clock_mhz", "wall_ms"};
    for (size_t j = 0; j < sizeof per / sizeof per[0]; j++) {
        char p[128];
        snprintf(p, sizeof p, "%s/%s", g, per[j]);
        assert_int_equal(kb_h5r_f64(r, p, &d, &n, &err), 0);
        KBT_CHECK(n == N, "%s has %zu entries", p, n);
        for (size_t i = 0; i < N; i++) {
            double want = j == 0 ? s[i].clock_avg_mhz
                          : j == 1 ? s[i].power_w
                          : j == 2 ? s[i].temp_c
                          : j == 3 ? s[i].sm_clock_mhz
                                   : s[i].wall_ms;
            KBT_CHECK(d[i] == want, "%s[%zu] = %g, want %g", p, i, d[i], want);
        }
        free(d);
    }
    char str[64];
    assert_int_equal(kb_h5r_attr_str(r, g, "reported_statistic", str, sizeof str, &err), 0);
    KBT_CHECK(!strcmp(str, "median - overhead_ms"), "reported_statistic %s", str);
    kb_h5r_close(r);
    kbt_rmtree(dir);
    free(dir);
    print_message("timing record: 7 raw samples archived with their flags; statistics over the 5 included\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reported),
        cmocka_unit_test(test_request_parts),
        cmocka_unit_test(test_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
