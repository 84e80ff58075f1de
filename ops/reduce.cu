/*
 * ops/reduce.cu -- reductions and arg-reductions of one dimension (or of the whole tensor) of a
 * tensor viewed as [outer, len, inner]: the raw kb_op_reduce_dim (kb/ops.h) and kb_op_reduce
 * (kb/ref/reduce.h), and the tensor-level kb_sum / kb_mean / kb_prod / kb_amax / kb_amin / kb_norm
 * / kb_max_dim / kb_min_dim / kb_argmax / kb_argmin of kb/ref/reduce.h.
 *
 * Eager PyTorch runs every one of these as one gpu_reduce_kernel (ATen/native/cuda/Reduce.cuh)
 * with an op struct (SharedReduceOps.h): func_wrapper(a + b) for sum (ReduceSumProdKernel.cu),
 * a * b for prod, MeanOps (sum, then * factor, ReduceMomentKernel.cu), MaxNanFunctor /
 * MinNanFunctor for amax / amin (ReduceMaxValuesKernel.cu, ReduceMinValuesKernel.cu),
 * NormOneOps / NormTwoOps (ReduceNormKernel.cu: acc + |x|, acc + x*x then sqrt), and
 * MaxOps / MinOps (torch.max(x, dim) / torch.min(x, dim): one pass, a (value, int64 index)
 * accumulator, two outputs) and ArgMaxOps / ArgMinOps (the same accumulator, only the index
 * written). The comparator is GreaterOrNan / LessOrNan: NaN wins, ties go to the lower index.
 * Its launch geometry comes from setReduceConfig(); this file re-derives that configuration for
 * the two layouts a [outer, len, inner] reduction has:
 *
 *   inner == 1  "row" reduction (reduced dim is the contiguous one): block.x splits the row
 *               (float4 loads when len >= 128, "vectorize along input"), block.y either splits the
 *               row further or takes other rows; warp shuffles + shared memory combine lanes.
 *               A full reduction (KB_ALL_DIMS) is this with outer = 1, len = numel: TensorIterator
 *               coalesces a contiguous tensor to one dimension.
 *   inner > 1   "column" reduction: block.x runs over 32 consecutive outputs (coalesced 128-byte
 *               rows; float2/float4 loads of neighbouring outputs when inner % 4 == 0, "vectorize
 *               along output"), block.y splits the reduced dim and a shared-memory tree combines
 *               the warps.
 *   In both, when there are too few outputs to fill the GPU (grid <= SMs * blocks per SM) and each
 *   thread would still sum >= 256 values, the reduced dim is also split across blockIdx.y and a
 *   last-block-done semaphore combines the partials through global memory ("global reduce").
 * Each thread keeps vt0 = 4 independent accumulators (4 loads in flight), as PyTorch does, and
 * the kernel's launch bounds are PyTorch's (512 / output_vec_size threads, 4 blocks per SM).
 * Accumulation is in float (PyTorch's acc_type for float on CUDA); MEAN multiplies the sum by
 * float(num_outputs) / float(numel) like MeanOps. For the index reductions the comparator breaks
 * ties by index, so the result is the first extreme whatever the combination order.
 *
 * Differences from PyTorch: one launch with 64-bit offsets, where TensorIterator splits a tensor
 * above 2^31 bytes into 32-bit-indexable launches (L1/47 becomes 4 launches of 32 x 4095 columns
 * each; the per-launch configuration is the one computed here for the whole tensor). Only
 * contiguous inputs and one reduced dimension (or all of them) are supported; the tensor-level
 * ops fail the scope with a message otherwise.
 *
 * Napkin math, L1/47: x (128, 4096, 4095) fp32 = 8.59 GB read once, 2 MB written. Column
 * reduction: 128 * 4095 = 524160 outputs, block (32, 16) = 512 threads, 16380 blocks; each thread
 * sums 256 values with 4 loads in flight; 4 blocks/SM x 16 warps x 4 x 128 B = 32 KB in flight per
 * SM, enough to run at ~4.1-4.2 TB/s: ~2.07 ms, which is eager PyTorch's time on the H200.
 * Measured with the float-only version of this kernel on the H200: 2.10 ms (sum, mean, amax).
 * The (value, index) reductions (L1/49, 51, 52, 53) run the same geometry with a 16-byte
 * accumulator; eager takes 2.72 ms for them (the compare-and-select chain per load, not the
 * bandwidth, sets that time).
 */
#include <math.h>
#include <stdint.h>

#include "kb/ref.h"

