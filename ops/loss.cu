/*
 * ops/loss.cu -- the loss family: the raw kb_op_cross_entropy (kb/ops.h) and the tensor-level
 * losses of kb/ref/loss.h.
 *
 * kb_op_cross_entropy: F.cross_entropy(logits[N, C], targets[N] int64, reduction='mean').
 * Eager PyTorch computes cross_entropy with class-index targets as
 * nll_loss(log_softmax(logits, 1), targets): the [N, C] log-probabilities are materialised (here
 * in counted scratch, through kb_op_softmax with log = 1, which dispatches like host_softmax),
 * then nll_loss_forward_reduce_cuda_kernel_2d (ATen/native/cuda/Loss.cu) runs as ONE block of
 * nll_loss_threads(N) = clamp(2^round(log2(N / 16)), 32, 1024) threads: each thread accumulates
 * -logp[i, t_i] for its frames i = tid, tid + blockDim, ... in a shared-memory slot, plus a
 * count of the frames that are not ignore_index (-100, the default); a shared-memory tree sums the
 * slots, and the loss is sum / count, all in float.
 * Targets outside [0, C) other than -100 make PyTorch's kernel assert (a device-side error that
 * poisons the CUDA context); here they turn the loss into NaN instead. If every target is -100
 * the loss is 0 / 0 = NaN, as in PyTorch.
 *
 * Napkin math, L1/95: logits (32768, 4096) fp32 = 0.54 GB. log_softmax reads it once and writes
 * 0.54 GB (cunn_SoftMaxForwardReg<4>, one 1024-thread block per row): ~0.26 ms at ~4.2 TB/s.
 * nll_loss: one block of 1024 threads, 32 frames each, every frame a dependent target load then
 * a gather from a different 16 KB row: ~32 x 2 memory latencies, ~0.05 ms. Eager PyTorch:
 * 0.44 ms on the H200 (CPU launch gaps included); this file measures 0.40-0.42 ms.
 *
 * The loss-specific elementwise kernels, each one launch like eager's TensorIterator kernel
 * (gpu_kernel -> vectorized_elementwise_kernel, ATen/native/cuda/CUDALoops.cuh): 128 threads per
 * block, one float4 per operand per thread, grid = ceil(n / 512), the scalar unrolled policy
 * (4 elements per thread at stride 128) when a pointer is not 16-byte aligned; 64-bit indices
 * and a grid-stride loop so one launch covers tensors above 2^31 elements (TensorIterator splits
 * those into 32-bit-indexable launches instead; the traffic is the same). Formulas, in float:
 *   smooth_l1  (BinaryMiscOpsKernels.cu, smooth_l1_kernel_cuda)
 *              z = |a - b|; z < beta ? 0.5 * z * z / beta : z - 0.5 * beta
 *   xlogy      (xlogy_kernel_cuda) isnan(y) ? NaN : x == 0 ? 0 : x * logf(y)
 * Both read 8 bytes and write 4 per element: ~12.9 GB for 2^30 elements, ~3.0 ms at ~4.3 TB/s.
 *
 * The composites (kb_smooth_l1_loss, kb_kl_div, kb_pairwise_distance, kb_triplet_margin_loss)
 * call the elementwise and reduce families' ops in ATen's order (Loss.cpp, Distance.cpp), with
 * ATen's temporaries freed where its refcounts / C++ full expressions free them; each function
 * says which.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "kb/ref.h"

namespace {

constexpr int64_t kIgnoreIndex = -100; /* F.cross_entropy's default ignore_index */

