/*
 * kb_memtrack.h -- device-memory accounting of everything a process allocates, through CUPTI
 * callbacks on every allocation and free entry point of the runtime and driver APIs:
 *   runtime: cudaMalloc, cudaMallocPitch, cudaMalloc3D, cudaMallocManaged, cudaMallocAsync,
 *            cudaMallocFromPoolAsync (and their per-thread-stream variants), cudaFree, cudaFreeAsync
 *   driver:  cuMemAlloc, cuMemAllocPitch, cuMemAllocManaged, cuMemAllocAsync,
 *            cuMemAllocFromPoolAsync, cuMemCreate (virtual memory), cuMemFree, cuMemFreeAsync,
 *            cuMemRelease
 * Library workspaces (cuBLAS, cuDNN) allocate through these too, so they are counted. A runtime
 * call that reaches the driver is counted once (the driver's callback wins; the runtime's is
 * used only when no driver callback fired inside it). Bytes are the requested sizes
 * (pitch x height for pitched allocations), like torch.cuda.max_memory_allocated; stream-ordered
 * frees count when they are issued.
 * The harness pauses accounting around its own allocations (L2 flush buffer, ...).
 */
#ifndef KB_MEMTRACK_H
#define KB_MEMTRACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_memtrack_stats {
    int64_t live, peak;
    int64_t n_allocs, n_frees, n_failed;
    int64_t largest_failed;
    int64_t unknown_frees; /* frees of pointers we never saw allocated (e.g. IPC, pre-start) */
} kb_memtrack_stats;

/* Subscribes to CUPTI. Returns 0, or -1 with a message in err (CUPTI missing, another tool
 * already subscribed). */
int kb_memtrack_start(char *err, size_t errlen);
void kb_memtrack_stop(void);
void kb_memtrack_pause(int paused);
void kb_memtrack_get(kb_memtrack_stats *s);
/* Resets the peak to the current live bytes. */
void kb_memtrack_reset_peak(void);

#ifdef __cplusplus
}
#endif

#endif /* KB_MEMTRACK_H */