namespace {

constexpr int kMaxThreads = 512; /* mnt_wrapper<float>::MAX_NUM_THREADS */
constexpr int kVt0 = 4;          /* accumulators (loads in flight) per thread */
constexpr int kInputVec = 4;     /* input_vec_size for float */
constexpr int kWarp = 32;

/* Launch configuration: the fields of PyTorch's ReduceConfig that the kernel reads. */
struct ReduceParams {
    int64_t num_outputs; /* outer * inner */
    int64_t num_inputs;  /* len */
    int64_t inner;       /* element stride of the reduced dim; 1 for a row reduction */
    int64_t outer_stride; /* len * inner */
    int64_t step_input;
    int64_t step_output;
    int64_t input_mult[3];
    int64_t output_mult[2];
    int ctas_per_output;
    float factor; /* MEAN: float(num_outputs) / float(numel) */
};

__device__ __forceinline__ bool block_x_reduce_on(const ReduceParams &p) { return p.input_mult[0] != 0; }
__device__ __forceinline__ bool block_y_reduce_on(const ReduceParams &p) { return p.input_mult[1] != 0; }
__device__ __forceinline__ bool global_reduce_on(const ReduceParams &p) { return p.input_mult[2] != 0; }

/* (value, index) accumulator of MaxOps / MinOps / ArgMaxOps / ArgMinOps (thrust::pair<float, int64_t>). */
struct ValIdx {
    float v;
    int64_t i;
};

__device__ __forceinline__ float shfl_down(float v, int offset) { return __shfl_down_sync(0xffffffffu, v, offset); }
__device__ __forceinline__ ValIdx shfl_down(ValIdx a, int offset)
{
    ValIdx r;
    r.v = __shfl_down_sync(0xffffffffu, a.v, offset);
    r.i = (int64_t)__shfl_down_sync(0xffffffffu, (long long)a.i, offset);
    return r;
}

/* The reductions. acc_t: the accumulator; ident: its identity; reduce: fold one input element
 * (with its index along the reduced dim); combine: merge two accumulators; store: project and
 * write output element o (values to out0 as float, indices to out1 as int64, either may be NULL
 * for the index reductions). */
struct SumOp {
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 0.0f; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return a + x; }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
    static __device__ __forceinline__ void store(void *out0, int64_t *, int64_t o, float a, float)
    {
        ((float *)out0)[o] = a;
    }
};

struct MeanOp { /* MeanOps: sum, project = acc * factor */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 0.0f; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return a + x; }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
    static __device__ __forceinline__ void store(void *out0, int64_t *, int64_t o, float a, float factor)
    {
        ((float *)out0)[o] = a * factor;
    }
};

struct ProdOp {
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 1.0f; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return a * x; }
    static __device__ __forceinline__ float combine(float a, float b) { return a * b; }
    static __device__ __forceinline__ void store(void *out0, int64_t *, int64_t o, float a, float)
    {
        ((float *)out0)[o] = a;
    }
};

struct AmaxOp { /* MaxNanFunctor: (a > b || isnan(a)) ? a : b */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return -INFINITY; }
    static __device__ __forceinline__ float combine(float a, float b) { return (isnan(a) || a > b) ? a : b; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return combine(a, x); }
    static __device__ __forceinline__ void store(void *out0, int64_t *, int64_t o, float a, float)
    {
        ((float *)out0)[o] = a;
    }
};

struct AminOp { /* MinNanFunctor */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return INFINITY; }
    static __device__ __forceinline__ float combine(float a, float b) { return (isnan(a) || a < b) ? a : b; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return combine(a, x); }
    static __device__ __forceinline__ void store(void *out0, int64_t *, int64_t o, float a, float)
    {
        ((float *)out0)[o] = a;
    }
};

struct Norm1Op { /* NormOneOps: acc + |x| */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 0.0f; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return a + fabsf(x); }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
    static __device__ __forceinline__ void store(void *out0, int64_t *, int64_t o, float a, float)
    {
        ((float *)out0)[o] = a;
    }
};

struct Norm2Op { /* NormTwoOps: acc + x * x (contracted to an fma, as nvcc does PyTorch's), sqrt */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 0.0f; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return a + x * x; }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
    static __device__ __forceinline__ void store(void *out0, int64_t *, int64_t o, float a, float)
    {
        ((float *)out0)[o] = sqrtf(a);
    }
};

/* MaxOps / ArgMaxOps: GreaterOrNan -- NaN beats everything (two NaNs: lower index), equal values:
 * lower index, else the larger value. */
struct MaxIdxOp {
    using acc_t = ValIdx;
    static __device__ __forceinline__ ValIdx ident() { return ValIdx{-INFINITY, 0}; }
    static __device__ __forceinline__ ValIdx combine(ValIdx a, ValIdx b)
    {
        bool take_a;
        if (isnan(a.v))
            take_a = isnan(b.v) ? a.i < b.i : true;
        else
            take_a = (a.v == b.v) ? a.i < b.i : (a.v > b.v);
        return take_a ? a : b;
    }
    static __device__ __forceinline__ ValIdx reduce(ValIdx a, float x, int64_t idx) { return combine(a, ValIdx{x, idx}); }
    static __device__ __forceinline__ void store(void *out0, int64_t *out1, int64_t o, ValIdx a, float)
    {
        if (out0)
            ((float *)out0)[o] = a.v;
        if (out1)
            out1[o] = a.i;
    }
};

/* MinOps / ArgMinOps: LessOrNan. */
struct MinIdxOp {
    using acc_t = ValIdx;
    static __device__ __forceinline__ ValIdx ident() { return ValIdx{INFINITY, 0}; }
    static __device__ __forceinline__ ValIdx combine(ValIdx a, ValIdx b)
    {
        bool take_a;
        if (isnan(a.v))
            take_a = isnan(b.v) ? a.i < b.i : true;
        else
            take_a = (a.v == b.v) ? a.i < b.i : (a.v < b.v);
        return take_a ? a : b;
    }
    static __device__ __forceinline__ ValIdx reduce(ValIdx a, float x, int64_t idx) { return combine(a, ValIdx{x, idx}); }
    static __device__ __forceinline__ void store(void *out0, int64_t *out1, int64_t o, ValIdx a, float)
    {
        if (out0)
            ((float *)out0)[o] = a.v;
        if (out1)
            out1[o] = a.i;
    }
};

