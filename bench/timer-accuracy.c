/*
 * kb-bench-timer-accuracy -- how well do the two timers measure kernels of known duration?
 *
 * A single-thread kernel spins on %globaltimer for the target duration and records, on the
 * device, when it started and stopped: that in-kernel duration is the truth. Each timer (paper:
 * mean of event-timed calls after warm-ups; robust: cold L2, median, adaptive) then times the
 * same kernel through kb_timer_run, exactly as it times submissions, and we report
 * rel_err = (measured - truth) / truth. The difference is the timer's own overhead and error:
 * event records around a launch, launch latency, clock granularity.
 * Prints CSV: target_us,timer,truth_us,measured_us,rel_err (and writes it to --out if given).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kb_gpu.h"
#include "core/kb_stage.h"
#include "core/kb_stats.h"
#include "kb_timer.h"

typedef struct spin_arg {
    double ns;
    cudaStream_t s;
} spin_arg;

static int fwd(void *u)
{
    spin_arg *a = u;
    return kb_dev_spin(a->ns, a->s);
}

int main(int argc, char **argv)
{
    if (kb_version_arg(argc, argv, "kb-bench-timer-accuracy"))
        return 0;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("kb-bench-timer-accuracy [--out FILE.csv]: timer error on kernels of known duration (GPU).\n"
                   "Exit codes: 0 done; 2 bad command line; 3 no usable CUDA device.\n");
            return 0;
        }
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else {
            fprintf(stderr, "kb-bench-timer-accuracy: unexpected argument '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    int dev;
    int lock;
    kb_err err;
    if (kb_gpu_acquire("0", KB_LOCK_TIMING, &dev, &lock, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return err.code;
    }
    cudaStream_t s;
    cudaStreamCreate(&s);
    FILE *f = out ? fopen(out, "w") : NULL;
    const char *hdr = "target_us,timer,truth_us,measured_us,rel_err,clock_avg_mhz,clock_avg_sd_mhz,excluded\n";
    printf("%s", hdr);
    if (f)
        fputs(hdr, f);
    double targets[] = {10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        spin_arg a = {targets[t] * 1000.0, s};
        /* truth: the kernel's own duration, by the same clock it spins on */
        double truth = kb_dev_spin_measured(a.ns, s);
        for (int k = 0; k < 2; k++) {
            /* each timer with its protocol's defaults (paper / strict) */
            kb_config cfg;
            kb_config_defaults(&cfg, k ? KB_PROTO_STRICT : KB_PROTO_PAPER);
            kb_msg_time req;
            kb_time_request(&cfg, &req, 0);
            kb_timer_opts o;
            kb_timer_opts_from_request(&req, dev, &o);
            if (targets[t] >= 20000)
                o.trials = 20;
            o.max_time_s = 5.0;
            kb_timer_result r;
            if (kb_timer_run(&o, s, fwd, NULL, &a, &r) != 0) {
                fprintf(stderr, "timer failed\n");
                return 1;
            }
            double *ev = malloc((r.n + 1) * sizeof *ev), *clk = malloc((r.n + 1) * sizeof *clk);
            size_t ne = 0, nc = 0;
            for (size_t i = 0; i < r.n; i++) {
                if (!r.samples[i].excluded)
                    ev[ne++] = r.samples[i].event_ms * 1000.0;
                if (isfinite(r.samples[i].clock_avg_mhz))
                    clk[nc++] = r.samples[i].clock_avg_mhz;
            }
            /* each timer's reported statistic: paper = mean; robust = median - overhead */
            double m = k ? kb_median(ev, ne) - r.overhead_ms * 1000.0 : kb_stats_mean(ev, ne);
            kb_summary cs;
            kb_summarize(clk, nc, &cs);
            char line[256];
            snprintf(line, sizeof line, "%.0f,%s,%.3f,%.3f,%.6f,%.1f,%.2f,%d\n", targets[t], k ? "robust" : "paper",
                     truth, m, (m - truth) / truth, cs.median, cs.stddev, r.excluded);
            free(clk);
            printf("%s", line);
            if (f)
                fputs(line, f);
            free(ev);
            kb_timer_result_free(&r);
        }
    }
    if (f)
        fclose(f);
    return 0;
}