/* One block; blockDim.x a power of two; dynamic shared memory 2 * blockDim.x floats. */
__global__ void nll_loss_mean_kernel(float *output, const float *logp, const int64_t *target, int64_t nframe,
                                     int64_t ndim, int64_t n_classes, int64_t ignore_index)
{
    extern __shared__ float shmem[];
    float *sh_inputs = shmem;
    float *acc_weight = shmem + blockDim.x;
    const int tid = (int)threadIdx.x;

    sh_inputs[tid] = 0.0f;
    acc_weight[tid] = 0.0f;
    for (int64_t i = tid; i < nframe; i += blockDim.x) {
        const int64_t t = target[i];
        if (t == ignore_index)
            continue;
        if (t < 0 || t >= n_classes) {
            sh_inputs[tid] = NAN; /* PyTorch asserts; see the header */
            acc_weight[tid] += 1.0f;
            continue;
        }
        const float cur_weight = 1.0f;
        sh_inputs[tid] -= logp[i * ndim + t] * cur_weight;
        acc_weight[tid] += cur_weight;
    }
    __syncthreads();
    for (int stride = (int)blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            sh_inputs[tid] += sh_inputs[tid + stride];
            acc_weight[tid] += acc_weight[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0)
        output[0] = sh_inputs[0] / acc_weight[0];
}

/* nll_loss_threads(): clamp(1 << round(log2(nframe / 16)), 32, 1024). */
static int nll_loss_threads(int64_t nframe)
{
    const int64_t q = nframe / 16;
    if (q < 1)
        return 32;
    const long e = lround(log2((double)q));
    if (e >= 10)
        return 1024;
    const int t = 1 << (e < 0 ? 0 : e);
    return t < 32 ? 32 : t;
}

} /* namespace */

extern "C" int kb_op_cross_entropy(kb_ctx *ctx, const float *logits, const int64_t *targets, float *loss, int64_t N,
                                   int64_t C)
{
    if (N < 0 || C <= 0)
        return kb_ctx_fail(ctx, "kb_op_cross_entropy: bad extent N = %lld, C = %lld", (long long)N, (long long)C);
    if (!loss)
        return kb_ctx_fail(ctx, "kb_op_cross_entropy: NULL loss pointer");
    cudaStream_t stream = kb_ctx_stream(ctx);
    if (N == 0) {
        /* Mean over no frames: NaN, as PyTorch (0xFFFFFFFF is a quiet NaN). */
        KB_OP_CUDA(ctx, cudaMemsetAsync(loss, 0xFF, sizeof(float), stream));
        return 0;
    }
    if (!logits || !targets)
        return kb_ctx_fail(ctx, "kb_op_cross_entropy: NULL tensor pointer");

    float *logp = (float *)kb_ctx_alloc(ctx, sizeof(float) * (size_t)N * (size_t)C);
    if (!logp)
        return -1;
    if (kb_op_softmax(ctx, logits, logp, N, C, 1) != 0) {
        kb_ctx_free(ctx, logp);
        return -1;
    }
    const int threads = nll_loss_threads(N);
    nll_loss_mean_kernel<<<1, threads, 2 * sizeof(float) * (size_t)threads, stream>>>(loss, logp, targets, N, C, C,
                                                                                       kIgnoreIndex);
    const cudaError_t launched = cudaGetLastError();
    kb_ctx_free(ctx, logp);
    KB_OP_CUDA(ctx, launched);
    return 0;
}

/* ---- elementwise loss kernels ------------------------------------------------------------ */

namespace {

constexpr int kEwThreads = 128; /* PyTorch num_threads() on CUDA */
constexpr int kEwThreadWork = 4;
constexpr int kEwBlockWork = kEwThreads * kEwThreadWork;

struct SmoothL1Op {
    float beta;
    __device__ __forceinline__ float operator()(float a, float b) const
    {
        const float z = fabsf(a - b);
        return z < beta ? 0.5f * z * z / beta : z - 0.5f * beta;
    }
};

struct XlogyOp {
    __device__ __forceinline__ float operator()(float x, float y) const
    {
        if (isnan(y))
            return NAN;
        if (x == 0.0f)
            return 0.0f;
        return x * logf(y);
    }
};

/* a, b, y 16-byte aligned: nvec float4 vectors, then the n % 4 tail elements by the first
 * threads of block 0. y may equal a or b (in place), so no __restrict__. */
template <typename Op>
__global__ void __launch_bounds__(kEwThreads)
binary_vec4_kernel(Op op, const float *a, const float *b, float *y, int64_t nvec, int tail)
{
    const float4 *av = reinterpret_cast<const float4 *>(a);
    const float4 *bv = reinterpret_cast<const float4 *>(b);
    float4 *yv = reinterpret_cast<float4 *>(y);
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += step) {
        const float4 u = av[i];
        const float4 v = bv[i];
        float4 w;
        w.x = op(u.x, v.x);
        w.y = op(u.y, v.y);
        w.z = op(u.z, v.z);
        w.w = op(u.w, v.w);
        yv[i] = w;
    }
    if (blockIdx.x == 0 && (int)threadIdx.x < tail) {
        const int64_t i = nvec * 4 + threadIdx.x;
        y[i] = op(a[i], b[i]);
    }
}