/* Partials written by other blocks: read through L2 (ld.global.cg), never a stale L1 line. */
__device__ __forceinline__ float load_staged(const float *p) { return __ldcg(p); }
__device__ __forceinline__ ValIdx load_staged(const ValIdx *p)
{
    ValIdx r;
    r.v = __ldcg(&p->v);
    r.i = (int64_t)__ldcg(reinterpret_cast<const long long *>(&p->i));
    return r;
}

template <int N>
struct alignas(4 * N) VecF {
    float v[N];
};

/* Threads of a block that take part in the tail of a split row or in the head/tail elements. */
__device__ __forceinline__ bool should_reduce_tail(const ReduceParams &p)
{
    return (!block_y_reduce_on(p) || threadIdx.y == 0) && (!global_reduce_on(p) || blockIdx.y == 0);
}

__device__ __forceinline__ bool should_store(const ReduceParams &p, int64_t output_idx)
{
    return output_idx < p.num_outputs && (!block_x_reduce_on(p) || threadIdx.x == 0) &&
           (!block_y_reduce_on(p) || threadIdx.y == 0);
}

/* Strided thread reduction (PyTorch's thread_reduce_impl): kVt0 accumulators, each taking every
 * kVt0-th of this thread's values; OVEC neighbouring outputs per load. */
template <class O, int OVEC>
__device__ __forceinline__ void thread_reduce_strided(const ReduceParams &p, const float *data, int64_t idx,
                                                      typename O::acc_t (&out)[OVEC])
{
    using acc_t = typename O::acc_t;
    const int64_t end = p.num_inputs;
    const int64_t stride = p.step_input;
    const int64_t elem = p.inner;
    acc_t acc[kVt0][OVEC];
    VecF<OVEC> vals[kVt0];
#pragma unroll
    for (int i = 0; i < kVt0; i++)
#pragma unroll
        for (int j = 0; j < OVEC; j++)
            acc[i][j] = O::ident();

    while (idx + (kVt0 - 1) * stride < end) {
#pragma unroll
        for (int i = 0; i < kVt0; i++)
            vals[i] = *reinterpret_cast<const VecF<OVEC> *>(data + (idx + i * stride) * elem);
#pragma unroll
        for (int i = 0; i < kVt0; i++)
#pragma unroll
            for (int j = 0; j < OVEC; j++)
                acc[i][j] = O::reduce(acc[i][j], vals[i].v[j], idx + i * stride);
        idx += stride * kVt0;
    }
    /* Tail: fewer than kVt0 values left for this thread. */
#pragma unroll
    for (int i = 0; i < kVt0; i++) {
        if (idx + i * stride >= end)
            break;
        vals[i] = *reinterpret_cast<const VecF<OVEC> *>(data + (idx + i * stride) * elem);
#pragma unroll
        for (int j = 0; j < OVEC; j++)
            acc[i][j] = O::reduce(acc[i][j], vals[i].v[j], idx + i * stride);
    }
#pragma unroll
    for (int i = 1; i < kVt0; i++)
#pragma unroll
        for (int j = 0; j < OVEC; j++)
            acc[0][j] = O::combine(acc[0][j], acc[i][j]);
#pragma unroll
    for (int j = 0; j < OVEC; j++)
        out[j] = acc[0][j];
}

/* Contiguous row, float4 loads (PyTorch's input_vectorized_thread_reduce_impl): the unaligned
 * head of the row (at most 3 elements) and its tail (at most 3) are reduced by the first lanes
 * of the threads that own the row's first chunk; idx counts float4 vectors. `base` is the index
 * (along the row) of data[0] once the head is skipped. */
template <class O>
__device__ __forceinline__ typename O::acc_t thread_reduce_vec_input(const ReduceParams &p, const float *data,
                                                                     int64_t idx)
{
    using acc_t = typename O::acc_t;
    int64_t end = p.num_inputs;
    int64_t base = 0;
    acc_t value = O::ident();
    const int shift = (int)(((uintptr_t)data % 16) / sizeof(float));
    if (shift > 0) {
        data -= shift;
        end += shift;
        const int t = (int)threadIdx.x;
        if (t >= shift && t < kInputVec && t < end && should_reduce_tail(p))
            value = O::reduce(value, data[t], (int64_t)(t - shift));
        end -= kInputVec;
        data += kInputVec;
        base = kInputVec - shift;
    }
    const int64_t stride = p.step_input;
    acc_t acc[kInputVec];
    acc[0] = value;
#pragma unroll
    for (int i = 1; i < kInputVec; i++)
        acc[i] = O::ident();
    while (idx * kInputVec + kInputVec - 1 < end) {
        const float4 v = *reinterpret_cast<const float4 *>(data + idx * kInputVec);
        const int64_t e = base + idx * kInputVec;
        acc[0] = O::reduce(acc[0], v.x, e);
        acc[1] = O::reduce(acc[1], v.y, e + 1);
        acc[2] = O::reduce(acc[2], v.z, e + 2);
        acc[3] = O::reduce(acc[3], v.w, e + 3);
        idx += stride;
    }
    if (end > 0 && should_reduce_tail(p)) {
        const int64_t t = end - end % kInputVec + threadIdx.x;
        if (t < end)
            acc[0] = O::reduce(acc[0], data[t], base + t);
    }
#pragma unroll
    for (int i = 1; i < kInputVec; i++)
        acc[0] = O::combine(acc[0], acc[i]);
    return acc[0];
}

