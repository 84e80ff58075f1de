/*
 * ops/ctx.cu -- the op context: stream, math mode, lazily created library handles and a counted
 * device allocator (see kb/ops.h).
 *
 * The allocator mirrors what matters of PyTorch's caching allocator for our measurements:
 * live bytes and their high-water mark are counted per kb_ctx_alloc/kb_ctx_free, like
 * torch.cuda.memory_allocated / max_memory_allocated. With KB_CTX_CACHING, freed blocks are kept
 * and reused for requests of the same size, so that a timed steady-state forward call performs no
 * cudaMalloc (PyTorch's allocator gives the same property). Without it, memory goes back to the
 * driver at once, which is what the memory profile wants: its CUPTI accounting then sees the same
 * live bytes as the context's own counters.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>

#include "kb/ops.h"

typedef struct kb_block {
    void *ptr;
    size_t bytes;
    int in_use;
} kb_block;

struct kb_ctx {
    cudaStream_t stream;
    kb_math_mode mode;
    unsigned flags;
    cublasHandle_t cublas;
    cublasLtHandle_t cublaslt;
    cudnnHandle_t cudnn;
    kb_block *blocks; /* every block ever allocated (a network's reference holds hundreds at once) */
    int n_blocks, cap_blocks;
    size_t live, peak;
    /* the live-dropout replay (kb_ctx_set_dropout_mask): not counted, it is the checker's */
    uint8_t *replay_mask;
    int64_t replay_n, replay_cap;
    double replay_p;
    char error[1024];
};

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

extern "C" kb_ctx *kb_ctx_create(cudaStream_t stream, kb_math_mode mode, unsigned flags, char *err,
                                 size_t errlen)
{
    kb_ctx *ctx = (kb_ctx *)calloc(1, sizeof *ctx);
    if (!ctx) {
        if (err && errlen)
            snprintf(err, errlen, "kb_ctx_create: out of host memory");
        return NULL;
    }
    ctx->stream = stream;
    ctx->mode = mode;
    ctx->flags = flags;
    return ctx;
}

extern "C" void kb_ctx_destroy(kb_ctx *ctx)
{
    if (!ctx)
        return;
    for (int i = 0; i < ctx->n_blocks; i++)
        if (ctx->blocks[i].ptr)
            cudaFree(ctx->blocks[i].ptr);
    if (ctx->cublas)
        cublasDestroy(ctx->cublas);
    if (ctx->cublaslt)
        cublasLtDestroy(ctx->cublaslt);
    if (ctx->cudnn)
        cudnnDestroy(ctx->cudnn);
    if (ctx->replay_mask)
        cudaFree(ctx->replay_mask);
    free(ctx->blocks);
    free(ctx);
}

extern "C" int kb_ctx_set_dropout_mask(kb_ctx *ctx, const uint8_t *mask, int64_t n, double p)
{
    if (n <= 0 || !(p > 0.0 && p < 1.0))
        return kb_ctx_fail(ctx, "kb_ctx_set_dropout_mask: %lld elements at p = %g", (long long)n, p);
    if (n > ctx->replay_cap) {
        if (ctx->replay_mask)
            KB_OP_CUDA(ctx, cudaFree(ctx->replay_mask));
        ctx->replay_mask = NULL;
        ctx->replay_cap = 0;
        KB_OP_CUDA(ctx, cudaMalloc((void **)&ctx->replay_mask, (size_t)n));
        ctx->replay_cap = n;
    }
    KB_OP_CUDA(ctx, cudaMemcpyAsync(ctx->replay_mask, mask, (size_t)n, cudaMemcpyDeviceToDevice, ctx->stream));
    ctx->replay_n = n;
    ctx->replay_p = p;
    return 0;
}

extern "C" void kb_ctx_clear_dropout_mask(kb_ctx *ctx) { ctx->replay_n = 0; }

extern "C" const uint8_t *kb_ctx_dropout_mask(const kb_ctx *ctx, int64_t *n, double *p)
{
    if (n)
        *n = ctx->replay_n;
    if (p)
        *p = ctx->replay_p;
    return ctx->replay_n > 0 ? ctx->replay_mask : NULL;
}

extern "C" void kb_ops_versions(int *cublas_version, int *cudnn_version)
{
    int major = 0, minor = 0, patch = 0;
    cublasGetProperty(MAJOR_VERSION, &major);
    cublasGetProperty(MINOR_VERSION, &minor);
    cublasGetProperty(PATCH_LEVEL, &patch);
    *cublas_version = major * 10000 + minor * 100 + patch;
    *cudnn_version = (int)cudnnGetVersion();
}

extern "C" cudaStream_t kb_ctx_stream(const kb_ctx *ctx) { return ctx->stream; }
extern "C" kb_math_mode kb_ctx_math(const kb_ctx *ctx) { return ctx->mode; }

