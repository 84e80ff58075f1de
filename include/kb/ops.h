/*
 * kb/ops.h -- the op library (libkbops.so) that every problem's reference() calls.
 *
 * Each op is implemented the way eager PyTorch 2.11 executes it on CUDA: the same library call
 * (cuBLAS GEMM, cuDNN convolution / batch-norm) or one custom kernel per unfused op, written to be
 * as good as PyTorch's own kernel for that op and shape -- including PyTorch's launch geometry
 * where that is what sets its speed (one block per row for LayerNorm, int64 indices computed by
 * max_pool2d, log_softmax materialised by cross_entropy). A level-2/3 reference is then a
 * sequence of these calls, like its forward().
 *
 * Conventions:
 *   - All tensors are device memory, contiguous, row-major, fp32 unless the name says otherwise.
 *     Sizes are int64 (several KernelBench tensors exceed 2^31 elements).
 *   - Every op enqueues its work on kb_ctx_stream(ctx) and returns 0, or -1 after recording a
 *     message in the context (kb_ctx_error()). Ops never exit and never synchronise the device.
 *   - Scratch memory comes from kb_ctx_alloc(), which counts every byte (the memory profile).
 *   - Math mode follows PyTorch's two switches: torch.backends.cuda.matmul.allow_tf32
 *     (kb_ctx_matmul_tf32) for cuBLAS, torch.backends.cudnn.allow_tf32 (kb_ctx_cudnn_tf32) for
 *     cuDNN convolutions.
 */
#ifndef KB_OPS_H
#define KB_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "kb/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The op library is built with hidden visibility; what this header declares is its API. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Context: stream, math mode, library handles, counted allocator.                            */

typedef struct kb_math_mode {
    int matmul_tf32; /* torch.backends.cuda.matmul.allow_tf32 (default False) */
    int cudnn_tf32;  /* torch.backends.cudnn.allow_tf32 (default True) */
} kb_math_mode;

/* PyTorch defaults (the paper's FP32 baseline) and with matmul TF32 on (its TF32 baseline). */
static const kb_math_mode KB_MATH_FP32 = {0, 1};
static const kb_math_mode KB_MATH_TF32 = {1, 1};
/* Every TF32 switch off: exact FP32, the fair reference for correctness checks. */
static const kb_math_mode KB_MATH_EXACT = {0, 0};

enum {
    KB_CTX_CACHING = 1u << 0 /* keep freed blocks for reuse, like PyTorch's caching allocator;
                                without it kb_ctx_free() returns memory at once */
};

/* Creates a context on the current device. Handles (cuBLAS, cuBLASLt, cuDNN) are created on
 * first use, as PyTorch does. Returns NULL and a message in err on failure. */
kb_ctx *kb_ctx_create(cudaStream_t stream, kb_math_mode mode, unsigned flags, char *err, size_t errlen);
void kb_ctx_destroy(kb_ctx *ctx);

cudaStream_t kb_ctx_stream(const kb_ctx *ctx);

/* Versions of the libraries the op library runs with (cublasGetProperty-style integers:
 * cuBLAS major*10000+minor*100+patch, cudnnGetVersion()), for the artifacts' records. */
void kb_ops_versions(int *cublas_version, int *cudnn_version);
kb_math_mode kb_ctx_math(const kb_ctx *ctx);
void kb_ctx_set_math(kb_ctx *ctx, kb_math_mode mode);

/* Library handles bound to the context's stream; NULL after kb_ctx_fail() on error. The types
 * are the libraries' own (cublasHandle_t, cublasLtHandle_t, cudnnHandle_t) passed as void *
 * so that this header needs no library headers. */
void *kb_ctx_cublas(kb_ctx *ctx);
void *kb_ctx_cublaslt(kb_ctx *ctx);
void *kb_ctx_cudnn(kb_ctx *ctx);

/* Counted device scratch memory (256-byte aligned). Returns NULL after kb_ctx_fail(). */
void *kb_ctx_alloc(kb_ctx *ctx, size_t bytes);
void kb_ctx_free(kb_ctx *ctx, void *ptr);
size_t kb_ctx_live_bytes(const kb_ctx *ctx); /* allocated now through kb_ctx_alloc */
size_t kb_ctx_peak_bytes(const kb_ctx *ctx); /* high-water mark since the last reset */
void kb_ctx_reset_peak(kb_ctx *ctx);

