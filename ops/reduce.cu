/*
 * ops/reduce.cu -- reductions and arg-reductions of one dimension (or of the whole tensor) of a
 * tensor viewed as [outer, len, inner]: the raw kb_op_reduce_dim (kb/ops.h) and kb_op_reduce
 * (kb/ref/reduce.h), and the tensor-level kb_sum / kb_mean / kb_prod / kb_amax / kb_amin / kb_norm
 * / kb_max_dim / kb_min_dim / kb_argmax / kb_argmin of kb/ref/reduce.h, the several-dim
 * kb_sum_dims / kb_mean_dims / kb_amax_dims (neighbouring reduced dims coalesce into one len, as
 * TensorIterator coalesces them) and torch.logsumexp's composite (kb_logsumexp, at the end).
 *
 * Eager PyTorch runs every one of these as gpu_reduce_kernel (ATen/native/cuda/Reduce.cuh) with
 * an op struct (SharedReduceOps.h): func_wrapper(a + b) for sum (ReduceSumProdKernel.cu), a * b
 * for prod, MeanOps (sum, then * factor, ReduceMomentKernel.cu), MaxNanFunctor / MinNanFunctor for
 * amax / amin (ReduceMaxValuesKernel.cu, ReduceMinValuesKernel.cu), NormOneOps / NormTwoOps
 * (ReduceNormKernel.cu: acc + |x|, acc + x*x then sqrt), and MaxOps / MinOps (torch.max(x, dim) /
 * torch.min(x, dim): one pass, a (value, int64 index) accumulator, two outputs) and ArgMaxOps /
 * ArgMinOps (the same accumulator, only the index written). The comparator is GreaterOrNan /
 * LessOrNan: NaN wins, ties go to the lower index. This file mirrors, for float input:
 *
 *  - TensorIterator's view of the reduction: the reduced dim first, then inner, then outer (dims
 *    of size 1 dropped; a reduced dim of size 1 is no reduced dim at all), and with_32bit_indexing:
 *    while a launch's element count or any operand's byte extent exceeds INT32_MAX, the dim with
 *    the largest byte extent is halved (the first half launched first). A split of the reduced dim
 *    makes the first part a non-final output and the rest accumulating ones, as TensorIterator::
 *    split does: sum / mean / norm / prod / amax / amin store the raw accumulator in the output
 *    and combine with it (mean's factor and norm's sqrt only in the final part); the index
 *    reductions keep (value, index) pairs in an AccumulationBuffer (allocated, as eager does,
 *    whenever the whole reduction is not 32-bit indexable: 8.4 MB, untouched, for L1/49-53) and
 *    add the part's offset to its indices (translate_idx). L1/47-53 (8.6 GB) become 4 launches
 *    of 32 x 4095 columns, L1/36 4 launches of 28 batches, L1/38-39 4 launches of 8192 rows,
 *    L1/37 4 launches of a quarter of the tensor accumulating in the output, L1/94 and 100 2
 *    such launches.
 *  - setReduceConfig() per launch, the launch bounds (512 / output_vec_size threads, 4 blocks per
 *    SM) and ReduceOp<float, ops, uint32_t, out, vt0 = 4, input_vec_size = 4>::run() with 32-bit
 *    (index_t = uint32_t) index arithmetic: the output offset calculator (IntDivider magic-number
 *    divisions by the non-reduced dims), thread_reduce's three paths chosen at run time --
 *    input_vectorized_thread_reduce_impl (contiguous rows of >= 128, float4 loads, the unaligned
 *    head and the tail reduced by the first lanes of the first row of threads) and
 *    thread_reduce_impl (vt0 = 4 accumulators, output_vec_size neighbouring outputs per load;
 *    contiguous or strided by the reduced dim's element stride) -- then block_x_reduce FIRST
 *    (shared-memory halving down to a warp, then shuffles with DEcreasing offsets, 16, 8, .., 1:
 *    "offset decreasing for better numerics matching Triton", read from libtorch_cuda's sm_90
 *    SASS), then block_y_reduce (shared-memory tree), then the store or global_reduce (staging,
 *    __threadfence, last-block-done semaphore, plain loads of the staged partials, block_y_reduce
 *    then block_x_reduce, the old order, as global_reduce still has it).
 *
 *   inner == 1  "row" reduction: block.x splits the row (float4 loads when len >= 128,
 *               "vectorize along input"), block.y either splits the row further or takes other
 *               rows. A full reduction (KB_ALL_DIMS) is this with outer = 1, len = numel.
 *   inner > 1   "column" reduction: block.x runs over 32 consecutive outputs (float2/float4 loads
 *               of neighbouring outputs when the address, inner and the input strides allow it,
 *               "vectorize along output"), block.y splits the reduced dim.
 *   In both, when there are too few outputs to fill the GPU (grid <= SMs * blocks per SM) and each
 *   thread would still reduce >= 256 values, the reduced dim is also split across blockIdx.y.
 * Accumulation is in float (PyTorch's acc_type for float on CUDA); MEAN multiplies the sum by
 * float(num_outputs) / float(numel) of the whole reduction, as MeanOps' factor.
 *
 * Differences from PyTorch: a thread that reduces nothing (output or input index past the end)
 * starts from the identity where run() leaves its value uninitialized (such threads occur only in
 * degenerate configurations, e.g. block.y 512 over fewer than 512 values); no general
 * OffsetCalculator input path (one reduced dim: TensorIterator's input calculator always has
 * dims == 1 here; with len == 1 PyTorch's dims == 0 path reads the single element at offset 0, as
 * the strided path does); blockIdx.y is capped at 65535 (a 32-bit-indexable launch never needs
 * more). Only contiguous inputs and one reduced dimension -- one dim, all of them, or a block of
 * neighbouring dims coalesced into one -- are supported; the tensor-level ops fail the scope with
 * a message otherwise.
 *
 * Napkin math, L1/47: x (128, 4096, 4095) fp32 = 8.59 GB read once, 2 MB written. Column
 * reduction: 4 launches of 32 * 4095 = 131040 outputs, block (32, 16) = 512 threads, 4095 blocks
 * each; each thread sums 256 values with 4 loads in flight; 4 blocks/SM x 16 warps x 4 x 128 B =
 * 32 KB in flight per SM: ~2.07 ms at ~4.1-4.2 TB/s, eager PyTorch's time on the H200. The
 * (value, index) reductions (L1/49, 51, 52, 53) run the same geometry with a 16-byte accumulator;
 * eager takes 2.72 ms for them: its strided loop issues three of the four loads, waits for the
 * first for the first compare-and-select, and only then issues the fourth (libtorch_cuda's sm_90
 * SASS of ReduceOp<float, MaxOps<float>, uint32_t, float, 4, 4>), which this file's 32-bit loop
 * reproduces under nvcc 13.0 (a 64-bit-index version issued all four at once and ran 12% faster
 * than eager).
 */