/* Unaligned pointers: PyTorch's unrolled policy, 4 elements per thread at stride 128. */
template <typename Op>
__global__ void __launch_bounds__(kEwThreads)
binary_scalar_kernel(Op op, const float *a, const float *b, float *y, int64_t n)
{
    const int64_t step = (int64_t)gridDim.x * kEwBlockWork;
    for (int64_t base = (int64_t)blockIdx.x * kEwBlockWork; base < n; base += step) {
        float u[kEwThreadWork], v[kEwThreadWork];
#pragma unroll
        for (int j = 0; j < kEwThreadWork; j++) {
            const int64_t i = base + threadIdx.x + (int64_t)j * kEwThreads;
            if (i < n) {
                u[j] = a[i];
                v[j] = b[i];
            }
        }
#pragma unroll
        for (int j = 0; j < kEwThreadWork; j++) {
            const int64_t i = base + threadIdx.x + (int64_t)j * kEwThreads;
            if (i < n)
                y[i] = op(u[j], v[j]);
        }
    }
}

static unsigned int ew_grid(int64_t work, int64_t per_block)
{
    int64_t blocks = (work + per_block - 1) / per_block;
    if (blocks < 1)
        blocks = 1;
    if (blocks > INT32_MAX)
        blocks = INT32_MAX;
    return (unsigned int)blocks;
}

template <typename Op>
static int launch_binary(kb_ctx *ctx, Op op, const float *a, const float *b, float *y, int64_t n, const char *name)
{
    if (n < 0)
        return kb_ctx_fail(ctx, "%s: negative element count %lld", name, (long long)n);
    if (n == 0)
        return 0;
    if (!a || !b || !y)
        return kb_ctx_fail(ctx, "%s: NULL tensor pointer", name);
    cudaStream_t stream = kb_ctx_stream(ctx);
    if ((((uintptr_t)a | (uintptr_t)b | (uintptr_t)y) % 16) == 0) {
        const int64_t nvec = n / 4;
        const int tail = (int)(n - nvec * 4);
        binary_vec4_kernel<Op><<<ew_grid(nvec, kEwThreads), kEwThreads, 0, stream>>>(op, a, b, y, nvec, tail);
    } else {
        binary_scalar_kernel<Op><<<ew_grid(n, kEwBlockWork), kEwThreads, 0, stream>>>(op, a, b, y, n);
    }
    KB_OP_LAUNCHED(ctx);
    return 0;
}

/* KB_NEW for C++ (the C macro is a compound literal). */
static kb_tensor new_result(void)
{
    return kb_ref_none();
}

static const char *shape_str(kb_tensor t, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int d = 0; d < t.ndim && used < len; d++)
        used += (size_t)snprintf(buf + used, len - used, "%s%lld", d ? "," : "", (long long)t.shape[d]);
    return buf;
}

/* Same-shape, contiguous, fp32 operands of a binary loss kernel; 0 (scope failed) if not. */
static int check_binary(kb_ref *r, kb_tensor a, kb_tensor b, const char *op)
{
    if (a.dtype != KB_F32 || b.dtype != KB_F32)
        return kb_ref_fail(r, "%s: expects fp32 operands, got dtypes %d and %d", op, (int)a.dtype, (int)b.dtype);
    if (!kb_same_shape(a, b)) {
        char sa[160], sb[160];
        return kb_ref_fail(r, "%s: expects operands of the same shape, got (%s) and (%s)", op, shape_str(a, sa, sizeof sa),
                           shape_str(b, sb, sizeof sb));
    }
    if (!kb_is_contiguous(a) || !kb_is_contiguous(b))
        return kb_ref_fail(r, "%s: expects contiguous operands", op);
    return 1;
}

/* apply_loss_reduction (Loss.cpp): unreduced.mean() / .sum() into `out`, then the unreduced
 * temporary is freed (its last reference goes when the ATen function returns). For NONE the
 * caller has written the loss into `out` already. */
static kb_tensor apply_reduction(kb_ref *r, kb_tensor out, kb_tensor unreduced, kb_reduction red)
{
    if (red == KB_REDUCTION_NONE)
        return unreduced;
    kb_tensor res = red == KB_REDUCTION_MEAN ? kb_mean(r, out, unreduced, KB_ALL_DIMS, 0)
                                             : kb_sum(r, out, unreduced, KB_ALL_DIMS, 0);
    kb_drop(r, unreduced);
    return res;
}