/* Live dropout's replay (docs/protocols.md, "Live dropout"): while a mask is set, kb_dropout keeps
 * exactly the elements whose mask byte has bit 0 set (times 1 / (1 - p), as eager scales them)
 * instead of its own draw, except where the byte carries KB_MASK_OWN (kb/ref/elementwise.h), so
 * the reference computed next uses the mask a submission drew. The mask (n bytes, device memory)
 * is copied on the context's stream; p must be the dropout's.
 * Cleared by kb_ctx_clear_dropout_mask. kb_ctx_dropout_mask: the mask set (NULL if none). */
int kb_ctx_set_dropout_mask(kb_ctx *ctx, const uint8_t *mask, int64_t n, double p);
void kb_ctx_clear_dropout_mask(kb_ctx *ctx);
const uint8_t *kb_ctx_dropout_mask(const kb_ctx *ctx, int64_t *n, double *p);

/* Records why an op failed ("printf"-style) and returns -1; the first message is kept. */
int kb_ctx_fail(kb_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
const char *kb_ctx_error(const kb_ctx *ctx); /* "" when no failure was recorded */
void kb_ctx_clear_error(kb_ctx *ctx);

/* Checks a CUDA runtime call inside an op: on failure records file:line, the call, and the
 * error's name and string, and returns -1 from the enclosing function. */
#define KB_OP_CUDA(ctx, call)                                                                     \
    do {                                                                                          \
        cudaError_t kb_e_ = (call);                                                               \
        if (kb_e_ != cudaSuccess)                                                                 \
            return kb_ctx_fail((ctx), "%s:%d: %s: %s (%s)", __FILE__, __LINE__, #call,            \
                               cudaGetErrorName(kb_e_), cudaGetErrorString(kb_e_));               \
    } while (0)

/* After a kernel launch. */
#define KB_OP_LAUNCHED(ctx) KB_OP_CUDA((ctx), cudaGetLastError())

/* ------------------------------------------------------------------------------------------ */
/* GEMM (cuBLAS), as at::cuda::blas::gemm / bgemm: cublasSgemm(StridedBatched) with the handle's
 * math mode set from matmul_tf32 (CUBLAS_TF32_TENSOR_OP_MATH or CUBLAS_DEFAULT_MATH).          */

/* C[M,N] = op(A) @ op(B), row-major. op(A) is [M,K]: A is stored [M,K], or [K,M] if trans_a.
 * op(B) is [K,N]: B is stored [K,N], or [N,K] if trans_b. */
int kb_op_matmul(kb_ctx *ctx, const float *A, const float *B, float *C, int64_t M, int64_t N,
                 int64_t K, int trans_a, int trans_b);

/* The same for `batch` independent products; stride_* are elements between consecutive
 * matrices (0 broadcasts one matrix over the batch, as torch.matmul does). */
int kb_op_matmul_batched(kb_ctx *ctx, const float *A, const float *B, float *C, int64_t batch,
                         int64_t M, int64_t N, int64_t K, int trans_a, int trans_b,
                         int64_t stride_a, int64_t stride_b, int64_t stride_c);

/* nn.Linear: y[M,N] = x[M,K] @ W[N,K]^T + bias[N] (bias may be NULL), as addmm. */
int kb_op_linear(kb_ctx *ctx, const float *x, const float *W, const float *bias, float *y,
                 int64_t M, int64_t N, int64_t K);

/* ------------------------------------------------------------------------------------------ */
/* Convolution (cuDNN, NCHW / NCDHW), as at::cudnn_convolution{,_transpose}: algorithm from
 * cuDNN's heuristics (torch.backends.cudnn.benchmark = False), workspace from the context, math
 * type from cudnn_tf32 (CUDNN_TENSOR_OP_MATH allows TF32, CUDNN_FMA_MATH forbids it). */

typedef struct kb_conv_desc {
    int nd;            /* spatial dims: 1, 2 or 3 */
    int64_t batch;     /* N */
    int64_t in_ch;     /* C_in */
    int64_t out_ch;    /* C_out */
    int64_t in_size[3];  /* spatial input extent, nd entries used (D,H,W order) */
    int64_t kernel[3];   /* kernel extent */
    int stride[3];
    int pad[3];
    int dilation[3];
    int out_pad[3];    /* transposed convolution only */
    int groups;
} kb_conv_desc;

/* Spatial output extent of the convolution (transposed = 0) or transposed convolution. */
void kb_conv_out_size(const kb_conv_desc *d, int transposed, int64_t out_size[3]);

/* y = conv(x, w) (+ bias[C_out] if bias != NULL). w is [C_out, C_in/groups, k...]. */
int kb_op_conv(kb_ctx *ctx, const kb_conv_desc *d, const float *x, const float *w,
               const float *bias, float *y);

/* y = conv_transpose(x, w) (+ bias). w is [C_in, C_out/groups, k...] (PyTorch's layout);
 * computed as cuDNN's backward-data convolution, as PyTorch does. */
int kb_op_conv_transpose(kb_ctx *ctx, const kb_conv_desc *d, const float *x, const float *w,
                         const float *bias, float *y);

/* ------------------------------------------------------------------------------------------ */
/* Batch normalisation, training mode (batch statistics), as at::cudnn_batch_norm:
 * cudnnBatchNormalizationForwardTraining, CUDNN_BATCHNORM_SPATIAL. x is [N, C, spatial...].
 * running_mean / running_var (may be NULL) are updated with `momentum`, as PyTorch does. */
int kb_op_batch_norm_train(kb_ctx *ctx, const float *x, float *y, int64_t N, int64_t C,
                           int64_t spatial, const float *weight, const float *bias, double eps,
                           double momentum, float *running_mean, float *running_var);

/* ------------------------------------------------------------------------------------------ */
/* Elementwise (one vectorised kernel per op, like PyTorch's TensorIterator kernels).          */

typedef enum kb_unary {
    KB_UNARY_RELU = 0,
    KB_UNARY_GELU = 1,      /* exact (erf) form: F.gelu(x, approximate='none') */
    KB_UNARY_GELU_TANH = 2, /* F.gelu(x, approximate='tanh') */
    KB_UNARY_SIGMOID = 3,
    KB_UNARY_TANH = 4
} kb_unary;

/* y[i] = op(x[i]) for n elements (y may equal x). */
int kb_op_unary(kb_ctx *ctx, kb_unary op, const float *x, float *y, int64_t n);

/* ------------------------------------------------------------------------------------------ */
/* Reductions over one dimension of a tensor viewed as [outer, len, inner].                    */

typedef enum kb_reduce { KB_REDUCE_SUM = 0, KB_REDUCE_MEAN = 1, KB_REDUCE_MAX = 2, KB_REDUCE_MIN = 3 } kb_reduce;

/* y[outer, inner] = reduce_{j < len} x[outer, j, inner]. */
int kb_op_reduce_dim(kb_ctx *ctx, kb_reduce op, const float *x, float *y, int64_t outer,
                     int64_t len, int64_t inner);

/* ------------------------------------------------------------------------------------------ */
/* Softmax family and normalisations.                                                          */

/* Softmax (log_softmax if `log`) over the last dimension of x[rows, cols]. */
int kb_op_softmax(kb_ctx *ctx, const float *x, float *y, int64_t rows, int64_t cols, int log);

/* nn.LayerNorm over the last N elements of each of M rows; gamma/beta are [N] (may be NULL). */
int kb_op_layer_norm(kb_ctx *ctx, const float *x, const float *gamma, const float *beta, float *y,
                     int64_t M, int64_t N, double eps);

/* ------------------------------------------------------------------------------------------ */
/* Pooling.                                                                                    */

typedef struct kb_pool2d_desc {
    int64_t batch, channels, in_h, in_w;
    int kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
    int ceil_mode;
} kb_pool2d_desc;

void kb_pool2d_out_size(const kb_pool2d_desc *d, int64_t *out_h, int64_t *out_w);

/* F.max_pool2d as eager PyTorch runs it: max_pool2d_with_indices, so the int64 indices are
 * computed too (into counted scratch memory) and then dropped. */
int kb_op_max_pool2d(kb_ctx *ctx, const kb_pool2d_desc *d, const float *x, float *y);

/* ------------------------------------------------------------------------------------------ */
/* Losses.                                                                                     */

/* F.cross_entropy(logits[N,C], targets[N] int64, reduction='mean') = nll_loss(log_softmax):
 * the [N,C] log-probabilities are materialised in counted scratch, as in eager PyTorch.
 * loss points to one float. */
int kb_op_cross_entropy(kb_ctx *ctx, const float *logits, const int64_t *targets, float *loss,
                        int64_t N, int64_t C);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* KB_OPS_H */