#include <math.h>
#include <stdint.h>

#include "kb/ref.h"
#include "intdiv.cuh"

namespace {

constexpr int kMaxThreads = 512; /* mnt_wrapper<float>::MAX_NUM_THREADS */
constexpr int kVt0 = 4;          /* accumulators (loads in flight) per thread */
constexpr int kInputVec = 4;     /* input_vec_size for float */
constexpr int kWarp = 32;

typedef uint32_t index_t; /* ReduceOp's index_t: every launch is 32-bit indexable */

/* OffsetCalculator<2, uint32_t> over the non-reduced dims (innermost first): the element offset
 * of an output in the outputs and the byte offset of its slice in the input. */
struct OutCalc {
    int dims;
    KbIntDiv size[2];
    uint32_t out_stride[2]; /* elements */
    uint32_t in_stride[2];  /* bytes */
};

/* One launch: the fields of PyTorch's ReduceConfig that the kernel reads, and ReduceOp's
 * pointers and flags. */
struct ReduceParams {
    const float *src;
    float *out_values;     /* values, from this launch's first output on; NULL for argmax / argmin */
    int64_t *out_indices;  /* indices, likewise; NULL for the value reductions */
    void *acc;             /* AccumulationBuffer slice (index reductions of a split reduction) or NULL */
    void *cta_buf;         /* global reduce staging */
    int *semaphores;
    int num_inputs;
    int num_outputs;
    int step_input;
    int step_output;
    int ctas_per_output;
    int input_mult[3];
    int output_mult[2];
    bool vectorize_input;
    bool accumulate;
    bool final_output;
    index_t element_stride; /* input elements between consecutive reduced elements */
    OutCalc oc;
    float factor;     /* MEAN: float(num_outputs) / float(numel) of the whole reduction */
    int64_t base_idx; /* this launch's offset along the reduced dim (translate_idx) */
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
 * (with its index along the reduced dim); combine: merge two accumulators; translate_idx: shift
 * the index by a launch's offset along the reduced dim; set_results: project and write output
 * element o. The float reductions accumulate in the output itself (can_accumulate_in_output):
 * load_output / store_output read and write the raw accumulator there. */
struct FloatOutput {
    static __device__ __forceinline__ float translate_idx(float a, int64_t) { return a; }
    static __device__ __forceinline__ float load_output(const ReduceParams &p, index_t o) { return p.out_values[o]; }
    static __device__ __forceinline__ void store_output(const ReduceParams &p, index_t o, float a)
    {
        p.out_values[o] = a;
    }
};

struct SumOp : FloatOutput {
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 0.0f; }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return combine(a, x); }
    static __device__ __forceinline__ void set_results(const ReduceParams &p, index_t o, float a)
    {
        p.out_values[o] = a;
    }
};

struct MeanOp : FloatOutput { /* MeanOps: sum, project = acc * factor */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 0.0f; }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return combine(a, x); }
    static __device__ __forceinline__ void set_results(const ReduceParams &p, index_t o, float a)
    {
        p.out_values[o] = a * p.factor;
    }
};

struct ProdOp : FloatOutput {
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 1.0f; }
    static __device__ __forceinline__ float combine(float a, float b) { return a * b; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return combine(a, x); }
    static __device__ __forceinline__ void set_results(const ReduceParams &p, index_t o, float a)
    {
        p.out_values[o] = a;
    }
};

struct AmaxOp : FloatOutput { /* MaxNanFunctor: (a > b || isnan(a)) ? a : b */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return -INFINITY; }
    static __device__ __forceinline__ float combine(float a, float b) { return (isnan(a) || a > b) ? a : b; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return combine(a, x); }
    static __device__ __forceinline__ void set_results(const ReduceParams &p, index_t o, float a)
    {
        p.out_values[o] = a;
    }
};

struct AminOp : FloatOutput { /* MinNanFunctor */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return INFINITY; }
    static __device__ __forceinline__ float combine(float a, float b) { return (isnan(a) || a < b) ? a : b; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return combine(a, x); }
    static __device__ __forceinline__ void set_results(const ReduceParams &p, index_t o, float a)
    {
        p.out_values[o] = a;
    }
};

struct Norm1Op : FloatOutput { /* NormOneOps: acc + |x| */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 0.0f; }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return a + fabsf(x); }
    static __device__ __forceinline__ void set_results(const ReduceParams &p, index_t o, float a)
    {
        p.out_values[o] = a;
    }
};

struct Norm2Op : FloatOutput { /* NormTwoOps: acc + x * x (an FFMA in PyTorch's SASS too), sqrt */
    using acc_t = float;
    static __device__ __forceinline__ float ident() { return 0.0f; }
    static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
    static __device__ __forceinline__ float reduce(float a, float x, int64_t) { return a + x * x; }
    static __device__ __forceinline__ void set_results(const ReduceParams &p, index_t o, float a)
    {
        p.out_values[o] = sqrtf(a);
    }
};

/* MinMaxReductionOps: reduce = comp(acc, (x, idx)) ? acc : (x, idx), combine = comp(a, b) ? a : b.
 * They cannot accumulate in their outputs: a split reduced dim goes through p.acc, so the
 * load_output / store_output pair is never reached (PyTorch's "should never be called" ones). */
template <class Comp>
struct IndexOp {
    using acc_t = ValIdx;
    static __device__ __forceinline__ ValIdx combine(ValIdx a, ValIdx b)
    {
        return Comp::less(a.v, b.v, a.i, b.i) ? a : b;
    }
    static __device__ __forceinline__ ValIdx reduce(ValIdx a, float x, int64_t idx)
    {
        return Comp::less(a.v, x, a.i, idx) ? a : ValIdx{x, idx};
    }
    static __device__ __forceinline__ ValIdx translate_idx(ValIdx a, int64_t base_idx)
    {
        return ValIdx{a.v, a.i + base_idx};
    }
    static __device__ __forceinline__ ValIdx load_output(const ReduceParams &, index_t) { return Comp::ident(); }
    static __device__ __forceinline__ void store_output(const ReduceParams &, index_t, ValIdx) {}
    static __device__ __forceinline__ ValIdx ident() { return Comp::ident(); }
    static __device__ __forceinline__ void set_results(const ReduceParams &p, index_t o, ValIdx a)
    {
        if (p.out_values)
            p.out_values[o] = a.v;
        if (p.out_indices)
            p.out_indices[o] = a.i;
    }
};

/* GreaterOrNan (MaxOps / ArgMaxOps, identity (-inf, 0)): "a wins": NaN beats everything (two NaNs:
 * lower index), equal values: lower index, else the larger value. */
