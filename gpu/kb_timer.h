/*
 * kb_timer.h -- the two timers behind one interface; kernels and baselines are timed by the
 * same code with the same settings (kb-runner calls it for both).
 *
 * Every sample, warm-ups included, goes through the same steps with all instrumentation on:
 *   prepare(sample)          optional, untimed: e.g. re-draw the inputs (strict)
 *   [flush L2]               robust timer: cudaMemsetAsync over 2 x the device's L2 size
 *   device synchronise; host clock t0
 *   [blocking kernel; clock stamp]     robust timer (below)
 *   event e0; forward(); event e1      on the given stream
 *   [clock stamp; release the blocker] robust timer
 *   synchronise e1; host clock t1; device synchronise; host clock t2
 *   SM clock, clock-event reasons, board power, GPU temperature (NVML)
 *   [pacing idle; clock guard]         robust timer (below)
 * event_ms = e1 - e0 (the reported time); wall_ms = t2 - t0 (includes launch overhead and any
 * work that escaped the stream: compare the two, docs/protocols.md's "stream confinement").
 *
 * Paper timer: warm-up calls, then exactly `trials` samples; the paper reports their MEAN.
 * The robust timer also queues a blocking kernel before e0 and releases it after e1 is queued
 * (nvbench's method), so the events bracket the GPU work and not the host's launch latency;
 * wall_ms then counts from the release. If forward() synchronises on the device itself, the
 * blocker times out; the sample is discarded, the rest are taken unblocked (recorded), and the
 * overhead is calibrated again the unblocked way.
 * Before sampling, the robust timer times an empty kernel the same way (30 times) and reports
 * median - that overhead; the paper timer reports its mean uncorrected, as the paper does.
 * Robust timer: at least min_samples, then stop as soon as the median's distribution-free 95%
 * confidence interval has a half-width <= noise x median ("noise"), or at max_samples
 * ("max_samples"), or when max_time_s of timing has elapsed ("max_time"); the reason is kept.
 *
 * Robust timer, power state. Run back to back, a compute-bound call drives the board into its
 * power limit within a second: on the H200, cuDNN's conv2d (4 ms) runs at 1828 MHz when it
 * starts from a rested GPU and sinks to 1751 MHz after 17 back-to-back samples, 3.6% slower
 * (bench/power-state.sh, docs/measurements.md). What ran before sets how far it sinks, which made
 * its robust median differ by up to 6% between runs. So every sample starts from the same state:
 *   - clock stamps (kb_dev_stamp) around e0..e1 give each sample's mean SM clock
 *     (clock_avg_mhz; SM 0's cycle counter against %globaltimer, +-1.6 MHz at 10 us);
 *   - pacing: after each sample the GPU idles `pace` times the sample's whole cycle (inputs,
 *     flush, call, read-back), so it is busy at most 1 / (1 + pace) of the time;
 *   - clock guard: the reference is the highest stamped clock of the run so far (a call's own
 *     clock: tensor-core work runs below the max clock from its first microsecond, 1740 MHz for
 *     a TF32 GEMM). A sample more than clock_tol below it is kept but excluded from the
 *     statistics, and the GPU idles 50 ms, doubling per consecutive exclusion up to 1 s. If a
 *     sample is still slow after the 1 s idle, or max_samples samples have been excluded in
 *     all, the guard gives up (recorded) and later samples count as they come; so a run holds
 *     at most 2 x max_samples samples, the room its reply has (gpu/session.c).
 * Statistics, the stopping rule and the reported time use the included samples only.
 */
#ifndef KB_TIMER_H
#define KB_TIMER_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "core/kb_config.h"
#include "core/kb_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*kb_forward_fn)(void *user);          /* enqueue one call; 0 = ok */
typedef int (*kb_prepare_fn)(void *user, int sample); /* before a sample, untimed; 0 = ok */

typedef struct kb_timer_opts {
    int warmup;
    int trials;
    int min_samples, max_samples;
    double noise;
    double max_time_s;
    double clock_tol; /* robust timer: clock guard tolerance (0 = off) */
    double pace;      /* robust timer: idle pace x the sample's cycle time after each sample */
    double ref_clock_mhz; /* robust timer: the guard's starting reference (0 = none: the first
                             sample's clock); tests use it to force exclusions */
    int flush_l2;
    int blocking; /* the timer's parts, from its KB_TIMER row (kb_settings.def): a blocking   */
    int adaptive; /* kernel holds each launch; samples until the CI is tight (else TRIALS);  */
    int paced;    /* PACE and the clock guard apply                                           */
    int device; /* for the L2 size and NVML */
} kb_timer_opts;

typedef struct kb_timer_result {
    int status;            /* 0 ok; -1 forward() failed (see forward_rc / cuda_error) */
    int forward_rc;
    int cuda_error;        /* cudaError_t seen while timing */
    size_t n;
    kb_msg_sample *samples; /* malloc'd, n entries */
    char stop_reason[32];
    double flush_bytes;
    double total_s;
    int throttle_samples;
    int unblocked_fallback; /* robust timer: the blocking kernel had to be given up */
    double overhead_ms;     /* robust timer: median event time of an empty kernel timed the same way */
    int excluded;           /* robust timer: samples the clock guard excluded (kept, flagged) */
    int guard_gave_up;      /* robust timer: the clock stayed low after the longest recovery */
    double ref_clock_mhz;   /* robust timer: the guard's reference at the end (highest clock) */
    double recovery_s;      /* robust timer: idle time spent letting the clock recover */
} kb_timer_result;

/* Options from a timing request (kb_time_request makes one from the config: the protocol's
 * timer, or the one named by --timer). */
void kb_timer_opts_from_request(const kb_msg_time *t, int device, kb_timer_opts *o);

int kb_timer_run(const kb_timer_opts *o, cudaStream_t stream, kb_forward_fn forward, kb_prepare_fn prepare, void *user,
                 kb_timer_result *res);
void kb_timer_result_free(kb_timer_result *res);

#ifdef __cplusplus
}
#endif

#endif /* KB_TIMER_H */