/* Tree over threadIdx.y in shared memory; the result is valid in the threads with y == 0. */
template <class O, int OVEC>
__device__ __forceinline__ void block_y_reduce(typename O::acc_t (&value)[OVEC], typename O::acc_t *shared)
{
    const int base = (int)(threadIdx.x + threadIdx.y * blockDim.x);
#pragma unroll
    for (int j = 0; j < OVEC; j++)
        shared[base * OVEC + j] = value[j];
    for (int offset = (int)blockDim.y / 2; offset > 0; offset >>= 1) {
        __syncthreads();
        if ((int)threadIdx.y < offset && (int)threadIdx.y + offset < (int)blockDim.y) {
            const int other = base + offset * (int)blockDim.x;
#pragma unroll
            for (int j = 0; j < OVEC; j++) {
                value[j] = O::combine(value[j], shared[other * OVEC + j]);
                shared[base * OVEC + j] = value[j];
            }
        }
    }
    __syncthreads(); /* shared is reused by the next step */
}

/* Reduction over threadIdx.x: shared-memory halving down to a warp, then shuffles; the result
 * is valid in the threads with x == 0. Only used with OVEC == 1 (row reductions). */
template <class O>
__device__ __forceinline__ typename O::acc_t block_x_reduce(typename O::acc_t value, typename O::acc_t *shared)
{
    int dim_x = (int)blockDim.x;
    if (dim_x > kWarp) {
        const int base = (int)(threadIdx.x + threadIdx.y * blockDim.x);
        shared[base] = value;
        for (int offset = dim_x / 2; offset >= kWarp; offset >>= 1) {
            __syncthreads();
            if ((int)threadIdx.x < offset && (int)threadIdx.x + offset < (int)blockDim.x) {
                value = O::combine(value, shared[base + offset]);
                shared[base] = value;
            }
        }
        dim_x = kWarp;
    }
    __syncthreads();
    for (int offset = 1; offset < dim_x; offset <<= 1)
        value = O::combine(value, shfl_down(value, offset));
    return value;
}

/* One kernel for every layout: OVEC outputs per thread (column reductions, inner % OVEC == 0),
 * VEC_INPUT for float4 loads along a contiguous row. All threads reach every barrier and every
 * shuffle (no early exit), so blockDim.x < 32 rows sharing a warp are safe. */
template <class O, int OVEC, bool VEC_INPUT>
__global__ void __launch_bounds__(kMaxThreads / OVEC, 4)
reduce_kernel(const float *x, void *out0, int64_t *out1, typename O::acc_t *cta_buf, int *semaphores,
              ReduceParams p)
{
    using acc_t = typename O::acc_t;
    extern __shared__ __align__(16) unsigned char shared_raw[];
    acc_t *shared = reinterpret_cast<acc_t *>(shared_raw);

    const int64_t output_idx = ((int64_t)threadIdx.x * p.output_mult[0] + (int64_t)threadIdx.y * p.output_mult[1] +
                                (int64_t)blockIdx.x * p.step_output) * OVEC;
    const int64_t input_idx = (int64_t)threadIdx.x * p.input_mult[0] + (int64_t)threadIdx.y * p.input_mult[1] +
                              (int64_t)blockIdx.y * p.input_mult[2];

    acc_t value[OVEC];
#pragma unroll
    for (int j = 0; j < OVEC; j++)
        value[j] = O::ident();

    if (output_idx < p.num_outputs && input_idx < p.num_inputs) {
        const int64_t o_outer = output_idx / p.inner;
        const int64_t o_inner = output_idx - o_outer * p.inner;
        const float *slice = x + o_outer * p.outer_stride + o_inner;
        if (VEC_INPUT)
            value[0] = thread_reduce_vec_input<O>(p, slice, input_idx);
        else
            thread_reduce_strided<O, OVEC>(p, slice, input_idx, value);
    }

    if (block_y_reduce_on(p))
        block_y_reduce<O, OVEC>(value, shared);
    if (OVEC == 1 && block_x_reduce_on(p))
        value[0] = block_x_reduce<O>(value[0], shared);

    const bool store = should_store(p, output_idx);
    if (!global_reduce_on(p)) {
        if (store) {
#pragma unroll
            for (int j = 0; j < OVEC; j++)
                O::store(out0, out1, output_idx + j, value[j], p.factor);
        }
        return;
    }

    /* Global reduce: every block of a column of blockIdx.y stages its partial; the last one to
     * finish (semaphore per blockIdx.x) combines them. */
    int64_t staging = (int64_t)blockIdx.y + (int64_t)blockIdx.x * gridDim.y;
    if (!block_x_reduce_on(p))
        staging = threadIdx.x + staging * blockDim.x;
    if (store) {
#pragma unroll
        for (int j = 0; j < OVEC; j++)
            cta_buf[staging * OVEC + j] = value[j];
    }
    __threadfence();
    __syncthreads();

    __shared__ bool is_last_block_done;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        const int prev = atomicAdd(&semaphores[blockIdx.x], 1);
        is_last_block_done = (prev == (int)gridDim.y - 1);
    }
    __syncthreads();
    if (!is_last_block_done)
        return; /* uniform across the block: no barrier or shuffle is skipped by part of it */

    __threadfence();
    const acc_t *staged = cta_buf;