extern "C" void kb_ctx_set_math(kb_ctx *ctx, kb_math_mode mode)
{
    ctx->mode = mode;
    if (ctx->cublas)
        cublasSetMathMode(ctx->cublas, mode.matmul_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
}

extern "C" int kb_ctx_fail(kb_ctx *ctx, const char *fmt, ...)
{
    if (ctx->error[0])
        return -1; /* keep the first cause */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
    va_end(ap);
    return -1;
}

extern "C" const char *kb_ctx_error(const kb_ctx *ctx) { return ctx->error; }
extern "C" void kb_ctx_clear_error(kb_ctx *ctx) { ctx->error[0] = '\0'; }

extern "C" void *kb_ctx_cublas(kb_ctx *ctx)
{
    if (!ctx->cublas) {
        cublasStatus_t s = cublasCreate(&ctx->cublas);
        if (s != CUBLAS_STATUS_SUCCESS) {
            ctx->cublas = NULL;
            kb_ctx_fail(ctx, "cublasCreate: %s (%s)", cublasGetStatusName(s), cublasGetStatusString(s));
            return NULL;
        }
        cublasSetStream(ctx->cublas, ctx->stream);
        cublasSetMathMode(ctx->cublas, ctx->mode.matmul_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    }
    return ctx->cublas;
}

extern "C" void *kb_ctx_cublaslt(kb_ctx *ctx)
{
    if (!ctx->cublaslt) {
        cublasStatus_t s = cublasLtCreate(&ctx->cublaslt);
        if (s != CUBLAS_STATUS_SUCCESS) {
            ctx->cublaslt = NULL;
            kb_ctx_fail(ctx, "cublasLtCreate: %s (%s)", cublasGetStatusName(s), cublasGetStatusString(s));
            return NULL;
        }
    }
    return ctx->cublaslt;
}

extern "C" void *kb_ctx_cudnn(kb_ctx *ctx)
{
    if (!ctx->cudnn) {
        cudnnStatus_t s = cudnnCreate(&ctx->cudnn);
        if (s != CUDNN_STATUS_SUCCESS) {
            ctx->cudnn = NULL;
            kb_ctx_fail(ctx, "cudnnCreate: %s (is libcudnn 9 installed?)", cudnnGetErrorString(s));
            return NULL;
        }
        cudnnSetStream(ctx->cudnn, ctx->stream);
    }
    return ctx->cudnn;
}

extern "C" void *kb_ctx_alloc(kb_ctx *ctx, size_t bytes)
{
    size_t want = round_up(bytes ? bytes : 1, 256);
    kb_block *slot = NULL;
    for (int i = 0; i < ctx->n_blocks; i++) {
        kb_block *b = &ctx->blocks[i];
        if (b->ptr && !b->in_use && b->bytes == want) {
            slot = b;
            break;
        }
    }
    if (!slot) {
        for (int i = 0; i < ctx->n_blocks && !slot; i++)
            if (!ctx->blocks[i].ptr)
                slot = &ctx->blocks[i];
        if (!slot) {
            if (ctx->n_blocks == ctx->cap_blocks) {
                int cap = ctx->cap_blocks ? 2 * ctx->cap_blocks : 64;
                kb_block *v = (kb_block *)realloc(ctx->blocks, (size_t)cap * sizeof *v);
                if (!v) {
                    kb_ctx_fail(ctx, "kb_ctx_alloc: out of host memory for %d blocks", cap);
                    return NULL;
                }
                ctx->blocks = v;
                ctx->cap_blocks = cap;
            }
            slot = &ctx->blocks[ctx->n_blocks++];
            slot->ptr = NULL;
            slot->in_use = 0;
        }
        void *p = NULL;
        cudaError_t e = cudaMalloc(&p, want);
        if (e != cudaSuccess) {
            kb_ctx_fail(ctx, "kb_ctx_alloc(%zu bytes): %s (%s)", want, cudaGetErrorName(e), cudaGetErrorString(e));
            return NULL;
        }
        slot->ptr = p;
        slot->bytes = want;
    }
    slot->in_use = 1;
    ctx->live += want;
    if (ctx->live > ctx->peak)
        ctx->peak = ctx->live;
    return slot->ptr;
}

extern "C" void kb_ctx_free(kb_ctx *ctx, void *ptr)
{
    if (!ptr)
        return;
    for (int i = 0; i < ctx->n_blocks; i++) {
        kb_block *b = &ctx->blocks[i];
        if (b->ptr == ptr && b->in_use) {
            b->in_use = 0;
            ctx->live -= b->bytes;
            if (!(ctx->flags & KB_CTX_CACHING)) {
                /* The block may still be read by work queued on the stream: wait for it, as
                 * PyTorch's allocator does through its stream-use events. */
                cudaStreamSynchronize(ctx->stream);
                cudaFree(b->ptr);
                b->ptr = NULL;
                b->bytes = 0;
            }
            return;
        }
    }
    kb_ctx_fail(ctx, "kb_ctx_free(%p): not a live block of this context", ptr);
}

extern "C" size_t kb_ctx_live_bytes(const kb_ctx *ctx) { return ctx->live; }
extern "C" size_t kb_ctx_peak_bytes(const kb_ctx *ctx) { return ctx->peak; }
extern "C" void kb_ctx_reset_peak(kb_ctx *ctx) { ctx->peak = ctx->live; }
