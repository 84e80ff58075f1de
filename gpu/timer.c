/* timer.c -- see kb_timer.h. */
#include "kb_timer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kb_gpu.h"
#include "core/kb_stats.h"

void kb_timer_opts_from_request(const kb_msg_time *t, int device, kb_timer_opts *o)
{
    memset(o, 0, sizeof *o);
    o->warmup = t->warmup;
    o->trials = t->trials;
    o->min_samples = t->min_samples;
    o->max_samples = t->max_samples;
    o->noise = t->noise;
    o->max_time_s = t->max_time_s;
    o->clock_tol = t->clock_tol;
    o->pace = t->pace;
    o->flush_l2 = t->flush_l2;
    o->blocking = t->blocking;
    o->adaptive = t->adaptive;
    o->paced = t->paced;
    o->device = device;
}

static int push(kb_timer_result *r, size_t *cap, kb_msg_sample s)
{
    if (r->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 128;
        kb_msg_sample *ns = realloc(r->samples, nc * sizeof *ns);
        if (!ns)
            return -1;
        r->samples = ns;
        *cap = nc;
    }
    r->samples[r->n++] = s;
    return 0;
}

/* Relative half-width of the median's 95% CI over the event times so far. */
static double median_noise(const kb_timer_result *r)
{
    double *x = malloc(r->n * sizeof *x);
    if (!x)
        return INFINITY;
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        if (!r->samples[i].excluded)
            x[k++] = r->samples[i].event_ms;
    kb_summary s;
    kb_summarize(x, k, &s);
    free(x);
    return isnan(s.median_rel_ci) ? INFINITY : s.median_rel_ci;
}