#pragma unroll
    for (int j = 0; j < OVEC; j++)
        value[j] = O::ident();
    if (block_x_reduce_on(p)) {
        const int64_t step = (int64_t)blockDim.x * blockDim.y;
        for (int64_t c = threadIdx.x + (int64_t)threadIdx.y * blockDim.x; c < p.ctas_per_output; c += step) {
            const int64_t s = c + (int64_t)blockIdx.x * gridDim.y;
            value[0] = O::combine(value[0], load_staged(staged + s));
        }
    } else {
        for (int64_t c = threadIdx.y; c < p.ctas_per_output; c += blockDim.y) {
            const int64_t s = threadIdx.x + (c + (int64_t)blockIdx.x * gridDim.y) * blockDim.x;
#pragma unroll
            for (int j = 0; j < OVEC; j++)
                value[j] = O::combine(value[j], load_staged(staged + s * OVEC + j));
        }
    }
    block_y_reduce<O, OVEC>(value, shared);
    if (OVEC == 1 && block_x_reduce_on(p))
        value[0] = block_x_reduce<O>(value[0], shared);
    if (store) {
#pragma unroll
        for (int j = 0; j < OVEC; j++)
            O::store(out0, out1, output_idx + j, value[j], p.factor);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Host side: setReduceConfig() for the [outer, len, inner] layouts.                         */

static int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* floor(log2(n)) as a power of two, at least 1 (PyTorch's last_pow2). */
static int last_pow2(int64_t n)
{
    int p = 1;
    while ((int64_t)p * 2 <= n && p < (1 << 30))
        p *= 2;
    return p;
}

struct HostConfig {
    ReduceParams p;
    int block_width, block_height, num_threads;
    int output_vec_size;
    bool vectorize_input;
    int64_t grid_x;
    int shared_bytes;
    size_t global_bytes;
};

static int64_t split_input(ReduceParams &p, int64_t parallelism)
{
    const int64_t step = p.step_input;
    p.step_input *= parallelism;
    return step;
}

static int64_t split_output(ReduceParams &p, int64_t parallelism)
{
    const int64_t step = p.step_output;
    p.step_output *= parallelism;
    return step;
}

static HostConfig make_config(const float *x, int64_t outer, int64_t len, int64_t inner, size_t acc_size,
                              int num_sms, int max_threads_per_sm)
{
    HostConfig c = {};
    ReduceParams &p = c.p;
    p.num_outputs = outer * inner;
    p.num_inputs = len;
    p.inner = inner;
    p.outer_stride = len * inner;
    p.step_input = 1;
    p.step_output = 1;
    p.ctas_per_output = 1;
    c.output_vec_size = 1;

    /* TensorIterator puts the reduced dim first; it is the fastest-striding one when inner == 1. */
    const bool row = (inner == 1);
    int64_t dim0 = row ? len : p.num_outputs;
    const int64_t dim1 = row ? p.num_outputs : len;
    if (row) {
        if (dim0 >= 128) {
            c.vectorize_input = true; /* "vectorize along input" */
            dim0 /= kInputVec;
        }
    } else {
        /* "vectorize along output": the widest of 4, 2, 1 dividing the input address (in
         * elements), inner and every input stride other than the inner one. */
        int vec = 4;
        const uint64_t base = (uint64_t)(uintptr_t)x / sizeof(float);
        while (vec > 1 && (base % vec || inner % vec || (len * inner) % vec))
            vec /= 2;
        c.output_vec_size = vec;
        dim0 /= vec;
    }

    /* set_block_dimension */
    const int max_num_threads = kMaxThreads / c.output_vec_size;
    const int dim0_pow2 = dim0 < max_num_threads ? last_pow2(dim0) : max_num_threads;
    const int dim1_pow2 = dim1 < max_num_threads ? last_pow2(dim1) : max_num_threads;
    c.block_width = dim0_pow2 < kWarp ? dim0_pow2 : kWarp;
    c.block_height = dim1_pow2 < max_num_threads / c.block_width ? dim1_pow2 : max_num_threads / c.block_width;
    c.block_width = dim0_pow2 < max_num_threads / c.block_height ? dim0_pow2 : max_num_threads / c.block_height;
    c.num_threads = c.block_width * c.block_height;

    if (row)
        p.input_mult[0] = split_input(p, c.block_width);
    else
        p.output_mult[0] = split_output(p, c.block_width);

    const int min_values_per_thread = 16;
    const int max_values_per_thread = 256;
    int64_t values_per_thread = div_up(p.num_inputs, p.step_input);
    const int64_t warp_split_threshold =
        (int64_t)c.block_height * 16 < max_values_per_thread ? (int64_t)c.block_height * 16 : max_values_per_thread;
    if (values_per_thread >= warp_split_threshold)
        p.input_mult[1] = split_input(p, c.block_height);
    else
        p.output_mult[1] = split_output(p, c.block_height);

    const int blocks_per_sm = max_threads_per_sm / c.num_threads;
    const int64_t target_grid_size = (int64_t)num_sms * blocks_per_sm;
    c.grid_x = div_up(p.num_outputs / c.output_vec_size, p.step_output);
    values_per_thread = div_up(p.num_inputs, p.step_input);
    if (p.input_mult[1] != 0 && values_per_thread >= max_values_per_thread && c.grid_x <= target_grid_size) {
        const int64_t c1 = div_up(target_grid_size, c.grid_x);
        const int64_t c2 = div_up(values_per_thread, min_values_per_thread);
        const int64_t c3 = div_up(values_per_thread, max_values_per_thread);
        int64_t ctas = c1 < c2 ? c1 : c2;
        if (c3 > ctas)
            ctas = c3;
        if (ctas > 65535) /* gridDim.y limit; each thread then just sums more values */
            ctas = 65535;
        p.ctas_per_output = (int)ctas;
        if (ctas > 1)
            p.input_mult[2] = split_input(p, ctas);
    }

    const bool bx = p.input_mult[0] != 0, by = p.input_mult[1] != 0, gr = p.input_mult[2] != 0;
    c.shared_bytes = (!by && (!bx || c.block_width <= kWarp)) ? 0 : (int)(acc_size * c.num_threads * c.output_vec_size);
    c.global_bytes = 0;
    if (gr) {
        /* PyTorch's global_memory_size(), allocated the same way (it over-allocates by
         * block.x * output_vec_size when block.x holds outputs). */
        size_t size = acc_size * (size_t)p.num_outputs * (size_t)p.ctas_per_output;
        if (!bx)
            size *= (size_t)c.block_width * c.output_vec_size;
        c.global_bytes = size;
    }
    return c;
}

template <class O, int OVEC, bool VEC_INPUT>
static void launch_reduce(const HostConfig &c, const float *x, void *out0, int64_t *out1, void *cta_buf, int *sem,
                          cudaStream_t s)
{
    const dim3 block((unsigned)c.block_width, (unsigned)c.block_height);
    const dim3 grid((unsigned)c.grid_x, (unsigned)c.p.ctas_per_output);
    reduce_kernel<O, OVEC, VEC_INPUT><<<grid, block, c.shared_bytes, s>>>(
        x, out0, out1, reinterpret_cast<typename O::acc_t *>(cta_buf), sem, c.p);
}

template <class O>
static void launch_reduce_op(const HostConfig &c, const float *x, void *out0, int64_t *out1, void *cta_buf, int *sem,
                             cudaStream_t s)
{
    if (c.vectorize_input)
        launch_reduce<O, 1, true>(c, x, out0, out1, cta_buf, sem, s);
    else if (c.output_vec_size == 4)
        launch_reduce<O, 4, false>(c, x, out0, out1, cta_buf, sem, s);
    else if (c.output_vec_size == 2)
        launch_reduce<O, 2, false>(c, x, out0, out1, cta_buf, sem, s);
    else
        launch_reduce<O, 1, false>(c, x, out0, out1, cta_buf, sem, s);
}

__global__ void fill_f32(float *y, int64_t n, float v)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = v;
}

static const char *op_name(kb_reduce_op op)
{
    switch (op) {
    case KB_RED_SUM: return "sum";
    case KB_RED_MEAN: return "mean";
    case KB_RED_PROD: return "prod";
    case KB_RED_AMAX: return "amax";
    case KB_RED_AMIN: return "amin";
    case KB_RED_NORM1: return "norm(p=1)";
    case KB_RED_NORM2: return "norm(p=2)";
    case KB_RED_MAX_IDX: return "max/argmax";
    case KB_RED_MIN_IDX: return "min/argmin";
    }
    return "?";
}

} /* namespace */