static int check_reduction(kb_ref *r, kb_reduction red, const char *op)
{
    if (red != KB_REDUCTION_NONE && red != KB_REDUCTION_MEAN && red != KB_REDUCTION_SUM)
        return kb_ref_fail(r, "%s: reduction must be KB_REDUCTION_NONE, _MEAN or _SUM, got %d", op, (int)red);
    return 1;
}

} /* namespace */

/* ---- tensor level (kb/ref/loss.h) -------------------------------------------------------- */

extern "C" kb_tensor kb_cross_entropy(kb_ref *r, kb_tensor out, kb_tensor logits, kb_tensor targets)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (logits.dtype != KB_F32 || logits.ndim != 2 || !kb_is_contiguous(logits)) {
        kb_ref_fail(r, "kb_cross_entropy: expects contiguous fp32 logits [N, C], got a %d-d tensor of dtype %d",
                    logits.ndim, (int)logits.dtype);
        return kb_ref_none();
    }
    if (targets.dtype != KB_I64 || targets.ndim != 1 || targets.shape[0] != logits.shape[0] ||
        !kb_is_contiguous(targets)) {
        kb_ref_fail(r, "kb_cross_entropy: expects contiguous int64 targets [%lld], got a %d-d tensor of dtype %d "
                       "and %lld elements",
                    (long long)logits.shape[0], targets.ndim, (int)targets.dtype, (long long)kb_numel(targets));
        return kb_ref_none();
    }
    kb_tensor res = kb_result(r, out, KB_F32, 0, logits.shape, "kb_cross_entropy");
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ref_check(r, kb_op_cross_entropy(kb_ref_ctx(r), kb_f32(r, logits), kb_i64(r, targets), kb_f32(r, res),
                                        logits.shape[0], logits.shape[1]));
    return res;
}

extern "C" kb_tensor kb_smooth_l1(kb_ref *r, kb_tensor out, kb_tensor input, kb_tensor target, double beta)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_binary(r, input, target, "kb_smooth_l1"))
        return kb_ref_none();
    if (!(beta > 0.0)) {
        kb_ref_fail(r, "kb_smooth_l1: beta must be > 0 (beta = 0 is l1_loss in ATen), got %g", beta);
        return kb_ref_none();
    }
    kb_tensor res = kb_result(r, out, KB_F32, input.ndim, input.shape, "kb_smooth_l1");
    if (!kb_ref_ok(r))
        return kb_ref_none();
    SmoothL1Op op;
    op.beta = (float)beta; /* scalar_t beta_val(beta) */
    kb_ref_check(r, launch_binary(kb_ref_ctx(r), op, kb_f32(r, input), kb_f32(r, target), kb_f32(r, res),
                                  kb_numel(input), "kb_smooth_l1"));
    return res;
}

extern "C" kb_tensor kb_smooth_l1_loss(kb_ref *r, kb_tensor out, kb_tensor input, kb_tensor target,
                                       kb_reduction reduction, double beta)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_reduction(r, reduction, "kb_smooth_l1_loss") || !check_binary(r, input, target, "kb_smooth_l1_loss"))
        return kb_ref_none();
    if (reduction == KB_REDUCTION_NONE)
        return kb_smooth_l1(r, out, input, target, beta);
    /* TORCH_META_FUNC(smooth_l1_loss) builds a binary TensorIterator on the (undefined)
     * functional output, which allocates it at the full broadcast shape, then resize_({})s it to
     * 0-d, which keeps that storage: the returned loss owns a full-size buffer (eager's peak
     * for L1/96 is inputs + 2 x 4 GiB). Counted here, never touched, freed with the scope. */
    kb_tensor meta_output = kb_empty_like(r, input);
    (void)meta_output;
    /* TORCH_IMPL_FUNC(smooth_l1_loss_out): `Tensor loss` filled by smooth_l1_stub, then
     * at::mean_out / at::sum_out into the result; `loss` dies when the function returns. */
    kb_tensor loss = kb_smooth_l1(r, new_result(), input, target, beta);
    return apply_reduction(r, out, loss, reduction);
}

