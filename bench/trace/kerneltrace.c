/*
 * bench/trace/kerneltrace.c -- every kernel a process runs, with its GPU duration: a CUDA injection
 * library (the driver loads it when CUDA_INJECTION64_PATH names it and calls
 * InitializeInjection at cuInit), so it traces any process, a .py child's PyTorch as well as a C
 * baseline, with no change to either. CUPTI's activity API records each kernel (start and end on
 * the GPU's clock); a thread of its own flushes them every 250 ms, so a child that leaves
 * through _exit or is killed loses at most the last 250 ms. The output file is opened at cuInit, before any sandbox is installed.
 *
 *   KB_KERNELTRACE=PREFIX  writes PREFIX.<pid>: a first line "# <command line>", then one line
 *   per kernel:
 *       duration_ns grid_x,grid_y,grid_z block_x,block_y,block_z mangled_name
 *
 * Used by bench/kernel-times.sh (per-kernel medians of the PyTorch and the C baseline children
 * of kb-fidelity, side by side). A diagnostic, not part of any stage: the timings it reports
 * come from the stage's own timers.
 */
#include <cupti.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BUF_BYTES = 8 << 20 };

static int out_fd = -1;

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
    *buf = aligned_alloc(8, BUF_BYTES);
    *size = *buf ? BUF_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *rec = NULL;
    char line[4096];
    while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        int n = snprintf(line, sizeof line, "%llu %d,%d,%d %d,%d,%d %s\n", (unsigned long long)(k->end - k->start),
                         k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ, k->name ? k->name : "?");
        if (n > 0 && out_fd >= 0 && write(out_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
            break;
    }
    free(buf);
}

static void flush_at_exit(void) { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }

/* a .py child leaves through os._exit (no atexit handlers): flush every 250 ms from a thread of
 * our own (cuptiActivityFlushPeriod alone left its trace empty on the H200) */
static void *flusher(void *arg)
{
    (void)arg;
    for (;;) {
        usleep(250 * 1000);
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
    return NULL;
}

int InitializeInjection(void); /* called by the CUDA driver */

int InitializeInjection(void)
{
    const char *prefix = getenv("KB_KERNELTRACE");
    if (!prefix || !*prefix)
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix, (int)getpid());
    out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) {
        fprintf(stderr, "kerneltrace: cannot write %s\n", path);
        return 1;
    }
    char cmd[2048];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, cmd, sizeof cmd - 1) : 0;
    if (fd >= 0)
        close(fd);
    for (ssize_t i = 0; i < n; i++)
        if (cmd[i] == '\0' || cmd[i] == '\n')
            cmd[i] = ' ';
    cmd[n > 0 ? n : 0] = '\0';
    dprintf(out_fd, "# %s\n", cmd);
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
        fprintf(stderr, "kerneltrace: CUPTI activity tracing could not start\n");
        return 1;
    }
    cuptiActivityFlushPeriod(200);
    atexit(flush_at_exit);
    pthread_t t;
    if (pthread_create(&t, NULL, flusher, NULL) == 0)
        pthread_detach(t);
    return 1;
}