/* ---------------------------------------------------------------------------------------- */
/* Raw entry points.                                                                         */

extern "C" int kb_op_reduce(kb_ctx *ctx, kb_reduce_op op, const float *x, float *values, int64_t *indices,
                            int64_t outer, int64_t len, int64_t inner)
{
    if (outer < 0 || len < 0 || inner < 0)
        return kb_ctx_fail(ctx, "kb_op_reduce: negative extent [%lld, %lld, %lld]", (long long)outer,
                           (long long)len, (long long)inner);
    if ((int)op < (int)KB_RED_SUM || (int)op > (int)KB_RED_MIN_IDX)
        return kb_ctx_fail(ctx, "kb_op_reduce: unknown op %d", (int)op);
    const bool index_op = (op == KB_RED_MAX_IDX || op == KB_RED_MIN_IDX);
    if (index_op ? (!values && !indices) : (!values || indices))
        return kb_ctx_fail(ctx, "kb_op_reduce: %s needs %s", op_name(op),
                           index_op ? "values and/or indices" : "values only (no indices)");
    const int64_t n_out = outer * inner;
    if (n_out == 0)
        return 0; /* no outputs */
    cudaStream_t stream = kb_ctx_stream(ctx);
    if (len == 0) {
        /* PyTorch: the empty sum / norm is 0, the empty product 1, the empty mean NaN; max, min,
         * argmax and argmin of nothing raise. */
        float v;
        switch (op) {
        case KB_RED_SUM: case KB_RED_NORM1: case KB_RED_NORM2: v = 0.0f; break;
        case KB_RED_PROD: v = 1.0f; break;
        case KB_RED_MEAN: v = NAN; break;
        default:
            return kb_ctx_fail(ctx, "kb_op_reduce: %s over an empty dimension", op_name(op));
        }
        const int64_t blocks = div_up(n_out, 256) < 65536 ? div_up(n_out, 256) : 65536;
        fill_f32<<<(unsigned)blocks, 256, 0, stream>>>(values, n_out, v);
        KB_OP_LAUNCHED(ctx);
        return 0;
    }
    if (!x)
        return kb_ctx_fail(ctx, "kb_op_reduce: NULL input pointer");

    int dev = 0, num_sms = 0, max_threads_per_sm = 0;
    KB_OP_CUDA(ctx, cudaGetDevice(&dev));
    KB_OP_CUDA(ctx, cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, dev));
    KB_OP_CUDA(ctx, cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));

    const size_t acc_size = index_op ? sizeof(ValIdx) : sizeof(float);
    HostConfig c = make_config(x, outer, len, inner, acc_size, num_sms, max_threads_per_sm);
    if (c.grid_x > INT32_MAX)
        return kb_ctx_fail(ctx, "kb_op_reduce: %lld blocks exceed the grid limit", (long long)c.grid_x);
    c.p.factor = (float)c.p.num_outputs / (float)(c.p.num_outputs * len);

    void *cta_buf = NULL;
    int *sem = NULL;
    if (c.global_bytes) {
        cta_buf = kb_ctx_alloc(ctx, c.global_bytes);
        if (!cta_buf)
            return -1;
        sem = (int *)kb_ctx_alloc(ctx, sizeof(int) * (size_t)c.grid_x);
        if (!sem) {
            kb_ctx_free(ctx, cta_buf);
            return -1;
        }
        const cudaError_t e = cudaMemsetAsync(sem, 0, sizeof(int) * (size_t)c.grid_x, stream);
        if (e != cudaSuccess) {
            kb_ctx_free(ctx, sem);
            kb_ctx_free(ctx, cta_buf);
            KB_OP_CUDA(ctx, e);
        }
    }

    switch (op) {
    case KB_RED_SUM: launch_reduce_op<SumOp>(c, x, values, NULL, cta_buf, sem, stream); break;
    case KB_RED_MEAN: launch_reduce_op<MeanOp>(c, x, values, NULL, cta_buf, sem, stream); break;
    case KB_RED_PROD: launch_reduce_op<ProdOp>(c, x, values, NULL, cta_buf, sem, stream); break;
    case KB_RED_AMAX: launch_reduce_op<AmaxOp>(c, x, values, NULL, cta_buf, sem, stream); break;
    case KB_RED_AMIN: launch_reduce_op<AminOp>(c, x, values, NULL, cta_buf, sem, stream); break;
    case KB_RED_NORM1: launch_reduce_op<Norm1Op>(c, x, values, NULL, cta_buf, sem, stream); break;
    case KB_RED_NORM2: launch_reduce_op<Norm2Op>(c, x, values, NULL, cta_buf, sem, stream); break;
    case KB_RED_MAX_IDX: launch_reduce_op<MaxIdxOp>(c, x, values, indices, cta_buf, sem, stream); break;
    case KB_RED_MIN_IDX: launch_reduce_op<MinIdxOp>(c, x, values, indices, cta_buf, sem, stream); break;
    }
    const cudaError_t launched = cudaGetLastError();
    if (cta_buf) {
        /* Stream-ordered reuse: the counted allocator hands the block out again only to work
         * enqueued later on the same stream, as PyTorch's caching allocator does. */
        kb_ctx_free(ctx, sem);
        kb_ctx_free(ctx, cta_buf);
    }
    KB_OP_CUDA(ctx, launched);
    return 0;
}

