/* memtrack.c -- see kb_memtrack.h. */
#include "kb_memtrack.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cupti.h>
/* cupti.h brings the generated parameter structs of both APIs. */

/* Open-addressing map from address (or VMM handle) to size. */
typedef struct slot {
    uint64_t key;
    int64_t bytes;
} slot;

static struct {
    pthread_mutex_t mu;
    CUpti_SubscriberHandle sub;
    int running, paused;
    slot *tab;
    size_t cap, used;
    kb_memtrack_stats s;
} mt = {.mu = PTHREAD_MUTEX_INITIALIZER};

static __thread int rt_depth;    /* inside a runtime allocation call */
static __thread int driver_seen; /* a driver callback accounted inside it */

static uint64_t hash_key(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

static int map_grow(void)
{
    size_t nc = mt.cap ? mt.cap * 2 : 4096;
    slot *nt = calloc(nc, sizeof *nt);
    if (!nt)
        return -1;
    for (size_t i = 0; i < mt.cap; i++) {
        if (!mt.tab[i].key)
            continue;
        size_t j = hash_key(mt.tab[i].key) & (nc - 1);
        while (nt[j].key)
            j = (j + 1) & (nc - 1);
        nt[j] = mt.tab[i];
    }
    free(mt.tab);
    mt.tab = nt;
    mt.cap = nc;
    return 0;
}

static void map_put(uint64_t key, int64_t bytes)
{
    if ((mt.used + 1) * 2 > mt.cap && map_grow() != 0)
        return;
    size_t j = hash_key(key) & (mt.cap - 1);
    while (mt.tab[j].key && mt.tab[j].key != key)
        j = (j + 1) & (mt.cap - 1);
    if (!mt.tab[j].key)
        mt.used++;
    mt.tab[j].key = key;
    mt.tab[j].bytes = bytes;
}

/* Removes key; returns its size, or -1 if unknown. Backward-shift deletion keeps probes valid. */
static int64_t map_take(uint64_t key)
{
    if (!mt.cap)
        return -1;
    size_t j = hash_key(key) & (mt.cap - 1);
    while (mt.tab[j].key && mt.tab[j].key != key)
        j = (j + 1) & (mt.cap - 1);
    if (!mt.tab[j].key)
        return -1;
    int64_t bytes = mt.tab[j].bytes;
    size_t i = j;
    for (;;) {
        mt.tab[i].key = 0;
        size_t k = i;
        for (;;) {
            k = (k + 1) & (mt.cap - 1);
            if (!mt.tab[k].key) {
                mt.used--;
                return bytes;
            }
            size_t home = hash_key(mt.tab[k].key) & (mt.cap - 1);
            /* move k back to i if its home is not cyclically in (i, k] */
            if ((i <= k) ? (home <= i || home > k) : (home <= i && home > k))
                break;
        }
        mt.tab[i] = mt.tab[k];
        i = k;
    }
}

static void on_alloc(uint64_t key, int64_t bytes, int ok)
{
    pthread_mutex_lock(&mt.mu);
    if (!mt.paused) {
        if (ok && key) {
            map_put(key, bytes);
            mt.s.live += bytes;
            mt.s.n_allocs++;
            if (mt.s.live > mt.s.peak)
                mt.s.peak = mt.s.live;
        } else if (!ok) {
            mt.s.n_failed++;
            if (bytes > mt.s.largest_failed)
                mt.s.largest_failed = bytes;
        }
    }
    pthread_mutex_unlock(&mt.mu);
}

static void on_free(uint64_t key)
{
    if (!key)
        return;
    pthread_mutex_lock(&mt.mu);
    int64_t bytes = map_take(key);
    if (bytes >= 0) {
        mt.s.live -= bytes;
        mt.s.n_frees++;
    } else if (!mt.paused) {
        mt.s.unknown_frees++;
    }
    pthread_mutex_unlock(&mt.mu);
}

static void CUPTIAPI callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
    (void)user;
    const CUpti_CallbackData *cb = data;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cb->callbackSite == CUPTI_API_ENTER) {
        if (rt_depth++ == 0)
            driver_seen = 0;
        return;
    }
    if (cb->callbackSite != CUPTI_API_EXIT)
        return;
    const void *p = cb->functionParams;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        int ok = *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
        driver_seen = 1;
        switch (cbid) {
        case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
            const cuMemAlloc_v2_params *a = p;
            on_alloc(ok ? *a->dptr : 0, (int64_t)a->bytesize, ok);
            break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
            const cuMemAllocPitch_v2_params *a = p;
            on_alloc(ok ? *a->dptr : 0, ok ? (int64_t)(*a->pPitch * a->Height) : (int64_t)(a->WidthInBytes * a->Height), ok);
            break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
            const cuMemAllocManaged_params *a = p;
            on_alloc(ok ? *a->dptr : 0, (int64_t)a->bytesize, ok);
            break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync: {
            const cuMemAllocAsync_params *a = p;
            on_alloc(ok ? *a->dptr : 0, (int64_t)a->bytesize, ok);
            break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
            const cuMemAllocAsync_ptsz_params *a = p;
            on_alloc(ok ? *a->dptr : 0, (int64_t)a->bytesize, ok);
            break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync: {
            const cuMemAllocFromPoolAsync_params *a = p;
            on_alloc(ok ? *a->dptr : 0, (int64_t)a->bytesize, ok);
            break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
            const cuMemAllocFromPoolAsync_ptsz_params *a = p;
            on_alloc(ok ? *a->dptr : 0, (int64_t)a->bytesize, ok);
            break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuMemCreate: {
            const cuMemCreate_params *a = p;
            /* VMM handles live in the same map, tagged in the top bit to keep them apart from
             * addresses. */
            on_alloc(ok ? (*a->handle | (1ull << 63)) : 0, (int64_t)a->size, ok);
            break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
            if (ok)
                on_free(((const cuMemFree_v2_params *)p)->dptr);
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
            if (ok)
                on_free(((const cuMemFreeAsync_params *)p)->dptr);
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
            if (ok)
                on_free(((const cuMemFreeAsync_ptsz_params *)p)->dptr);
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuMemRelease:
            if (ok)
                on_free(((const cuMemRelease_params *)p)->handle | (1ull << 63));
            break;
        default:
            break;
        }
        return;
    }
    /* Runtime EXIT: account only if the driver did not. */
    if (rt_depth > 0)
        rt_depth--;
    if (driver_seen)
        return;
    int ok = *(const cudaError_t *)cb->functionReturnValue == cudaSuccess;
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: {
        const cudaMalloc_v3020_params *a = p;
        on_alloc(ok ? (uint64_t)(uintptr_t)*a->devPtr : 0, (int64_t)a->size, ok);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020: {
        const cudaMallocPitch_v3020_params *a = p;
        on_alloc(ok ? (uint64_t)(uintptr_t)*a->devPtr : 0, ok ? (int64_t)(*a->pitch * a->height) : (int64_t)(a->width * a->height), ok);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
        const cudaMallocManaged_v6000_params *a = p;
        on_alloc(ok ? (uint64_t)(uintptr_t)*a->devPtr : 0, (int64_t)a->size, ok);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020: {
        const cudaMallocAsync_v11020_params *a = p;
        on_alloc(ok ? (uint64_t)(uintptr_t)*a->devPtr : 0, (int64_t)a->size, ok);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020: {
        const cudaMallocAsync_ptsz_v11020_params *a = p;
        on_alloc(ok ? (uint64_t)(uintptr_t)*a->devPtr : 0, (int64_t)a->size, ok);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020: {
        const cudaMallocFromPoolAsync_v11020_params *a = p;
        on_alloc(ok ? (uint64_t)(uintptr_t)*a->ptr : 0, (int64_t)a->size, ok);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020: {
        const cudaMallocFromPoolAsync_ptsz_v11020_params *a = p;
        on_alloc(ok ? (uint64_t)(uintptr_t)*a->ptr : 0, (int64_t)a->size, ok);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc3D_v3020: {
        const cudaMalloc3D_v3020_params *a = p;
        int64_t bytes = ok ? (int64_t)(a->pitchedDevPtr->pitch * a->extent.height * a->extent.depth)
                           : (int64_t)(a->extent.width * a->extent.height * a->extent.depth);
        on_alloc(ok ? (uint64_t)(uintptr_t)a->pitchedDevPtr->ptr : 0, bytes, ok);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
        if (ok)
            on_free((uint64_t)(uintptr_t)((const cudaFree_v3020_params *)p)->devPtr);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
        if (ok)
            on_free((uint64_t)(uintptr_t)((const cudaFreeAsync_v11020_params *)p)->devPtr);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
        if (ok)
            on_free((uint64_t)(uintptr_t)((const cudaFreeAsync_ptsz_v11020_params *)p)->devPtr);
        break;
    default:
        break;
    }
}

static const CUpti_CallbackId driver_ids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemCreate,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemRelease,
};

static const CUpti_CallbackId runtime_ids[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc3D_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020,
};

int kb_memtrack_start(char *err, size_t errlen)
{
    if (mt.running)
        return 0;
    CUptiResult r = cuptiSubscribe(&mt.sub, (CUpti_CallbackFunc)callback, NULL);
    if (r != CUPTI_SUCCESS) {
        const char *s = "?";
        cuptiGetResultString(r, &s);
        snprintf(err, errlen, "cuptiSubscribe: %s (is another profiler attached?)", s);
        return -1;
    }
    for (size_t i = 0; i < sizeof driver_ids / sizeof driver_ids[0]; i++)
        r = r == CUPTI_SUCCESS ? cuptiEnableCallback(1, mt.sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_ids[i]) : r;
    for (size_t i = 0; i < sizeof runtime_ids / sizeof runtime_ids[0]; i++)
        r = r == CUPTI_SUCCESS ? cuptiEnableCallback(1, mt.sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_ids[i]) : r;
    if (r != CUPTI_SUCCESS) {
        const char *s = "?";
        cuptiGetResultString(r, &s);
        snprintf(err, errlen, "cuptiEnableCallback: %s", s);
        cuptiUnsubscribe(mt.sub);
        return -1;
    }
    mt.running = 1;
    return 0;
}

void kb_memtrack_stop(void)
{
    if (!mt.running)
        return;
    cuptiUnsubscribe(mt.sub);
    mt.running = 0;
}

void kb_memtrack_pause(int paused)
{
    pthread_mutex_lock(&mt.mu);
    mt.paused = paused;
    pthread_mutex_unlock(&mt.mu);
}

void kb_memtrack_get(kb_memtrack_stats *s)
{
    pthread_mutex_lock(&mt.mu);
    *s = mt.s;
    pthread_mutex_unlock(&mt.mu);
}

void kb_memtrack_reset_peak(void)
{
    pthread_mutex_lock(&mt.mu);
    mt.s.peak = mt.s.live;
    pthread_mutex_unlock(&mt.mu);
}