struct GreaterOrNan {
    static __device__ __forceinline__ ValIdx ident() { return ValIdx{-INFINITY, 0}; }
    static __device__ __forceinline__ bool less(float a, float b, int64_t idx_a, int64_t idx_b)
    {
        if (isnan(a)) {
            if (isnan(b))
                return idx_a < idx_b;
            return true;
        }
        return (a == b) ? idx_a < idx_b : (a > b);
    }
};

/* LessOrNan (MinOps / ArgMinOps, identity (+inf, 0)). */
struct LessOrNan {
    static __device__ __forceinline__ ValIdx ident() { return ValIdx{INFINITY, 0}; }
    static __device__ __forceinline__ bool less(float a, float b, int64_t idx_a, int64_t idx_b)
    {
        if (isnan(a)) {
            if (isnan(b))
                return idx_a < idx_b;
            return true;
        }
        return (a == b) ? idx_a < idx_b : (a < b);
    }
};

typedef IndexOp<GreaterOrNan> MaxIdxOp;
typedef IndexOp<LessOrNan> MinIdxOp;

/* std::array<arg_t, output_vec_size> */
template <typename T, int N>
struct AccVec {
    T v[N];
};

/* memory::aligned_vector<float, N> */
template <int N>
struct alignas(4 * N) VecF {
    float v[N];
};

template <int N>
__device__ __forceinline__ VecF<N> load_vector(const float *base, index_t offset)
{
    return reinterpret_cast<const VecF<N> *>(base)[offset];
}

__device__ __forceinline__ void divmod(const KbIntDiv &d, index_t n, index_t &q, index_t &r)
{
    q = kb_intdiv_div(d, n);
    r = n - q * d.divisor;
}

__device__ __forceinline__ void out_calc(const OutCalc &c, index_t linear, index_t &out_off, index_t &in_off)
{
    out_off = 0;
    in_off = 0;
#pragma unroll
    for (int d = 0; d < 2; d++) {
        if (d == c.dims)
            break;
        index_t q, r;
        divmod(c.size[d], linear, q, r);
        linear = q;
        out_off += r * c.out_stride[d];
        in_off += r * c.in_stride[d];
    }
}

__device__ __forceinline__ int input_idx(const ReduceParams &p)
{
    const int lane = (int)threadIdx.x, warp = (int)threadIdx.y, cta2 = (int)blockIdx.y;
    return lane * p.input_mult[0] + warp * p.input_mult[1] + cta2 * p.input_mult[2];
}

template <int OVEC>
__device__ __forceinline__ int output_idx(const ReduceParams &p)
{
    const int lane = (int)threadIdx.x, warp = (int)threadIdx.y, cta1 = (int)blockIdx.x;
    return (lane * p.output_mult[0] + warp * p.output_mult[1] + cta1 * p.step_output) * OVEC;
}

__device__ __forceinline__ int staging_memory_offset(const ReduceParams &p, int cta2)
{
    int offset = cta2 + (int)(blockIdx.x * gridDim.y);
    if (!block_x_reduce_on(p))
        offset = (int)threadIdx.x + offset * (int)blockDim.x;
    return offset;
}

/* Threads of a block that take part in the tail of a split row or in the head/tail elements. */
__device__ __forceinline__ bool should_reduce_tail(const ReduceParams &p)
{
    return (!block_y_reduce_on(p) || threadIdx.y == 0) && (!global_reduce_on(p) || blockIdx.y == 0);
}

__device__ __forceinline__ bool should_store(const ReduceParams &p, int output_idx)
{
    return output_idx < p.num_outputs && (!block_x_reduce_on(p) || threadIdx.x == 0) &&
           (!block_y_reduce_on(p) || threadIdx.y == 0);
}

/* input_vectorized_thread_reduce_impl: a contiguous row, float4 loads; the unaligned head of the
 * row (at most 3 elements) and its tail (at most 3) are reduced by the first lanes of the threads
 * with y == 0 (and blockIdx.y == 0); idx counts float4 vectors and `shift` is the index along the
 * row of data[0] once the head is skipped. */
template <class O>
__device__ __forceinline__ typename O::acc_t input_vectorized_thread_reduce(const ReduceParams &p, const float *data)
{
    using acc_t = typename O::acc_t;
    index_t end = (index_t)p.num_inputs;
    acc_t value = O::ident();
    constexpr int align_elements = kInputVec;
    constexpr int align_bytes = align_elements * (int)sizeof(float);
    int shift = (int)(((uint64_t)(uintptr_t)data) % align_bytes / sizeof(float));
    if (shift > 0) {
        data -= shift;
        end += (index_t)shift;
        if (threadIdx.x >= (unsigned)shift && threadIdx.x < (unsigned)align_elements && should_reduce_tail(p))
            value = O::reduce(value, data[threadIdx.x], (int64_t)(threadIdx.x - (unsigned)shift));
        end -= (index_t)align_elements;
        data += align_elements;
        shift = align_elements - shift;
    }

    index_t idx = (index_t)input_idx(p);
    const index_t stride = (index_t)p.step_input;
    acc_t value_list[kInputVec];
    value_list[0] = value;
#pragma unroll
    for (int i = 1; i < kInputVec; i++)
        value_list[i] = O::ident();
    while (idx * kInputVec + kInputVec - 1 < end) {
        const VecF<kInputVec> values_vec = load_vector<kInputVec>(data, idx);
#pragma unroll
        for (index_t i = 0; i < (index_t)kInputVec; i++)
            value_list[i] = O::reduce(value_list[i], values_vec.v[i], (int64_t)((index_t)shift + idx * kInputVec + i));
        idx += stride;
    }

    const index_t tail_start = end - end % kInputVec;
    if (should_reduce_tail(p)) {
        const int tidx = (int)(tail_start + threadIdx.x);
        if ((index_t)tidx < end)
            value_list[0] = O::reduce(value_list[0], data[tidx], (int64_t)(tidx + shift));
    }
#pragma unroll
    for (int i = 1; i < kInputVec; i++)
        value_list[0] = O::combine(value_list[0], value_list[i]);
    return value_list[0];
}

/* thread_reduce_impl: vt0 accumulators, each taking every vt0-th of this thread's values; OVEC
 * neighbouring outputs per load; calc maps a reduced-dim index to an element offset. The loads of
 * a tail are all issued before its reductions, as in PyTorch. */
