/*
 * kb-bench-overhead -- what the harness costs.
 *   1. Per call: an empty kernel timed in-process by kb_timer_run, and the same empty kernel as
 *      a submission timed through kb-runner (child process, IPC tensors, sandbox): event and
 *      wall medians of both; the difference is what the harness adds to every timed call.
 *   2. Per cell: the phases of a GPU stage on a real problem (default level1/019_relu with a
 *      given submission): child start (process + CUDA context + IPC + load + sandbox), data
 *      generation, reference, one checked call, a paper-timer run, close.
 * Usage: kb-bench-overhead --problem P.so --empty E.so --submission S.so --runner R [--out F.csv]
 * Prints CSV: what,value,unit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kb_gpu.h"
#include "kb_session.h"
#include "core/kb_stage.h"
#include "core/kb_stats.h"
#include "kb_timer.h"

static FILE *out;

static void row(const char *what, double v, const char *unit)
{
    printf("%s,%.6g,%s\n", what, v, unit);
    if (out)
        fprintf(out, "%s,%.6g,%s\n", what, v, unit);
}

static int empty_fwd(void *u) { return kb_dev_empty(*(cudaStream_t *)u); }

static void medians(const kb_msg_sample *s, size_t n, double *ev, double *wall)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        a[i] = s[i].event_ms * 1000.0;
        b[i] = s[i].wall_ms * 1000.0;
    }
    *ev = kb_median(a, n);
    *wall = kb_median(b, n);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    if (kb_version_arg(argc, argv, "kb-bench-overhead"))
        return 0;
    const char *problem = NULL, *empty = NULL, *sub = NULL, *runner = "build/bin/kb-runner", *csv = NULL;
    static const char usage[] =
        "usage: kb-bench-overhead --problem P.so --empty E.so --submission S.so [--runner R] [--out F.csv]\n"
        "The harness's overhead per call, against an empty kernel (GPU). Exit codes: 0 done; 2 bad command line;\n"
        "3 no usable CUDA device.\n";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        const char **dst = !strcmp(argv[i], "--problem") ? &problem : !strcmp(argv[i], "--empty") ? &empty
                           : !strcmp(argv[i], "--submission") ? &sub : !strcmp(argv[i], "--runner") ? &runner
                           : !strcmp(argv[i], "--out") ? &csv : NULL;
        if (!dst || i + 1 >= argc) {
            fprintf(stderr, "kb-bench-overhead: %s '%s'\n%s", dst ? "no value for" : "unknown argument", argv[i], usage);
            return 2;
        }
        *dst = argv[++i];
    }
    if (!problem || !empty || !sub) {
        fputs(usage, stderr);
        return 2;
    }
    out = csv ? fopen(csv, "w") : NULL;
    printf("what,value,unit\n");
    if (out)
        fprintf(out, "what,value,unit\n");
    int dev, lock;
    kb_err err = {0};
    if (kb_gpu_acquire("0", KB_LOCK_TIMING, &dev, &lock, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return err.code;
    }
    double t0 = kb_now_s();
    cudaFree(0);
    row("context_create_in_process", (kb_now_s() - t0) * 1000.0, "ms");

    /* 1. per call */
    cudaStream_t s;
    cudaStreamCreate(&s);
    kb_config paper, strict;
    kb_config_defaults(&paper, KB_PROTO_PAPER);
    kb_config_defaults(&strict, KB_PROTO_STRICT);
    kb_msg_time tr; /* the paper timer, 1000 calls after 10 warm-ups: in process, then in the child */
    kb_time_request(&paper, &tr, 0);
    tr.warmup = 10;
    tr.trials = 1000;
    kb_timer_opts o;
    kb_timer_opts_from_request(&tr, dev, &o);
    kb_timer_result r;
    kb_timer_run(&o, s, empty_fwd, NULL, &s, &r);
    double ev_in, wall_in;
    medians(r.samples, r.n, &ev_in, &wall_in);
    kb_timer_result_free(&r);
    row("empty_kernel_in_process_event_median", ev_in, "us");
    row("empty_kernel_in_process_wall_median", wall_in, "us");

    kb_session_opts so = {runner, problem, empty, KB_TARGET_SUBMISSION, KB_MATH_FP32, KB_INIT_SANDBOX | KB_INIT_MEMTRACK,
                          dev, 60.0, "/tmp/kb-bench-overhead.log", 0, KB_MATH_FP32, 0, NULL, 0};
    kb_call_outcome co;
    kb_session *ses = kb_session_open(&so, &co, &err);
    if (!ses || co.outcome != KB_OUT_OK) {
        fprintf(stderr, "session: %s %s\n", err.msg, co.detail);
        return 1;
    }
    kb_msg_timed th;
    kb_msg_sample *smp;
    kb_session_time(ses, &tr, &th, &smp, &co, &err);
    double ev_r, wall_r;
    medians(smp, (size_t)th.n, &ev_r, &wall_r);
    free(smp);
    kb_session_close(ses);
    row("empty_kernel_runner_event_median", ev_r, "us");
    row("empty_kernel_runner_wall_median", wall_r, "us");
    row("harness_added_event_per_call", ev_r - ev_in, "us");
    row("harness_added_wall_per_call", wall_r - wall_in, "us");

    /* 2. per cell, on a real problem */
    so.submission_so = sub;
    so.need_reference = 1;
    t0 = kb_now_s();
    ses = kb_session_open(&so, &co, &err);
    double t_open = kb_now_s() - t0;
    if (!ses || co.outcome != KB_OUT_OK) {
        fprintf(stderr, "session: %s %s\n", err.msg, co.detail);
        return 1;
    }
    row("cell_child_start(spawn+context+ipc+load+sandbox)", t_open * 1000.0, "ms");
    kb_draw d = {1, 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    t0 = kb_now_s();
    kb_session_draw(ses, &d, &d, &err);
    row("cell_generate_inputs", (kb_now_s() - t0) * 1000.0, "ms");
    t0 = kb_now_s();
    kb_session_reference(ses, 0, NULL, &err);
    row("cell_reference_first", (kb_now_s() - t0) * 1000.0, "ms");
    t0 = kb_now_s();
    kb_session_reference(ses, 0, NULL, &err);
    row("cell_reference", (kb_now_s() - t0) * 1000.0, "ms");
    t0 = kb_now_s();
    kb_session_call(ses, KB_CALL_DEVICE_SYNC, &co, &err);
    row("cell_call_first", (kb_now_s() - t0) * 1000.0, "ms");
    t0 = kb_now_s();
    kb_session_call(ses, KB_CALL_DEVICE_SYNC, &co, &err);
    row("cell_call", (kb_now_s() - t0) * 1000.0, "ms");
    kb_cmp_stats cs;
    t0 = kb_now_s();
    kb_session_compare(ses, 0, 1e-3, 0, 0, &cs, &err);
    row("cell_compare", (kb_now_s() - t0) * 1000.0, "ms");
    kb_msg_time tp;
    kb_time_request(&paper, &tp, 0);
    t0 = kb_now_s();
    kb_session_time(ses, &tp, &th, &smp, &co, &err);
    row("cell_paper_timer_103_calls", (kb_now_s() - t0) * 1000.0, "ms");
    free(smp);
    kb_msg_time tb; /* the strict protocol's robust timer, inputs re-drawn */
    kb_time_request(&strict, &tb, 7);
    t0 = kb_now_s();
    kb_session_time(ses, &tb, &th, &smp, &co, &err);
    row("cell_robust_timer", (kb_now_s() - t0) * 1000.0, "ms");
    row("cell_robust_timer_samples", th.n, "samples");
    free(smp);
    t0 = kb_now_s();
    kb_session_close(ses);
    row("cell_close", (kb_now_s() - t0) * 1000.0, "ms");
    if (out)
        fclose(out);
    return 0;
}