static void sleep_s(double s)
{
    if (!(s > 0))
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Mean SM clock (MHz) between the robust timer's two clock stamps, stamp[0..2] and stamp[3..5]
 * in device memory (kb_dev_stamp); NaN if unknown. */
static double stamps_clock(const unsigned long long *stamp)
{
    unsigned long long h[6];
    if (!stamp || cudaMemcpy(h, stamp, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess)
        return NAN;
    if (!h[0] || !h[3] || h[4] <= h[1] || h[5] <= h[2])
        return NAN;
    return (double)(h[5] - h[2]) / (double)(h[4] - h[1]) * 1e3;
}

/* The clock guard's verdict on one sample (kb_timer.h): slow if its stamped clock is more than
 * clock_tol below the reference, the highest stamped clock of this run so far (raised here). */
static int clock_slow(const kb_timer_opts *o, double *ref, const kb_msg_sample *s)
{
    if (!(o->clock_tol > 0) || !isfinite(s->clock_avg_mhz))
        return 0;
    if (!(s->clock_avg_mhz <= *ref)) { /* also when *ref is NaN: the first clock known */
        *ref = s->clock_avg_mhz;
        return 0;
    }
    return s->clock_avg_mhz < *ref * (1.0 - o->clock_tol);
}

/* Calibration of the robust timer: what timing an empty kernel costs by the same procedure
 * (blocked: the events and the kernel's launch on the GPU, ~3 us on an H200; unblocked, after a
 * fallback: also the host's launch latency). The robust timer's reported time is its median
 * minus this; raw samples stay raw. flag == NULL: the unblocked procedure. 0 if it failed. */
static double calibrate(cudaStream_t stream, cudaEvent_t e0, cudaEvent_t e1, volatile int *flag, int *state,
                        volatile int *flag_dev, int *state_dev, unsigned long long *stamp)
{
    double ovh[30];
    int k = 0;
    for (int i = 0; i < 30; i++) {
        if (flag) {
            *flag = 0;
            *state = 0;
            __sync_synchronize();
        }
        if (cudaDeviceSynchronize() != cudaSuccess ||
            (flag && kb_dev_block(flag_dev, state_dev, 2e8, stream) != 0))
            break;
        if (flag && stamp)
            kb_dev_stamp(stamp, stream);
        cudaEventRecord(e0, stream);
        kb_dev_empty(stream);
        cudaEventRecord(e1, stream);
        if (flag && stamp)
            kb_dev_stamp(stamp + 3, stream);
        if (flag) {
            __sync_synchronize();
            *flag = 1;
        }
        float ms = 0.0f;
        if (cudaEventSynchronize(e1) == cudaSuccess && (!flag || *state == 1) &&
            cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess)
            ovh[k++] = ms;
    }
    cudaGetLastError();
    return k >= 10 ? kb_median(ovh, (size_t)k) : 0.0;
}

int kb_timer_run(const kb_timer_opts *o, cudaStream_t stream, kb_forward_fn forward, kb_prepare_fn prepare, void *user,
                 kb_timer_result *res)
{
    memset(res, 0, sizeof *res);
    size_t cap = 0;
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
        res->status = -1;
        res->cuda_error = (int)cudaGetLastError();
        snprintf(res->stop_reason, sizeof res->stop_reason, "error");
        return -1;
    }
    void *flush = NULL;
    size_t flush_bytes = 0;
    if (o->flush_l2) {
        int l2 = 0;
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, o->device);
        flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
        if (cudaMalloc(&flush, flush_bytes) != cudaSuccess) {
            flush = NULL;
            flush_bytes = 0;
        }
    }
    res->flush_bytes = (double)flush_bytes;
    /* The robust timer holds each launch behind a blocking kernel (kb_dev_block) so that the
     * events bracket the GPU work, not the host's launch latency. */
    volatile int *block_flag = NULL, *block_flag_dev = NULL;
    int *block_state = NULL, *block_state_dev = NULL;
    if (o->blocking) {
        if (cudaHostAlloc((void **)&block_flag, sizeof(int), cudaHostAllocMapped) != cudaSuccess ||
            cudaHostAlloc((void **)&block_state, sizeof(int), cudaHostAllocMapped) != cudaSuccess ||
            cudaHostGetDevicePointer((void **)&block_flag_dev, (void *)block_flag, 0) != cudaSuccess ||
            cudaHostGetDevicePointer((void **)&block_state_dev, block_state, 0) != cudaSuccess) {
            if (block_flag)
                cudaFreeHost((void *)block_flag);
            if (block_state)
                cudaFreeHost(block_state);
            block_flag = NULL;
            block_state = NULL;
            cudaGetLastError();
        }
    }
    unsigned long long *stamp = NULL; /* two clock stamps of 3 words (robust timer) */
    if (o->blocking && cudaMalloc((void **)&stamp, 6 * sizeof *stamp) != cudaSuccess) {
        stamp = NULL;
        cudaGetLastError();
    }
    res->ref_clock_mhz = o->ref_clock_mhz > 0 ? o->ref_clock_mhz : NAN;
    if (block_flag)
        res->overhead_ms = calibrate(stream, e0, e1, block_flag, block_state, block_flag_dev, block_state_dev, stamp);
    int total = 0, timed = 0, rc = 0, slow_run = 0;
    double t_start = kb_now_s();
    const char *why = "trials";
    for (;;) {
        int is_warm = total < o->warmup;
        double t_cycle = kb_now_s();
        if (prepare && (rc = prepare(user, total)) != 0) {
            res->forward_rc = rc;
            why = "error";
            break;
        }
        if (flush)
            cudaMemsetAsync(flush, total & 0xff, flush_bytes, stream);
        cudaError_t ce = cudaDeviceSynchronize();
        if (ce != cudaSuccess) {
            res->cuda_error = (int)ce;
            why = "error";
            rc = -1;
            break;
        }
        int blocked = 0;
        if (block_flag) {
            *block_flag = 0;
            *block_state = 0;
            __sync_synchronize();
            blocked = kb_dev_block(block_flag_dev, block_state_dev, 2e8, stream) == 0;
        }
        if (block_flag && stamp)
            kb_dev_stamp(stamp, stream);
        uint64_t t0 = kb_now_ns();
        cudaEventRecord(e0, stream);
        rc = forward(user);
        cudaEventRecord(e1, stream);
        if (block_flag && stamp)
            kb_dev_stamp(stamp + 3, stream);
        if (blocked) {
            t0 = kb_now_ns(); /* wall time counts from the release */
            __sync_synchronize();
            *block_flag = 1;
        }
        ce = cudaEventSynchronize(e1);
        uint64_t t1 = kb_now_ns();
        cudaError_t ce2 = cudaDeviceSynchronize();
        uint64_t t2 = kb_now_ns();
        if (ce == cudaSuccess)
            ce = ce2;
        if (ce == cudaSuccess)
            ce = cudaGetLastError();
        if (rc != 0 || ce != cudaSuccess) {
            res->forward_rc = rc;
            res->cuda_error = (int)ce;
            why = "error";
            rc = -1;
            break;
        }
        (void)t1;
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        kb_msg_sample s;
        memset(&s, 0, sizeof s);
        if (blocked && *block_state != 1) {
            /* The blocker timed out before the release: forward() waited on the device itself
             * (a synchronising call inside it). Time this and every later sample unblocked. */
            blocked = 0;
            cudaFreeHost((void *)block_flag);
            cudaFreeHost(block_state);
            block_flag = NULL;
            block_state = NULL;
            res->unblocked_fallback = 1;
            /* the samples from here on include the host's launch latency: so does the overhead */
            res->overhead_ms = calibrate(stream, e0, e1, NULL, NULL, NULL, NULL, stamp);
            continue;
        }
        s.blocked = blocked;
        s.event_ms = ms;
        s.wall_ms = (double)(t2 - t0) * 1e-6;
        s.sm_clock_mhz = kb_gpu_sm_clock_mhz(o->device);
        s.throttle_reasons = kb_gpu_throttle_reasons(o->device);
        s.power_w = kb_gpu_power_w(o->device);
        s.temp_c = kb_gpu_temperature_c(o->device);
        s.clock_avg_mhz = blocked ? stamps_clock(stamp) : NAN;
        total++;
        if (o->paced) {
            /* pacing, then the clock guard (kb_timer.h) */
            sleep_s(o->pace * (kb_now_s() - t_cycle));
            if (!res->guard_gave_up && clock_slow(o, &res->ref_clock_mhz, &s)) {
                if (slow_run >= 6 || res->excluded >= o->max_samples) {
                    /* still slow after the longest recovery, or as many samples excluded as
                     * may be timed: a reply holds at most 2 x max_samples (gpu/session.c) */
                    res->guard_gave_up = 1;
                } else {
                    s.excluded = 1;
                    double d = 0.05 * (double)(1 << slow_run);
                    d = d > 1.0 ? 1.0 : d;
                    slow_run++;
                    sleep_s(d);
                    res->recovery_s += d;
                }
            } else {
                slow_run = 0;
            }
        }
        if (is_warm)
            continue;
        if (push(res, &cap, s) != 0) {
            why = "error";
            rc = -1;
            break;
        }
        if (s.throttle_reasons & KB_THROTTLE_SLOWDOWN_MASK)
            res->throttle_samples++;
        if (s.excluded) {
            res->excluded++;
            if (kb_now_s() - t_start >= o->max_time_s && timed >= 1) {
                why = "max_time";
                break;
            }
            continue;
        }
        timed++;
        if (!o->adaptive) {
            if (timed >= o->trials)
                break;
            continue;
        }
        if (timed >= o->max_samples) {
            why = "max_samples";
            break;
        }
        if (kb_now_s() - t_start >= o->max_time_s && timed >= 1) {
            why = "max_time";
            break;
        }
        if (timed >= o->min_samples && median_noise(res) <= o->noise) {
            why = "noise";
            break;
        }
    }
    res->total_s = kb_now_s() - t_start;
    snprintf(res->stop_reason, sizeof res->stop_reason, "%s", why);
    res->status = rc ? -1 : 0;
    if (flush)
        cudaFree(flush);
    if (stamp)
        cudaFree(stamp);
    if (block_flag)
        cudaFreeHost((void *)block_flag);
    if (block_state)
        cudaFreeHost(block_state);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return res->status;
}

void kb_timer_result_free(kb_timer_result *res)
{
    free(res->samples);
    res->samples = NULL;
    res->n = 0;
}