template <class O, int OVEC, class Calc>
__device__ __forceinline__ AccVec<typename O::acc_t, OVEC> thread_reduce_impl(const ReduceParams &p,
                                                                             const float *data_, Calc calc)
{
    using acc_t = typename O::acc_t;
    index_t idx = (index_t)input_idx(p);
    const index_t end = (index_t)p.num_inputs;
    const index_t stride = (index_t)p.step_input;

    AccVec<acc_t, OVEC> value_list[kVt0];
#pragma unroll
    for (int i = 0; i < kVt0; i++)
#pragma unroll
        for (int j = 0; j < OVEC; j++)
            value_list[i].v[j] = O::ident();

    VecF<OVEC> values[kVt0];
    while (idx + (kVt0 - 1) * stride < end) {
#pragma unroll
        for (index_t i = 0; i < (index_t)kVt0; i++)
            values[i] = load_vector<OVEC>(data_, calc(idx + i * stride) / OVEC);
#pragma unroll
        for (index_t i = 0; i < (index_t)kVt0; i++)
#pragma unroll
            for (int j = 0; j < OVEC; j++)
                value_list[i].v[j] = O::reduce(value_list[i].v[j], values[i].v[j], (int64_t)(idx + i * stride));
        idx += stride * kVt0;
    }

    /* tail */
    const int idx_ = (int)idx;
#pragma unroll
    for (index_t i = 0; i < (index_t)kVt0; i++) {
        if (idx >= end)
            break;
        values[i] = load_vector<OVEC>(data_, calc(idx) / OVEC);
        idx += stride;
    }
    idx = (index_t)idx_;
#pragma unroll
    for (index_t i = 0; i < (index_t)kVt0; i++) {
        if (idx >= end)
            break;
#pragma unroll
        for (int j = 0; j < OVEC; j++)
            value_list[i].v[j] = O::reduce(value_list[i].v[j], values[i].v[j], (int64_t)idx);
        idx += stride;
    }

#pragma unroll
    for (int i = 1; i < kVt0; i++)
#pragma unroll
        for (int j = 0; j < OVEC; j++)
            value_list[0].v[j] = O::combine(value_list[0].v[j], value_list[i].v[j]);
    return value_list[0];
}

template <class O, int OVEC>
__device__ __forceinline__ AccVec<typename O::acc_t, OVEC> thread_reduce(const ReduceParams &p, const float *data)
{
    if constexpr (OVEC == 1) {
        if (p.vectorize_input) {
            AccVec<typename O::acc_t, OVEC> r;
            r.v[0] = input_vectorized_thread_reduce<O>(p, data);
            return r;
        }
    }
    const index_t element_stride = p.element_stride;
    if (element_stride == 1)
        return thread_reduce_impl<O, OVEC>(p, data, [](index_t idx) { return idx; });
    return thread_reduce_impl<O, OVEC>(p, data, [&](index_t idx) { return idx * element_stride; });
}

/* block_x_reduce: shared-memory halving down to a warp, then shuffles with decreasing offsets
 * (CUDA build of PyTorch 2.11); the result is valid in the threads with x == 0. */
template <class O, int OVEC>
__device__ __forceinline__ AccVec<typename O::acc_t, OVEC> block_x_reduce(AccVec<typename O::acc_t, OVEC> value,
                                                                         char *shared_memory)
{
    using V = AccVec<typename O::acc_t, OVEC>;
    int dim_x = (int)blockDim.x;
    V *shared = reinterpret_cast<V *>(shared_memory);
    if (dim_x > kWarp) {
        const int address_base = (int)(threadIdx.x + threadIdx.y * blockDim.x);
        shared[address_base] = value;
        for (int offset = dim_x / 2; offset >= kWarp; offset >>= 1) {
            __syncthreads();
            if ((int)threadIdx.x < offset && (int)threadIdx.x + offset < (int)blockDim.x) {
                const V other = shared[address_base + offset];
#pragma unroll
                for (int i = 0; i < OVEC; i++)
                    value.v[i] = O::combine(value.v[i], other.v[i]);
                shared[address_base] = value;
            }
        }
        dim_x = kWarp;
    }

    __syncthreads();

    for (int offset = dim_x >> 1; offset > 0; offset >>= 1) {
#pragma unroll
        for (int i = 0; i < OVEC; i++) {
            const typename O::acc_t other = shfl_down(value.v[i], offset);
            value.v[i] = O::combine(value.v[i], other);
        }
    }
    return value;
}

/* block_y_reduce: tree over threadIdx.y in shared memory; the result is valid in y == 0. */
template <class O, int OVEC>
__device__ __forceinline__ AccVec<typename O::acc_t, OVEC> block_y_reduce(AccVec<typename O::acc_t, OVEC> value,
                                                                         char *shared_memory)
{
    using V = AccVec<typename O::acc_t, OVEC>;
    V *shared = reinterpret_cast<V *>(shared_memory);
    shared[threadIdx.x + threadIdx.y * blockDim.x] = value;
    for (int offset = (int)blockDim.y / 2; offset > 0; offset >>= 1) {
        __syncthreads();
        if ((int)threadIdx.y < offset && (int)threadIdx.y + offset < (int)blockDim.y) {
            const V other = shared[threadIdx.x + (threadIdx.y + (unsigned)offset) * blockDim.x];
#pragma unroll
            for (int i = 0; i < OVEC; i++)
                value.v[i] = O::combine(value.v[i], other.v[i]);
            shared[threadIdx.x + threadIdx.y * blockDim.x] = value;
        }
    }
    return value;
}

__device__ __forceinline__ bool mark_block_finished(const ReduceParams &p)
{
    __shared__ bool is_last_block_done_shared;

    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        const int prev_blocks_finished = atomicAdd(&p.semaphores[blockIdx.x], 1);
        is_last_block_done_shared = (prev_blocks_finished == (int)gridDim.y - 1);
    }

    __syncthreads();

    return is_last_block_done_shared;
}

/* The store of run() / global_reduce(): translate_idx when accumulating, combine with what the
 * earlier launches left (the output itself, or the AccumulationBuffer for the index reductions),
 * then the projected result (final output) or the raw accumulator. */
template <class O, int OVEC>
__device__ __forceinline__ void store_outputs(const ReduceParams &p, AccVec<typename O::acc_t, OVEC> value,
                                              const index_t (&base_offsets)[OVEC])
{
    using acc_t = typename O::acc_t;
    using V = AccVec<acc_t, OVEC>;
    if (p.accumulate) {
#pragma unroll
        for (int i = 0; i < OVEC; i++)
            value.v[i] = O::translate_idx(value.v[i], p.base_idx);
    }
    if (p.acc == nullptr) {
        if (p.accumulate) {
#pragma unroll
            for (int i = 0; i < OVEC; i++)
                value.v[i] = O::combine(O::load_output(p, base_offsets[i]), value.v[i]);
        }
        if (p.final_output) {
#pragma unroll
            for (int i = 0; i < OVEC; i++)
                O::set_results(p, base_offsets[i], value.v[i]);
        } else {
#pragma unroll
            for (int i = 0; i < OVEC; i++)
                O::store_output(p, base_offsets[i], value.v[i]);
        }
    } else {
        V *acc = reinterpret_cast<V *>(reinterpret_cast<acc_t *>(p.acc) + base_offsets[0]);
        if (p.accumulate) {
#pragma unroll
            for (int i = 0; i < OVEC; i++)
                value.v[i] = O::combine(acc->v[i], value.v[i]);
        }
        if (p.final_output) {
#pragma unroll
            for (int i = 0; i < OVEC; i++)
                O::set_results(p, base_offsets[i], value.v[i]);
        } else {
            *acc = value;
        }
    }
}

