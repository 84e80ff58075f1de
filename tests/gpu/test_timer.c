/*
 * GPU suite: the robust timer's power-state instruments (gpu/kb_timer.h).
 *   - clock stamps: the mean SM clock over a spin kernel is a plausible clock (above half the
 *     device's max, at most 2% over it);
 *   - the robust timer on a kernel of known duration: every sample carries a clock, power and
 *     temperature, the reported time is within 1% of the truth, and a low-power kernel is not
 *     excluded;
 *   - the clock guard gives up when the clock cannot reach the reference: with a reference of 10x
 *     the device's max clock, six samples are excluded with recoveries of 0.05 ... 1 s (2.55 s),
 *     then the guard gives up and the rest count;
 *   - a forward that synchronises the device itself defeats the blocking kernel: the timer falls
 *     back to unblocked samples, says so and re-calibrates its overhead unblocked; a 1 ms spin
 *     is reported within -10 .. +100 us (the host's synchronisation is part of such a call).
 * Needs a CUDA device.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cuda_runtime_api.h>

#include "core/kb_config.h"
#include "core/kb_stage.h"
#include "kb_gpu.h"
#include "core/kb_stats.h"
#include "kb_timer.h"

typedef struct spin {
    double ns;
    cudaStream_t stream;
} spin;

static int fwd(void *user)
{
    spin *a = user;
    return kb_dev_spin(a->ns, a->stream);
}

static void test_stamps(void **state)
{
    (void)state;
    unsigned long long *rec, h[6];
    assert_int_equal(cudaMalloc((void **)&rec, sizeof h), cudaSuccess);
    double max = kb_gpu_max_sm_clock_mhz(0);
    assert_true(max > 0);
    int known = 0;
    for (int i = 0; i < 10; i++) {
        assert_int_equal(kb_dev_stamp(rec, 0), 0);
        assert_int_equal(kb_dev_spin(2e6, 0), 0);
        assert_int_equal(kb_dev_stamp(rec + 3, 0), 0);
        assert_int_equal(cudaMemcpy(h, rec, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
        if (!h[0] || !h[3])
            continue; /* no block ran on SM 0: unknown, allowed */
        known++;
        double ns = (double)(h[4] - h[1]), mhz = (double)(h[5] - h[2]) / ns * 1e3;
        print_message("stamps: %.0f ns span, %.1f MHz (max %.0f)\n", ns, mhz, max);
        assert_true(ns >= 2e6);
        assert_true(mhz > 0.5 * max && mhz <= 1.02 * max);
    }
    assert_true(known >= 5);
    cudaFree(rec);
}

/* The strict protocol's robust timer, with room for the guard's recoveries. */
static void strict_opts(kb_timer_opts *o)
{
    kb_config c;
    kb_config_defaults(&c, KB_PROTO_STRICT);
    kb_msg_time req;
    kb_time_request(&c, &req, 0);
    kb_timer_opts_from_request(&req, 0, o);
    o->max_time_s = 10.0;
}

static void run(double ns, double ref, kb_timer_result *r, double *truth)
{
    kb_timer_opts o;
    strict_opts(&o);
    o.ref_clock_mhz = ref;
    spin a = {ns, 0};
    cudaStreamCreate(&a.stream);
    *truth = kb_dev_spin_measured(ns, a.stream) * 1e-3;
    assert_int_equal(kb_timer_run(&o, a.stream, fwd, NULL, &a, r), 0);
    cudaStreamDestroy(a.stream);
}

