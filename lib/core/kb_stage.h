/*
 * kb_stage.h -- what the stage mains share: command-line parsing (stage options plus the
 * protocol options of kb_config.h), --help, and the layout of recorded measurements in the
 * artifacts (timing groups, comparison statistics, per-call records). docs/artifacts.md is the
 * schema these functions implement.
 */
#ifndef KB_STAGE_H
#define KB_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/kb_close.h"
#include "core/kb_config.h"
#include "core/kb_h5.h"
#include "core/kb_msg.h"
#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One stage option: --name VALUE into *value, or a flag (value == NULL) into *flag. */
typedef struct kb_opt {
    const char *name;
    const char **value;
    int *flag;
    const char *help;
} kb_opt;

/* Parses argv. --help prints `usage`, the options and the protocol options, and returns 1
 * (the caller exits 0). Returns 0 on success, -1 with err (KB_EXIT_USAGE) otherwise. Options
 * marked required by a leading '*' in their help must be present. */
int kb_stage_parse(int argc, char **argv, const char *usage, const kb_opt *opts, size_t n_opts, kb_config *cfg,
                   kb_err *err);

/* Prints "kb-<stage>: <message>" to stderr and returns the exit code in err. */
int kb_stage_fail(const char *stage, const kb_err *err);

/* ---- recording measurements ----------------------------------------------------------------- */

/* A timing run: datasets event_ms, wall_ms, sm_clock_mhz, throttle_reasons under `group`, and
 * attributes timer, warmup, requested trials, stop_reason, n, mean_ms, median_ms, stddev_ms,
 * min_ms, max_ms, median_ci_lo_ms, median_ci_hi_ms, median_rel_ci, reported_ms (the protocol's
 * statistic: mean for the paper timer, median for the robust one), wall_median_ms,
 * flush_bytes, throttle_samples, total_s. */
int kb_record_timing(kb_h5w *w, const char *group, const kb_msg_time *req, const kb_msg_timed *h,
                     const kb_msg_sample *s);

/* The protocol's statistic of a timing run in ms, over the samples not excluded: the mean of
 * the event times for the paper timer; for the robust one their median minus the calibrated
 * overhead, but never below KB_EVENT_RESOLUTION_MS (a call that puts no work on its stream
 * times below an empty kernel, and the difference would go negative). NaN without samples.
 * kb_record_timing stores it as reported_ms; progress lines print it. */
double kb_timing_reported_ms(const kb_msg_time *req, const kb_msg_timed *h, const kb_msg_sample *s);
/* The resolution of CUDA event timing (cudaEventElapsedTime: "around 0.5 microseconds"). */
#define KB_EVENT_RESOLUTION_MS 0.0005

/* Comparison statistics of n comparisons of one output, as arrays under `group`. */
int kb_record_cmp(kb_h5w *w, const char *group, const kb_cmp_stats *st, size_t n);

/* Per-call records (event and wall time, device-sync time, threads) of n calls. */
int kb_record_calls(kb_h5w *w, const char *group, const kb_msg_called *c, size_t n);

/* A timing request from the config. */
void kb_time_request(const kb_config *cfg, kb_msg_time *t, uint64_t regen_seed);

/* The reported time of a timing group (attribute reported_ms), NaN if missing. */
double kb_read_reported_ms(kb_h5r *r, const char *group);

#ifdef __cplusplus
}
#endif

#endif /* KB_STAGE_H */