extern "C" kb_tensor kb_xlogy(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor y)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_binary(r, x, y, "kb_xlogy"))
        return kb_ref_none();
    kb_tensor res = kb_result(r, out, KB_F32, x.ndim, x.shape, "kb_xlogy");
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ref_check(r, launch_binary(kb_ref_ctx(r), XlogyOp(), kb_f32(r, x), kb_f32(r, y), kb_f32(r, res), kb_numel(x),
                                  "kb_xlogy"));
    return res;
}

extern "C" kb_tensor kb_kl_div(kb_ref *r, kb_tensor out, kb_tensor input, kb_tensor target, kb_reduction reduction,
                               int log_target)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_reduction(r, reduction, "kb_kl_div") || !check_binary(r, input, target, "kb_kl_div"))
        return kb_ref_none();
    /* `output = A - B` (or A * B): A and B are C++ temporaries of that full expression, alive
     * until the subtraction has produced `output`, then freed. */
    const kb_tensor dst = reduction == KB_REDUCTION_NONE ? out : new_result();
    kb_tensor output;
    if (!log_target) {
        kb_tensor a = kb_xlogy(r, new_result(), target, target);
        kb_tensor b = kb_mul(r, new_result(), target, input);
        output = kb_sub(r, dst, a, b);
        kb_drop(r, a);
        kb_drop(r, b);
    } else {
        kb_tensor a = kb_exp(r, new_result(), target);
        kb_tensor b = kb_sub(r, new_result(), target, input);
        output = kb_mul(r, dst, a, b);
        kb_drop(r, a);
        kb_drop(r, b);
    }
    if (!kb_ref_ok(r))
        return kb_ref_none();
    return apply_reduction(r, out, output, reduction);
}

extern "C" kb_tensor kb_pairwise_distance(kb_ref *r, kb_tensor out, kb_tensor x1, kb_tensor x2, double p, double eps)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_binary(r, x1, x2, "kb_pairwise_distance"))
        return kb_ref_none();
    if (x1.ndim < 1) {
        kb_ref_fail(r, "kb_pairwise_distance: expects tensors of at least 1 dimension, got 0-d");
        return kb_ref_none();
    }
    /* at::norm(x1 - x2 + eps, p, innermost_dim, keepdim): both temporaries of the full
     * expression live until norm has returned. */
    kb_tensor diff = kb_sub(r, new_result(), x1, x2);
    kb_tensor shifted = kb_adds(r, new_result(), diff, eps);
    kb_tensor res = kb_norm(r, out, shifted, p, -1, 0);
    kb_drop(r, diff);
    kb_drop(r, shifted);
    return kb_ref_ok(r) ? res : kb_ref_none();
}

extern "C" kb_tensor kb_triplet_margin_loss(kb_ref *r, kb_tensor out, kb_tensor anchor, kb_tensor positive,
                                            kb_tensor negative, double margin, double p, double eps,
                                            kb_reduction reduction)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_reduction(r, reduction, "kb_triplet_margin_loss"))
        return kb_ref_none();
    if (anchor.ndim != positive.ndim || positive.ndim != negative.ndim) {
        kb_ref_fail(r, "kb_triplet_margin_loss: all inputs should have the same dimension, got %dD, %dD and %dD",
                    anchor.ndim, positive.ndim, negative.ndim);
        return kb_ref_none();
    }
    kb_tensor dist_pos = kb_pairwise_distance(r, new_result(), anchor, positive, p, eps);
    kb_tensor dist_neg = kb_pairwise_distance(r, new_result(), anchor, negative, p, eps);
    /* at::clamp_min(margin + dist_pos - dist_neg, 0): `margin + t` is t.add(margin) (ATen's
     * scalar-first operator+), then sub, then clamp_min; the two temporaries die with the
     * full expression. */
    kb_tensor shifted = kb_adds(r, new_result(), dist_pos, margin);
    kb_tensor gap = kb_sub(r, new_result(), shifted, dist_neg);
    kb_tensor output = kb_clamp(r, reduction == KB_REDUCTION_NONE ? out : new_result(), gap, 0.0, NAN);
    kb_drop(r, shifted);
    kb_drop(r, gap);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_tensor res = apply_reduction(r, out, output, reduction);
    kb_drop(r, dist_pos);
    kb_drop(r, dist_neg);
    return kb_ref_ok(r) ? res : kb_ref_none();
}