/* global_reduce: every block of a column of blockIdx.y stages its partial; the last one to finish
 * (semaphore per blockIdx.x) combines them and stores. */
template <class O, int OVEC>
__device__ __forceinline__ void global_reduce(const ReduceParams &p, AccVec<typename O::acc_t, OVEC> value,
                                              const index_t (&base_offsets)[OVEC], char *shared_memory)
{
    using V = AccVec<typename O::acc_t, OVEC>;
    V *reduce_buffer = reinterpret_cast<V *>(p.cta_buf);
    const index_t output_idx_ = (index_t)output_idx<OVEC>(p);
    const bool should_store_ = should_store(p, (int)output_idx_);
    if (should_store_) {
        const index_t offset = (index_t)staging_memory_offset(p, (int)blockIdx.y);
        reduce_buffer[offset] = value;
    }

    __threadfence(); /* make sure writes are globally visible */
    __syncthreads(); /* if multiple warps in this block wrote to staging, make sure they're all done */
    const bool is_last_block_done = mark_block_finished(p);

    if (is_last_block_done) {
        __threadfence(); /* complete the acquire pattern after the atomic */
#pragma unroll
        for (int i = 0; i < OVEC; i++)
            value.v[i] = O::ident();
        if (block_x_reduce_on(p)) {
            index_t input_offset = threadIdx.x + threadIdx.y * blockDim.x;
            const index_t step = blockDim.x * blockDim.y;
            for (; input_offset < (index_t)p.ctas_per_output; input_offset += step) {
                const index_t idx = (index_t)staging_memory_offset(p, (int)input_offset);
                const V next = reduce_buffer[idx];
#pragma unroll
                for (int i = 0; i < OVEC; i++)
                    value.v[i] = O::combine(value.v[i], next.v[i]);
            }
        } else {
            index_t input_offset = threadIdx.y;
            const index_t step = blockDim.y;
            for (; input_offset < (index_t)p.ctas_per_output; input_offset += step) {
                const index_t idx = (index_t)staging_memory_offset(p, (int)input_offset);
                const V next = reduce_buffer[idx];
#pragma unroll
                for (int i = 0; i < OVEC; i++)
                    value.v[i] = O::combine(value.v[i], next.v[i]);
            }
        }
        value = block_y_reduce<O, OVEC>(value, shared_memory);
        if (block_x_reduce_on(p))
            value = block_x_reduce<O, OVEC>(value, shared_memory);
        if (should_store_)
            store_outputs<O, OVEC>(p, value, base_offsets);
    }
}

/* ReduceOp::run(): OVEC outputs per thread (column reductions), the float4 row path chosen at
 * run time. All threads reach every barrier and every shuffle (no early exit), so blockDim.x < 32
 * rows sharing a warp are safe. */
template <class O, int OVEC>
__global__ void __launch_bounds__(kMaxThreads / OVEC, 4) reduce_kernel(const ReduceParams p)
{
    using V = AccVec<typename O::acc_t, OVEC>;
    extern __shared__ __align__(16) char shared_memory[];
    const index_t output_idx_ = (index_t)output_idx<OVEC>(p);
    const index_t input_idx_ = (index_t)input_idx(p);
    index_t out_off, in_off;
    out_calc(p.oc, output_idx_, out_off, in_off);

    V value;
#pragma unroll
    for (int i = 0; i < OVEC; i++)
        value.v[i] = O::ident();
    if (output_idx_ < (index_t)p.num_outputs && input_idx_ < (index_t)p.num_inputs) {
        /* input_slice = (const char *)src + base_offsets[1] */
        const float *input_slice = reinterpret_cast<const float *>(reinterpret_cast<const char *>(p.src) + in_off);
        value = thread_reduce<O, OVEC>(p, input_slice);
    }

    if (block_x_reduce_on(p))
        value = block_x_reduce<O, OVEC>(value, shared_memory);
    if (block_y_reduce_on(p))
        value = block_y_reduce<O, OVEC>(value, shared_memory);

    index_t base_offsets[OVEC];
#pragma unroll
    for (int i = 0; i < OVEC; i++) {
        index_t unused;
        out_calc(p.oc, output_idx_ + (index_t)i, base_offsets[i], unused);
    }

    if (global_reduce_on(p))
        global_reduce<O, OVEC>(p, value, base_offsets, shared_memory);
    else if (should_store(p, (int)output_idx_))
        store_outputs<O, OVEC>(p, value, base_offsets);
}

/* ---------------------------------------------------------------------------------------- */
/* Host side: TensorIterator's view, with_32bit_indexing, setReduceConfig().                 */