extern "C" int kb_op_reduce_dim(kb_ctx *ctx, kb_reduce op, const float *x, float *y, int64_t outer,
                                int64_t len, int64_t inner)
{
    kb_reduce_op r;
    switch (op) {
    case KB_REDUCE_SUM: r = KB_RED_SUM; break;
    case KB_REDUCE_MEAN: r = KB_RED_MEAN; break;
    case KB_REDUCE_MAX: r = KB_RED_AMAX; break;
    case KB_REDUCE_MIN: r = KB_RED_AMIN; break;
    default: return kb_ctx_fail(ctx, "kb_op_reduce_dim: unknown op %d", (int)op);
    }
    if (!y)
        return kb_ctx_fail(ctx, "kb_op_reduce_dim: NULL output pointer");
    return kb_op_reduce(ctx, r, x, y, NULL, outer, len, inner);
}

/* ---------------------------------------------------------------------------------------- */
/* Tensor level (kb/ref/reduce.h).                                                            */

namespace {

/* The result shape of reducing `dim` (or KB_ALL_DIMS) of x, and the [outer, len, inner] split.
 * Returns 0 after failing the scope. */
static int reduce_shape(kb_ref *r, const char *name, kb_tensor x, int dim, int keepdim, int *ndim,
                        int64_t *shape, int64_t *outer, int64_t *len, int64_t *inner)
{
    if (x.dtype != KB_F32)
        return kb_ref_fail(r, "%s: x must be float32 (dtype %d given)", name, (int)x.dtype);
    if (!x.data)
        return kb_ref_fail(r, "%s: x has no data", name);
    if (!kb_is_contiguous(x))
        return kb_ref_fail(r, "%s: x must be contiguous (make it so with kb_copy first)", name);
    if (dim == KB_ALL_DIMS) {
        *ndim = keepdim ? x.ndim : 0;
        for (int d = 0; d < *ndim; d++)
            shape[d] = 1;
        *outer = 1;
        *len = kb_numel(x);
        *inner = 1;
        return 1;
    }
    const int d = kb_norm_dim(r, x, dim);
    if (!kb_ref_ok(r))
        return 0;
    if (x.ndim == 0) { /* a 0-d tensor: dim 0 / -1 reduces its one element */
        *ndim = 0;
        *outer = *len = *inner = 1;
        return 1;
    }
    kb_split_dim(x, d, outer, len, inner);
    int n = 0;
    for (int k = 0; k < x.ndim; k++) {
        if (k == d) {
            if (keepdim)
                shape[n++] = 1;
        } else {
            shape[n++] = x.shape[k];
        }
    }
    *ndim = n;
    return 1;
}

static kb_tensor reduce_values(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim, kb_reduce_op op,
                               const char *name)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    int ndim = 0;
    int64_t shape[KB_MAX_DIMS], outer, len, inner;
    if (!reduce_shape(r, name, x, dim, keepdim, &ndim, shape, &outer, &len, &inner))
        return kb_ref_none();
    kb_tensor y = kb_result(r, out, KB_F32, ndim, shape, name);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ref_check(r, kb_op_reduce(kb_ref_ctx(r), op, (const float *)x.data, (float *)y.data, NULL, outer, len, inner));
    return y;
}