static void test_robust_spin(void **state)
{
    (void)state;
    kb_timer_result r;
    double truth;
    run(1e6, 0, &r, &truth);
    double *ev = malloc(r.n * sizeof *ev);
    size_t k = 0, clocks = 0;
    for (size_t i = 0; i < r.n; i++) {
        if (!r.samples[i].excluded)
            ev[k++] = r.samples[i].event_ms;
        clocks += isfinite(r.samples[i].clock_avg_mhz);
        assert_true(isfinite(r.samples[i].power_w) && r.samples[i].power_w > 0);
        assert_true(isfinite(r.samples[i].temp_c) && r.samples[i].temp_c > 0);
    }
    double rep = kb_median(ev, k) - r.overhead_ms;
    print_message("robust timer, 1 ms spin: %zu samples (%d excluded, stop %s), %zu with a clock; reported %.4f ms, "
                  "truth %.4f ms, error %+.3f%%; ref clock %.0f MHz\n",
                  r.n, r.excluded, r.stop_reason, clocks, rep, truth, 100 * (rep - truth) / truth, r.ref_clock_mhz);
    assert_true(fabs(rep - truth) / truth < 0.01);
    assert_true(clocks >= r.n / 2);
    assert_int_equal(r.excluded, 0);
    assert_int_equal(r.guard_gave_up, 0);
    free(ev);
    kb_timer_result_free(&r);
}

static void test_guard_gives_up(void **state)
{
    (void)state;
    kb_timer_result r;
    double truth;
    run(5e5, 10 * kb_gpu_max_sm_clock_mhz(0), &r, &truth);
    print_message("clock guard, unreachable reference %.0f MHz: %d excluded, gave up %d, recovery %.2f s, %zu samples\n",
                  r.ref_clock_mhz, r.excluded, r.guard_gave_up, r.recovery_s, r.n);
    assert_int_equal(r.guard_gave_up, 1);
    /* the warm-ups (3) take the first exclusions; the timed samples get the rest */
    size_t flagged = 0;
    for (size_t i = 0; i < r.n; i++)
        flagged += r.samples[i].excluded != 0;
    assert_int_equal((int)flagged, r.excluded);
    assert_true(fabs(r.recovery_s - 2.55) < 1e-9);
    /* what the reply to the parent can hold (gpu/session.c): at most 2 x max_samples */
    kb_timer_opts o;
    strict_opts(&o);
    assert_true(r.n <= 2 * (size_t)o.max_samples);
    kb_timer_result_free(&r);
}

/* A forward that waits on the device itself: the blocking kernel cannot be released while the
 * host sits in cudaDeviceSynchronize, so it times out (200 ms); the timer must notice, drop that
 * sample and time the rest unblocked. */
static int fwd_sync(void *user)
{
    spin *a = user;
    if (kb_dev_spin(a->ns, a->stream) != 0)
        return -1;
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

static void test_blocker_fallback(void **state)
{
    (void)state;
    kb_timer_opts o;
    strict_opts(&o);
    spin a = {1e6, 0};
    cudaStreamCreate(&a.stream);
    double truth = kb_dev_spin_measured(a.ns, a.stream) * 1e-3;
    kb_timer_result r;
    assert_int_equal(kb_timer_run(&o, a.stream, fwd_sync, NULL, &a, &r), 0);
    double *ev = malloc(r.n * sizeof *ev);
    size_t blocked = 0;
    for (size_t i = 0; i < r.n; i++) {
        ev[i] = r.samples[i].event_ms;
        blocked += r.samples[i].blocked != 0;
    }
    double rep = kb_median(ev, r.n) - r.overhead_ms;
    print_message("forward synchronising the device: fallback %d, %zu samples, %zu blocked, overhead re-calibrated "
                  "unblocked %.2f us, reported %.4f ms (truth %.4f ms, %+.3f%%), stop %s\n",
                  r.unblocked_fallback, r.n, blocked, r.overhead_ms * 1e3, rep, truth, 100 * (rep - truth) / truth,
                  r.stop_reason);
    assert_int_equal(r.unblocked_fallback, 1);
    assert_int_equal((int)blocked, 0);
    assert_true(r.n >= 20);
    /* unblocked, the events also hold the host's part of the call: the synchronisation's return
     * and the end event's launch come after the spin (tens of us on the H200) */
    assert_true(rep > truth - 0.01 && rep < truth + 0.1);
    free(ev);
    kb_timer_result_free(&r);
    cudaStreamDestroy(a.stream);
}

int main(void)
{
    if (cudaSetDevice(0) != cudaSuccess || cudaFree(0) != cudaSuccess) {
        fprintf(stderr, "test_timer: no CUDA device\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stamps),
        cmocka_unit_test(test_robust_spin),
        cmocka_unit_test(test_guard_gives_up),
        cmocka_unit_test(test_blocker_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