static int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* floor(log2(n)) as a power of two, at least 1 (PyTorch's last_pow2). */
static int last_pow2(int64_t n)
{
    int p = 1;
    while ((int64_t)p * 2 <= n && p < (1 << 30))
        p *= 2;
    return p;
}

/* The reduction as TensorIterator lays it out: dims innermost first, the reduced one (if any,
 * len > 1) first; element strides of the input and of the outputs (values and indices share
 * them: both are contiguous over outer x inner). Operands in TensorIterator's order: the outputs
 * (values, 4 bytes; indices, 8 bytes), then the input. */
struct Iter {
    int ndim;
    bool reduced0;
    int64_t size[3];
    int64_t in_stride[3];
    int64_t out_stride[3];
    int nout;
    int64_t out_esize[2];
};

struct Piece {
    int64_t size[3];
    int64_t start[3];
    bool accumulate;
    bool final_output;
};

static Iter make_iter(int64_t outer, int64_t len, int64_t inner, bool values, bool indices)
{
    Iter it = {};
    it.nout = 0;
    if (values)
        it.out_esize[it.nout++] = (int64_t)sizeof(float);
    if (indices)
        it.out_esize[it.nout++] = (int64_t)sizeof(int64_t);
    if (len == 1) { /* no reduced dim: input and outputs coalesce to one dim */
        it.ndim = 1;
        it.reduced0 = false;
        it.size[0] = outer * inner;
        it.in_stride[0] = 1;
        it.out_stride[0] = 1;
        return it;
    }
    int n = 0;
    it.reduced0 = true;
    it.size[n] = len;
    it.in_stride[n] = inner;
    it.out_stride[n] = 0;
    n++;
    if (inner > 1) {
        it.size[n] = inner;
        it.in_stride[n] = 1;
        it.out_stride[n] = 1;
        n++;
    }
    if (outer > 1) {
        it.size[n] = outer;
        it.in_stride[n] = len * inner;
        it.out_stride[n] = inner;
        n++;
    }
    it.ndim = n;
    return it;
}

/* TensorIteratorBase::can_use_32bit_indexing */
static bool can_use_32bit_indexing(const Iter &it, const Piece &pc)
{
    const int64_t max_value = INT32_MAX;
    int64_t numel = 1;
    for (int d = 0; d < it.ndim; d++)
        numel *= pc.size[d];
    if (numel > max_value)
        return false;
    for (int k = 0; k <= it.nout; k++) {
        int64_t max_offset = 1;
        for (int d = 0; d < it.ndim; d++) {
            const int64_t stride = k < it.nout ? it.out_stride[d] * it.out_esize[k] : it.in_stride[d] * 4;
            max_offset += (pc.size[d] - 1) * stride;
        }
        if (max_offset > max_value)
            return false;
    }
    return true;
}

/* TensorIteratorBase::get_dim_to_split: the largest byte extent of any operand, outermost dim
 * first on ties. */
static int get_dim_to_split(const Iter &it, const Piece &pc)
{
    int64_t max_extent = -1;
    int dim_to_split = -1;
    for (int d = it.ndim - 1; d >= 0; d--) {
        if (pc.size[d] == 0)
            continue;
        for (int k = 0; k <= it.nout; k++) {
            const int64_t stride = k < it.nout ? it.out_stride[d] * it.out_esize[k] : it.in_stride[d] * 4;
            const int64_t extent = (pc.size[d] - 1) * stride;
            if (extent > max_extent) {
                max_extent = extent;
                dim_to_split = d;
            }
        }
    }
    return dim_to_split;
}

struct HostConfig {
    ReduceParams p;
    int block_width, block_height, num_threads;
    int output_vec_size;
    int64_t grid_x;
    int shared_bytes;
    size_t global_bytes;
};

static int split_input(ReduceParams &p, int parallelism)
{
    const int step = p.step_input;
    p.step_input *= parallelism;
    return step;
}

static int split_output(ReduceParams &p, int parallelism)
{
    const int step = p.step_output;
    p.step_output *= parallelism;
    return step;
}

/* setReduceConfig<float acc (or the 16-byte pair), float, vt0 = 4, input_vec_size = 4> for one
 * 32-bit-indexable piece whose input starts at x. */
static HostConfig make_config(const Iter &it, const Piece &pc, const float *x, size_t acc_size, int num_sms,
                              int max_threads_per_sm)
{
    HostConfig c = {};
    ReduceParams &p = c.p;
    int64_t num_outputs = 1;
    for (int d = it.reduced0 ? 1 : 0; d < it.ndim; d++)
        num_outputs *= pc.size[d];
    const int64_t num_inputs = it.reduced0 ? pc.size[0] : 1;
    p.num_outputs = (int)num_outputs;
    p.num_inputs = (int)num_inputs;
    p.step_input = 1;
    p.step_output = 1;
    p.ctas_per_output = 1;
    c.output_vec_size = 1;

    /* reduction_on_fastest_striding_dimension: (num_reduce_dims == ndim) || stride[0] < stride[num_reduce_dims] */
    const int nrd = it.reduced0 ? 1 : 0;
    const bool row = (nrd == it.ndim) || (it.in_stride[0] < it.in_stride[nrd]);
    int64_t dim0 = row ? num_inputs : num_outputs;
    const int64_t dim1 = row ? num_outputs : num_inputs;
    const int64_t fastest_moving_stride = row ? it.in_stride[0] : it.in_stride[nrd];
    if (fastest_moving_stride == 1) {
        if (row && dim0 >= 128 && nrd == 1) {
            p.vectorize_input = true; /* "vectorize along input" */
            dim0 /= kInputVec;
        } else if (!row) {
            /* "vectorize along output" (get_output_vec_size): the widest of 4, 2, 1 dividing the
             * input address (in elements), the output dim's size and every other input stride. */
            int vec = 4;
            const auto update = [&vec](uint64_t n) {
                while (n % (uint64_t)vec != 0)
                    vec /= 2;
            };
            update((uint64_t)(uintptr_t)x / sizeof(float));
            update((uint64_t)pc.size[nrd]);
            for (int j = 0; j < it.ndim; j++)
                if (j != nrd)
                    update((uint64_t)it.in_stride[j]);
            c.output_vec_size = vec;
            dim0 /= vec;
        }
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
    const int warp_split_threshold =
        c.block_height * 16 < max_values_per_thread ? c.block_height * 16 : max_values_per_thread;
    if (div_up(p.num_inputs, p.step_input) >= warp_split_threshold)
        p.input_mult[1] = split_input(p, c.block_height);
    else
        p.output_mult[1] = split_output(p, c.block_height);

    const int blocks_per_sm = max_threads_per_sm / c.num_threads;
    const int64_t target_grid_size = (int64_t)num_sms * blocks_per_sm;
    c.grid_x = div_up(p.num_outputs / c.output_vec_size, p.step_output);
    const int64_t values_per_thread = div_up(p.num_inputs, p.step_input);
    if (p.input_mult[1] != 0 && values_per_thread >= max_values_per_thread && c.grid_x <= target_grid_size) {
        const int64_t c1 = div_up(target_grid_size, c.grid_x);
        const int64_t c2 = div_up(values_per_thread, min_values_per_thread);
        const int64_t c3 = div_up(values_per_thread, max_values_per_thread);
        int64_t ctas = c1 < c2 ? c1 : c2;
        if (c3 > ctas)
            ctas = c3;
        if (ctas > 65535) /* gridDim.y limit (unreachable for a 32-bit-indexable launch) */
            ctas = 65535;
        p.ctas_per_output = (int)ctas;
        if (ctas > 1)
            p.input_mult[2] = split_input(p, (int)ctas);
    }

    const bool bx = p.input_mult[0] != 0, by = p.input_mult[1] != 0, gr = p.input_mult[2] != 0;
    c.shared_bytes = (!by && (!bx || c.block_width <= kWarp)) ? 0 : (int)(acc_size * c.num_threads * c.output_vec_size);
    c.global_bytes = 0;
    if (gr) {
        /* global_memory_size(), allocated the same way (it over-allocates by block.x *
         * output_vec_size when block.x holds outputs). */
        size_t size = acc_size * (size_t)p.num_outputs * (size_t)p.ctas_per_output;
        if (!bx)
            size *= (size_t)c.block_width * c.output_vec_size;
        c.global_bytes = size;
    }

    /* make_input_calculator / make_output_calculator */
    p.element_stride = it.reduced0 ? (index_t)it.in_stride[0] : 0;
    p.oc.dims = 0;
    for (int d = nrd; d < it.ndim; d++) {
        const int k = p.oc.dims++;
        p.oc.size[k] = kb_intdiv_make((uint32_t)pc.size[d]);
        p.oc.out_stride[k] = (uint32_t)it.out_stride[d];
        p.oc.in_stride[k] = (uint32_t)(it.in_stride[d] * (int64_t)sizeof(float));
    }
    p.accumulate = pc.accumulate;
    p.final_output = pc.final_output;
    p.base_idx = it.reduced0 ? pc.start[0] : 0;
    return c;
}

template <class O>
static void launch_reduce(const HostConfig &c, cudaStream_t s)
{
    const dim3 block((unsigned)c.block_width, (unsigned)c.block_height);
    const dim3 grid((unsigned)c.grid_x, (unsigned)c.p.ctas_per_output);
    switch (c.output_vec_size) {
    case 4: reduce_kernel<O, 4><<<grid, block, c.shared_bytes, s>>>(c.p); break;
    case 2: reduce_kernel<O, 2><<<grid, block, c.shared_bytes, s>>>(c.p); break;
    default: reduce_kernel<O, 1><<<grid, block, c.shared_bytes, s>>>(c.p); break;
    }
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

/* Everything one reduction's launches share. */
struct Job {
    kb_ctx *ctx;
    cudaStream_t stream;
    kb_reduce_op op;
    const Iter *it;
    const float *x;
    float *values;
    int64_t *indices;
    void *acc_buf; /* AccumulationBuffer (index reductions, whole reduction not 32-bit indexable) */
    size_t acc_size;
    float factor;
    int num_sms, max_threads_per_sm;
};

/* gpu_reduce_kernel on one 32-bit-indexable piece: its configuration, its own staging buffer and
 * semaphores (allocated and freed per launch, as eager's DataPtrs are), the launch. */
static int launch_piece(const Job &job, const Piece &pc)
{
    kb_ctx *ctx = job.ctx;
    const Iter &it = *job.it;
    int64_t in_off = 0, out_off = 0;
    for (int d = 0; d < it.ndim; d++) {
        in_off += pc.start[d] * it.in_stride[d];
        out_off += pc.start[d] * it.out_stride[d];
    }
    const float *x = job.x + in_off;
    HostConfig c = make_config(it, pc, x, job.acc_size, job.num_sms, job.max_threads_per_sm);
    if (c.grid_x > INT32_MAX)
        return kb_ctx_fail(ctx, "kb_op_reduce: %lld blocks exceed the grid limit", (long long)c.grid_x);
    c.p.src = x;
    c.p.out_values = job.values ? job.values + out_off : NULL;
    c.p.out_indices = job.indices ? job.indices + out_off : NULL;
    c.p.acc = job.acc_buf ? (void *)((ValIdx *)job.acc_buf + out_off) : NULL;
    c.p.factor = job.factor;

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
        const cudaError_t e = cudaMemsetAsync(sem, 0, sizeof(int) * (size_t)c.grid_x, job.stream);
        if (e != cudaSuccess) {
            kb_ctx_free(ctx, sem);
            kb_ctx_free(ctx, cta_buf);
            KB_OP_CUDA(ctx, e);
        }
    }
    c.p.cta_buf = cta_buf;
    c.p.semaphores = sem;

    switch (job.op) {
    case KB_RED_SUM: launch_reduce<SumOp>(c, job.stream); break;
    case KB_RED_MEAN: launch_reduce<MeanOp>(c, job.stream); break;
    case KB_RED_PROD: launch_reduce<ProdOp>(c, job.stream); break;
    case KB_RED_AMAX: launch_reduce<AmaxOp>(c, job.stream); break;
    case KB_RED_AMIN: launch_reduce<AminOp>(c, job.stream); break;
    case KB_RED_NORM1: launch_reduce<Norm1Op>(c, job.stream); break;
    case KB_RED_NORM2: launch_reduce<Norm2Op>(c, job.stream); break;
    case KB_RED_MAX_IDX: launch_reduce<MaxIdxOp>(c, job.stream); break;
    case KB_RED_MIN_IDX: launch_reduce<MinIdxOp>(c, job.stream); break;
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

/* SplitUntil32Bit: halve the dim to split (the first half first) until a piece is 32-bit
 * indexable; TensorIterator::split's final_output / accumulate flags when the reduced dim is cut. */
static int run_pieces(const Job &job, const Piece &pc)
{
    const Iter &it = *job.it;
    if (can_use_32bit_indexing(it, pc))
        return launch_piece(job, pc);
    const int d = get_dim_to_split(it, pc);
    if (d < 0 || pc.size[d] < 2)
        return kb_ctx_fail(job.ctx, "kb_op_reduce: cannot split a piece to 32-bit indexing");
    const bool overlaps = it.reduced0 && d == 0; /* is_dim_reduced (size >= 2 here) */
    const int64_t copy_size = pc.size[d] / 2;
    Piece first = pc, rest = pc;
    first.size[d] = copy_size;
    first.final_output = pc.final_output && !overlaps;
    rest.start[d] = pc.start[d] + copy_size;
    rest.size[d] = pc.size[d] - copy_size;
    rest.accumulate = pc.accumulate || overlaps;
    if (run_pieces(job, first) != 0)
        return -1;
    return run_pieces(job, rest);
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

    const Iter it = make_iter(outer, len, inner, values != NULL, indices != NULL);
    Piece whole = {};
    for (int d = 0; d < it.ndim; d++)
        whole.size[d] = it.size[d];
    whole.accumulate = false;
    whole.final_output = true;

    Job job;
    job.ctx = ctx;
    job.stream = stream;
    job.op = op;
    job.it = &it;
    job.x = x;
    job.values = values;
    job.indices = indices;
    job.acc_buf = NULL;
    job.acc_size = index_op ? sizeof(ValIdx) : sizeof(float);
    job.factor = (float)n_out / (float)(n_out * len);
    job.num_sms = num_sms;
    job.max_threads_per_sm = max_threads_per_sm;

    /* gpu_reduce_kernel's AccumulationBuffer: the index reductions cannot accumulate in their
     * outputs, so when the reduction is split eager allocates output_memory_size (the outputs'
     * extent) x sizeof(pair<float, int64_t>) for the whole call, used only if the reduced dim is cut. */
    if (index_op && !can_use_32bit_indexing(it, whole)) {
        int64_t output_memory_size = 1;
        for (int d = 0; d < it.ndim; d++)
            if (it.size[d] * it.out_stride[d] > output_memory_size)
                output_memory_size = it.size[d] * it.out_stride[d];
        job.acc_buf = kb_ctx_alloc(ctx, (size_t)output_memory_size * sizeof(ValIdx));
        if (!job.acc_buf)
            return -1;
    }
    const int rc = run_pieces(job, whole);
    if (job.acc_buf)
        kb_ctx_free(ctx, job.acc_buf); /* stream-ordered, after the last launch that reads it */
    return rc;
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

/* The result shape of reducing the dims listed (Python-style, any order; none listed: every dim,
 * as sum(dim=[])) of x, and the [outer, len, inner] split the reduction kernel runs on. Eager's
 * TensorIterator drops size-1 dims and coalesces neighbours whose strides chain in every operand:
 * adjacent reduced dims (output stride 0 in both) merge into one reduced dim, adjacent kept dims
 * into one kept dim, so a contiguous x whose reduced dims (size-1 ones aside) are one block of
 * neighbours is exactly [outer, len, inner] with len their product. Reduced dims with a kept dim
 * of size > 1 between them leave TensorIterator two reduced dims (ReduceOp's general input
 * calculator), which this library does not mirror: that fails with a message. */
static int reduce_dims_shape(kb_ref *r, const char *name, kb_tensor x, const int *dims, int ndims, int keepdim,
                             int *ndim, int64_t *shape, int64_t *outer, int64_t *len, int64_t *inner)
{
    if (x.dtype != KB_F32)
        return kb_ref_fail(r, "%s: x must be float32 (dtype %d given)", name, (int)x.dtype);
    if (!x.data)
        return kb_ref_fail(r, "%s: x has no data", name);
    if (!kb_is_contiguous(x))
        return kb_ref_fail(r, "%s: x must be contiguous (make it so with kb_copy first)", name);
    if (ndims < 0 || (ndims > 0 && !dims))
        return kb_ref_fail(r, "%s: %d dims given", name, ndims);
    int red[KB_MAX_DIMS] = {0};
    for (int i = 0; i < ndims; i++) {
        const int d = kb_norm_dim(r, x, dims[i]);
        if (!kb_ref_ok(r))
            return 0;
        if (x.ndim == 0)
            continue; /* a 0-d tensor: dim 0 / -1 is its one element */
        if (red[d])
            return kb_ref_fail(r, "%s: dim %d appears multiple times in the list of dims", name, d);
        red[d] = 1;
    }
    if (ndims == 0)
        for (int d = 0; d < x.ndim; d++)
            red[d] = 1;
    int n = 0;
    for (int d = 0; d < x.ndim; d++) {
        if (!red[d])
            shape[n++] = x.shape[d];
        else if (keepdim)
            shape[n++] = 1;
    }
    *ndim = n;
    /* the reduced block among the dims of size > 1 */
    int first = -1, last = -1;
    for (int d = 0; d < x.ndim; d++)
        if (red[d] && x.shape[d] != 1) {
            if (first < 0)
                first = d;
            last = d;
        }
    *outer = 1;
    *len = 1;
    *inner = 1;
    for (int d = 0; d < x.ndim; d++) {
        if (x.shape[d] == 1)
            continue;
        if (first >= 0 && d > first && d < last && !red[d])
            return kb_ref_fail(r, "%s: the reduced dims are not neighbours (dim %d of size %lld lies between "
                                  "them): TensorIterator's two-reduced-dim reduction is not mirrored",
                               name, d, (long long)x.shape[d]);
        if (first < 0 || d < first)
            *outer *= x.shape[d];
        else if (d <= last)
            *len *= x.shape[d];
        else
            *inner *= x.shape[d];
    }
    return 1;
}

static kb_tensor reduce_values_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim,
                                    kb_reduce_op op, const char *name)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    int ndim = 0;
    int64_t shape[KB_MAX_DIMS], outer, len, inner;
    if (!reduce_dims_shape(r, name, x, dims, ndims, keepdim, &ndim, shape, &outer, &len, &inner))
        return kb_ref_none();
    kb_tensor y = kb_result(r, out, KB_F32, ndim, shape, name);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ref_check(r, kb_op_reduce(kb_ref_ctx(r), op, (const float *)x.data, (float *)y.data, NULL, outer, len, inner));
    return kb_ref_ok(r) ? y : kb_ref_none();
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

extern "C" kb_tensor kb_sum_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim)
{
    return reduce_values_dims(r, out, x, dims, ndims, keepdim, KB_RED_SUM, "kb_sum_dims");
}

extern "C" kb_tensor kb_mean_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim)
{
    return reduce_values_dims(r, out, x, dims, ndims, keepdim, KB_RED_MEAN, "kb_mean_dims");
}

extern "C" kb_tensor kb_amax_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim)
{
    return reduce_values_dims(r, out, x, dims, ndims, keepdim, KB_RED_AMAX, "kb_amax_dims");
}

/* torch.logsumexp(x, dims, keepdim): logsumexp_out_impl of ReduceOps.cpp, a composite of nine
 * kernels, each the library's own:
 *     maxes = at::amax(self, dims, true)                        reduce (AMAX), [.., 1, ..]
 *     maxes_squeezed = keepdim ? maxes : at::squeeze(maxes, dims)   a view of the same memory
 *     maxes_squeezed.masked_fill_(maxes_squeezed.abs() == INFINITY, 0)
 *                                                               abs, eq (bool), masked_fill_
 *     at::sum_out(result, (self - maxes).exp_(), dims, keepdim) sub (broadcast), exp_, reduce (SUM)
 *     result.log_().add_(maxes_squeezed)                        log_, add_
 * Temporaries live as eager's: the abs and the mask until the end of the masked_fill_ statement,
 * (self - maxes) until the end of sum_out's, maxes until the function returns; the result (an
 * empty tensor until sum_out resizes it) is allocated after (self - maxes). The masked_fill_
 * writes maxes too (the squeezed one is a view of it), so an infinite max is subtracted as 0. */
extern "C" kb_tensor kb_logsumexp(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    int ndim = 0;
    int64_t shape[KB_MAX_DIMS], outer, len, inner;
    if (!reduce_dims_shape(r, "kb_logsumexp", x, dims, ndims, keepdim, &ndim, shape, &outer, &len, &inner))
        return kb_ref_none();
    if (kb_numel(x) == 0) {
        kb_ref_fail(r, "kb_logsumexp: an empty x (eager's sum of exp then log) is not mirrored");
        return kb_ref_none();
    }
    const kb_tensor fresh = kb_ref_none(); /* KB_NEW (no data: the op allocates), without C's compound literal */
    kb_tensor maxes = kb_amax_dims(r, fresh, x, dims, ndims, 1);
    kb_tensor maxes_squeezed = keepdim ? maxes : kb_view(r, maxes, ndim, shape);
    kb_tensor a = kb_abs(r, fresh, maxes_squeezed);
    kb_tensor is_inf = kb_eqs(r, fresh, a, INFINITY);
    kb_masked_fill(r, maxes_squeezed, maxes_squeezed, is_inf, 0.0);
    kb_drop(r, is_inf);
    kb_drop(r, a);
    kb_tensor shifted = kb_sub(r, fresh, x, maxes);
    kb_exp(r, shifted, shifted);
    kb_tensor res = kb_sum_dims(r, out, shifted, dims, ndims, keepdim);
    kb_drop(r, shifted);
    kb_log(r, res, res);
    kb_add(r, res, res, maxes_squeezed);
    kb_drop(r, maxes);
    return kb_ref_ok(r) ? res : kb_ref_none();
}