/* torch.max(x, dim) / torch.min(x, dim) (want_values) or argmax / argmin (indices only). */
static kb_tensor reduce_index(kb_ref *r, kb_tensor values, kb_tensor indices, kb_tensor x, int dim, int keepdim,
                              kb_reduce_op op, int want_values, const char *name)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    int ndim = 0;
    int64_t shape[KB_MAX_DIMS], outer, len, inner;
    if (!reduce_shape(r, name, x, dim, keepdim, &ndim, shape, &outer, &len, &inner))
        return kb_ref_none();
    kb_tensor v = kb_ref_none();
    if (want_values) {
        v = kb_result(r, values, KB_F32, ndim, shape, name);
        if (!kb_ref_ok(r))
            return kb_ref_none();
    }
    /* Eager allocates the int64 indices of torch.max(x, dim) even when only [0] is used. */
    kb_tensor i = kb_result(r, indices, KB_I64, ndim, shape, name);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ref_check(r, kb_op_reduce(kb_ref_ctx(r), op, (const float *)x.data, want_values ? (float *)v.data : NULL,
                                 (int64_t *)i.data, outer, len, inner));
    return want_values ? v : i;
}

} /* namespace */

extern "C" kb_tensor kb_sum(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim)
{
    return reduce_values(r, out, x, dim, keepdim, KB_RED_SUM, "kb_sum");
}

extern "C" kb_tensor kb_mean(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim)
{
    return reduce_values(r, out, x, dim, keepdim, KB_RED_MEAN, "kb_mean");
}

extern "C" kb_tensor kb_prod(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim)
{
    return reduce_values(r, out, x, dim, keepdim, KB_RED_PROD, "kb_prod");
}

extern "C" kb_tensor kb_amax(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim)
{
    return reduce_values(r, out, x, dim, keepdim, KB_RED_AMAX, "kb_amax");
}

extern "C" kb_tensor kb_amin(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim)
{
    return reduce_values(r, out, x, dim, keepdim, KB_RED_AMIN, "kb_amin");
}

extern "C" kb_tensor kb_norm(kb_ref *r, kb_tensor out, kb_tensor x, double p, int dim, int keepdim)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (p == 1.0)
        return reduce_values(r, out, x, dim, keepdim, KB_RED_NORM1, "kb_norm");
    if (p == 2.0)
        return reduce_values(r, out, x, dim, keepdim, KB_RED_NORM2, "kb_norm");
    kb_ref_fail(r, "kb_norm: p = %g is not supported (p = 1 or 2)", p);
    return kb_ref_none();
}

extern "C" kb_tensor kb_max_dim(kb_ref *r, kb_tensor values, kb_tensor indices, kb_tensor x, int dim, int keepdim)
{
    if (dim == KB_ALL_DIMS) { /* torch.max(x): max_all, a values-only reduction like amax */
        if (indices.data) {
            if (kb_ref_ok(r))
                kb_ref_fail(r, "kb_max_dim: torch.max(x) over all dims has no indices");
            return kb_ref_none();
        }
        return reduce_values(r, values, x, dim, keepdim, KB_RED_AMAX, "kb_max_dim");
    }
    return reduce_index(r, values, indices, x, dim, keepdim, KB_RED_MAX_IDX, 1, "kb_max_dim");
}

extern "C" kb_tensor kb_min_dim(kb_ref *r, kb_tensor values, kb_tensor indices, kb_tensor x, int dim, int keepdim)
{
    if (dim == KB_ALL_DIMS) {
        if (indices.data) {
            if (kb_ref_ok(r))
                kb_ref_fail(r, "kb_min_dim: torch.min(x) over all dims has no indices");
            return kb_ref_none();
        }
        return reduce_values(r, values, x, dim, keepdim, KB_RED_AMIN, "kb_min_dim");
    }
    return reduce_index(r, values, indices, x, dim, keepdim, KB_RED_MIN_IDX, 1, "kb_min_dim");
}

extern "C" kb_tensor kb_argmax(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim)
{
    return reduce_index(r, kb_ref_none(), out, x, dim, keepdim, KB_RED_MAX_IDX, 0, "kb_argmax");
}

extern "C" kb_tensor kb_argmin(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int keepdim)
{
    return reduce_index(r, kb_ref_none(), out, x, dim, keepdim, KB_RED_MIN_IDX, 0, "kb_argmin");
}
