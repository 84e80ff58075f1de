/*
 * ops/elementwise.cu -- the elementwise family: kb/ref/elementwise.h (tensor level, PyTorch
 * broadcasting) and the raw kb_op_unary of kb/ops.h, on one templated engine that mirrors
 * TensorIterator's gpu_kernel (ATen/native/cuda/CUDALoops.cuh).
 *
 * The engine. One eager op is one TensorIterator kernel, and so is one call here:
 *   - Vectorized path (vectorized_elementwise_kernel<4>): when every operand is contiguous with
 *     the result's shape and 16-byte aligned (vector width 4 of each operand's type), 128
 *     threads per block (num_threads()), 8 elements per thread as two 4-element vectors 128
 *     vectors apart, grid = ceil(n / 1024); a full block loads all, computes, stores; the last,
 *     partial block takes the unrolled, bounds-checked path. This is the geometry PyTorch 2.11
 *     (cu130) compiles for sm_90, read from the SASS of its float, half, bfloat16 and double
 *     kernels (a 4-element version, used here before, made softplus, where the
 *     math is not hidden by memory, 1.21x slower than eager). 32-bit indices below 2^31
 *     elements; above, 64-bit in one launch where TensorIterator splits into 32-bit-indexable
 *     launches. A one-element operand marked as a Python number (kb_number: L1/5's `s`, which
 *     KernelBench passes as a float and eager hands to the functor as a CPU scalar) is loaded
 *     once per thread and stays on this path; any other one-element operand (a 0-d CUDA tensor
 *     such as L1/37's norm) is a stride-0 broadcast and takes the offset path, as in
 *     TensorIterator (keeping 37's on this path made it 0.74x eager's time).
 *   - Offset path (unrolled_elementwise_kernel with an OffsetCalculator): broadcast or strided
 *     operands, or misaligned pointers. Dimensions are coalesced first as TensorIterator does
 *     (size-1 dims dropped; adjacent dims merged where every operand's strides allow), so a row
 *     broadcast [N,1]*[N,D] has two dims and one division per element. 128 threads, 2 elements
 *     per thread at stride 128 (coalesced; 4 for results under 4 bytes and for casting ops), each operand's offset from the linear index by
 *     div/mod over the collapsed dims, innermost first. When the element count and every
 *     operand's extent fit in int32 the divisions are 32-bit multiply-high "magic number"
 *     divisions (PyTorch's IntDivider); otherwise plain 64-bit div/mod. Strides may be negative
 *     (flip).
 *   - Casting path (unrolled_elementwise_kernel with LoadWithCast / StoreWithCast): an op whose
 *     operand dtypes differ (float * bool) over contiguous operands, each load and store through a
 *     run-time switch on the dtype (c10::fetch_and_cast / cast_and_store); 128 threads, 4
 *     elements per thread, 32-bit launches. Not contiguous, such an op takes the offset path.
 * Scalars are kernel arguments, rounded to float once (PyTorch passes a CPU scalar into the
 * functor as opmath_t). All math in float, PyTorch's opmath for float, with its formulas:
 *   relu        isnan(x) ? x : max(x, 0)                      (relu is clamp_min(x, 0))
 *   leaky_relu  x > 0 ? x : x * slope                         (ActivationLeakyReluKernel.cu)
 *   sigmoid     1 / (1 + exp(-x))                              (UnarySignKernels / UnaryOpsKernel)
 *   tanh        tanhf
 *   gelu        x * 0.5 * (1 + erf(x * M_SQRT1_2))             (ActivationGeluKernel.cu)
 *   gelu_tanh   0.5 * x * (1 + tanh(kBeta * (x + 0.044715 * x^3)))
 *   elu / selu  x > 0 ? x * scale : expm1(x * input_scale) * (alpha * scale), the coefficients
 *               multiplied in float on the host (ActivationEluKernel.cu); selu is
 *               elu(alpha = 1.6732632423543772, scale = 1.0507009873554805) as at::selu calls it
 *   hardsigmoid min(max(x + 3, 0), 6) * (1/6)                  (ActivationHardsigmoidKernel.cu)
 *   hardswish   x * std::min(std::max(x + 3, 0), 6) * (1/6)    (ActivationHardswishKernel.cu)
 *   mish        x * tanh(log1p(exp(x)))                        (ActivationMishKernel.cu)
 *   hardtanh    clamp(x, min, max)                             (at::hardtanh_out calls clamp)
 *   clamp       isnan(x) ? x : min(max(x, lo), hi); clamp_min / clamp_max one side of it
 *   softplus    x * beta > threshold ? x : log1p(exp(x * beta)) / beta
 *   div         a / b; a / scalar is a * (1 / s) (div_true_kernel_cuda's CPU-scalar case)
 *   pow scalar  PowKernel.cu's special cases (2, 3, -2, 0.5 sqrt, -0.5 rsqrt, -1 reciprocal;
 *               0 -> fill 1 and 1 -> copy as Pow.cpp), else powf
 *   maximum/minimum propagate NaN; where cond ? a : b; gts a > s, eqs a == s (bool);
 *   masked_fill mask ? value : self (IndexKernel.cu masked_fill_kernel, float and bool operands)
 * Copies: same-dtype contiguous -> cudaMemcpyAsync (copy_device_to_device's memcpy case), else
 * the engine with a cast functor (direct_copy_kernel_cuda); fill/zeros: a nullary functor on
 * the vectorized path (fill_kernel_cuda). triu/tril: triu_tril_kernel's geometry (512 threads,
 * 8 bytes per thread). flip: the offset path over a negatively strided input (flip_kernel).
 * cat: Shape.cu's cat_out_cuda (parallel_cat's CatArrayBatchedCopy kernels, batches of 128
 * contiguous or 64 strided inputs per launch; copy_ per input past 4 dimensions or 2^31 elements).
 * dropout: Dropout.cu's own kernels (at the end of this file), not the engine.
 *
 * Napkin math (L1/19 ReLU etc.: x (4096, 393216) fp32, 6 GiB): 6.44 GB read + 6.44 GB written =
 * 12.9 GB; at ~4.2 TB/s of read+write bandwidth that is ~3.1 ms, what eager PyTorch takes on the
 * H200 (ReLU 3.06 ms, GELU 3.17 ms median). erff/tanhf/expf cost ~20-40 FP32 instructions per
 * element, while the H200 issues ~100 FP32 operations in the time it moves one element's 8
 * bytes, so every op here is bound by memory, not math.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <curand_kernel.h>

#include "kb/ref.h"
#include "intdiv.cuh"

namespace {

constexpr int kThreads = 128;  /* PyTorch num_threads() on CUDA */
constexpr int kVecWidth = 4;      /* vectorized path: vec_size */
constexpr int kVecThreadWork = 8; /* ... elements per thread */
constexpr int kVecBlockWork = kThreads * kVecThreadWork;
constexpr int kMaxIn = 3;

/* ---- functors ----------------------------------------------------------------------------- */

/* Every functor names its arity N, its result type and its operand types (unused ones float). */
struct Unary {
    static constexpr int N = 1;
    typedef float out_t;
    typedef float in0_t;
    typedef float in1_t;
    typedef float in2_t;
};
struct Binary {
    static constexpr int N = 2;
    typedef float out_t;
    typedef float in0_t;
    typedef float in1_t;
    typedef float in2_t;
};

struct OpRelu : Unary {
    __device__ float operator()(float x) const { return isnan(x) ? x : fmaxf(x, 0.0f); }
};
struct OpLeakyRelu : Unary {
    float slope;
    __device__ float operator()(float x) const { return x > 0.0f ? x : x * slope; }
};
struct OpSigmoid : Unary {
    __device__ float operator()(float x) const { return 1.0f / (1.0f + expf(-x)); }
};
struct OpTanh : Unary {
    __device__ float operator()(float x) const { return tanhf(x); }
};
struct OpGelu : Unary {
    __device__ float operator()(float x) const
    {
        const float kAlpha = 0.70710678118654752440f; /* M_SQRT1_2 */
        return x * 0.5f * (1.0f + erff(x * kAlpha));
    }
};
struct OpGeluTanh : Unary {
    __device__ float operator()(float x) const
    {
        /* M_SQRT2 * M_2_SQRTPI * 0.5 evaluated in double, then rounded to float, as PyTorch's
         * constexpr does. */
        const float kBeta = (float)(1.41421356237309504880 * 1.12837916709551257390 * 0.5);
        const float kKappa = 0.044715f;
        const float x_cube = x * x * x;
        const float inner = kBeta * (x + kKappa * x_cube);
        return 0.5f * x * (1.0f + tanhf(inner));
    }
};
struct OpElu : Unary {
    float negcoef, poscoef, negiptcoef;
    __device__ float operator()(float x) const { return x > 0.0f ? x * poscoef : expm1f(x * negiptcoef) * negcoef; }
};
struct OpHardsigmoid : Unary {
    __device__ float operator()(float x) const
    {
        const float one_sixth = 1.0f / 6.0f;
        return fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) * one_sixth;
    }
};
/* hardswish_kernel (ActivationHardswishKernel.cu): x * std::min(std::max(x + 3, 0), 6) * (1/6), a
 * multiplication by the float one_sixth (not a division by 6); std::max / std::min are the
 * (a < b) ? b : a comparisons, so a NaN x stays NaN (fmaxf would turn it into 0). */
struct OpHardswish : Unary {
    __device__ float operator()(float x) const
    {
        const float zero = 0.0f, three = 3.0f, six = 6.0f, one_sixth = 1.0f / 6.0f;
        const float lo = (x + three < zero) ? zero : x + three; /* std::max(x + three, zero) */
        const float c = (six < lo) ? six : lo;                  /* std::min(lo, six) */
        return x * c * one_sixth;
    }
};
/* mish_kernel (ActivationMishKernel.cu): x * tanh(log1p(exp(x))), c10::cuda::compat's tanhf,
 * log1pf and expf in float */
struct OpMish : Unary {
    __device__ float operator()(float x) const { return x * tanhf(log1pf(expf(x))); }
};
struct OpClamp : Unary { /* lo / hi NaN: that bound is absent */
    float lo, hi;
    int has_lo, has_hi;
    __device__ float operator()(float x) const
    {
        if (isnan(x))
            return x;
        if (has_lo)
            x = fmaxf(x, lo);
        if (has_hi)
            x = fminf(x, hi);
        return x;
    }
};
struct OpSoftplus : Unary {
    float beta, threshold;
    __device__ float operator()(float x) const { return (x * beta) > threshold ? x : log1pf(expf(x * beta)) / beta; }
};
struct OpAbs : Unary {
    __device__ float operator()(float x) const { return fabsf(x); }
};
struct OpNeg : Unary {
    __device__ float operator()(float x) const { return -x; }
};
struct OpExp : Unary {
    __device__ float operator()(float x) const { return expf(x); }
};
struct OpLog : Unary {
    __device__ float operator()(float x) const { return logf(x); }
};
struct OpSqrt : Unary {
    __device__ float operator()(float x) const { return sqrtf(x); }
};
struct OpRsqrt : Unary {
    __device__ float operator()(float x) const { return rsqrtf(x); }
};
struct OpReciprocal : Unary {
    __device__ float operator()(float x) const { return 1.0f / x; }
};
/* tensor (op) scalar */
struct OpAddS : Unary {
    float s;
    __device__ float operator()(float x) const { return x + s; }
};
struct OpSubS : Unary {
    float s;
    __device__ float operator()(float x) const { return x - s; }
};
struct OpRsubS : Unary {
    float s;
    __device__ float operator()(float x) const { return s - x; }
};
struct OpMulS : Unary {
    float s;
    __device__ float operator()(float x) const { return x * s; }
};
struct OpRdivS : Unary {
    float s;
    __device__ float operator()(float x) const { return s / x; }
};
struct OpSquare : Unary {
    __device__ float operator()(float x) const { return x * x; }
};
struct OpCube : Unary {
    __device__ float operator()(float x) const { return x * x * x; }
};
struct OpInvSquare : Unary {
    __device__ float operator()(float x) const { return 1.0f / (x * x); }
};
struct OpPowS : Unary {
    float e;
    __device__ float operator()(float x) const { return powf(x, e); }
};
struct OpGtS : Unary {
    typedef uint8_t out_t;
    float s;
    __device__ uint8_t operator()(float x) const { return x > s ? 1 : 0; }
};
struct OpEqS : Unary { /* CompareEqFunctor with a CPU scalar */
    typedef uint8_t out_t;
    float s;
    __device__ uint8_t operator()(float x) const { return x == s ? 1 : 0; }
};
/* masked_fill_kernel (IndexKernel.cu): gpu_kernel over (self, mask), mask ? value : self. The
 * functor's operand types are the operands' dtypes (float, bool), so it is not a dynamically
 * casting op: contiguous and aligned, it is vectorized. */
struct OpMaskedFill {
    static constexpr int N = 2;
    typedef float out_t;
    typedef float in0_t;
    typedef uint8_t in1_t;
    typedef float in2_t;
    float v;
    __device__ float operator()(float self, uint8_t mask) const { return mask ? v : self; }
};
/* tensor (op) tensor */
struct OpAdd : Binary {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct OpSub : Binary {
    __device__ float operator()(float a, float b) const { return a - b; }
};
struct OpMul : Binary {
    __device__ float operator()(float a, float b) const { return a * b; }
};
/* float * bool (L1/93's x * mask): TensorIterator promotes to float and casts the bool operand
 * inside the kernel ("dynamic casting"), which keeps it off the vectorized path. */
struct OpMulBool {
    static constexpr int N = 2;
    typedef float out_t;
    typedef float in0_t;
    typedef uint8_t in1_t;
    typedef float in2_t;
    __device__ float operator()(float a, uint8_t b) const { return a * (b ? 1.0f : 0.0f); }
};
template <typename Op> struct NeedsDynamicCast { static constexpr bool v = false; };
template <> struct NeedsDynamicCast<OpMulBool> {
    static constexpr bool v = true;
    typedef OpMul fn_t; /* the functor on the common dtype: MulFunctor<float> */
};
struct OpDiv : Binary {
    __device__ float operator()(float a, float b) const { return a / b; }
};
struct OpPow : Binary {
    __device__ float operator()(float a, float b) const { return powf(a, b); }
};
struct OpMaximum : Binary {
    __device__ float operator()(float a, float b) const { return isnan(a) ? a : isnan(b) ? b : fmaxf(a, b); }
};
struct OpMinimum : Binary {
    __device__ float operator()(float a, float b) const { return isnan(a) ? a : isnan(b) ? b : fminf(a, b); }
};
struct OpWhere {
    static constexpr int N = 3;
    typedef float out_t;
    typedef uint8_t in0_t;
    typedef float in1_t;
    typedef float in2_t;
    __device__ float operator()(uint8_t c, float a, float b) const { return c ? a : b; }
};
/* casts (x.to(dtype)): bool is one byte 0/1; to bool is x != 0 */
template <typename From, typename To> struct OpCast {
    static constexpr int N = 1;
    typedef To out_t;
    typedef From in0_t;
    typedef float in1_t;
    typedef float in2_t;
    __device__ To operator()(From x) const { return (To)x; }
};
template <typename From> struct OpCast<From, bool> {
    static constexpr int N = 1;
    typedef uint8_t out_t;
    typedef From in0_t;
    typedef float in1_t;
    typedef float in2_t;
    __device__ uint8_t operator()(From x) const { return x != (From)0 ? 1 : 0; }
};
template <typename To> struct OpCastFromBool {
    static constexpr int N = 1;
    typedef To out_t;
    typedef uint8_t in0_t;
    typedef float in1_t;
    typedef float in2_t;
    __device__ To operator()(uint8_t x) const { return x ? (To)1 : (To)0; }
};
template <typename T> struct OpFill {
    static constexpr int N = 0;
    typedef T out_t;
    typedef float in0_t;
    typedef float in1_t;
    typedef float in2_t;
    T v;
    __device__ T operator()() const { return v; }
};

template <typename Op>
__device__ __forceinline__ typename Op::out_t invoke(const Op &op, typename Op::in0_t a, typename Op::in1_t b,
                                                     typename Op::in2_t c)
{
    if constexpr (Op::N == 0) {
        return op();
    } else if constexpr (Op::N == 1) {
        return op(a);
    } else if constexpr (Op::N == 2) {
        return op(a, b);
    } else {
        return op(a, b, c);
    }
}

/* ---- vectorized path ---------------------------------------------------------------------- */

template <typename T, int V> struct alignas(sizeof(T) * V) Vec {
    T v[V];
};

struct VecArgs {
    char *out;
    const char *in[kMaxIn];
    int scalar[kMaxIn]; /* the operand is one element broadcast everywhere */
};

template <typename T>
__device__ __forceinline__ void load_vec(const char *p, int scalar, int64_t v, T (&dst)[kVecWidth])
{
    if (scalar) {
        const T s = *reinterpret_cast<const T *>(p);
#pragma unroll
        for (int j = 0; j < kVecWidth; j++)
            dst[j] = s;
    } else {
        const Vec<T, kVecWidth> x = reinterpret_cast<const Vec<T, kVecWidth> *>(p)[v];
#pragma unroll
        for (int j = 0; j < kVecWidth; j++)
            dst[j] = x.v[j];
    }
}

template <typename T> __device__ __forceinline__ T load_one(const char *p, int scalar, int64_t i)
{
    return reinterpret_cast<const T *>(p)[scalar ? 0 : i];
}

/* vectorized_elementwise_kernel<4> as PyTorch 2.11 compiles it for sm_90 (read from its SASS):
 * a block owns kVecBlockWork consecutive elements; a full block loads all its vectors first
 * (thread t: vectors t and t + 128 of the block), computes, then stores; the last, partial
 * block takes the unrolled path (elements t + k * 128, bounds-checked). One launch, no loop;
 * Idx is int32 below 2^31 elements (TensorIterator's 32-bit indexing) and int64 above, where
 * PyTorch would split the launch. No __restrict__: the result may alias an operand. */
template <typename Op, typename Idx>
__global__ void __launch_bounds__(kThreads) vec_kernel(Op op, VecArgs a, Idx n)
{
    typedef typename Op::out_t O;
    typedef typename Op::in0_t I0;
    typedef typename Op::in1_t I1;
    typedef typename Op::in2_t I2;
    constexpr int kLoads = kVecThreadWork / kVecWidth;
    const Idx base = (Idx)blockIdx.x * kVecBlockWork;
    const Idx remaining = n - base;
    if (remaining < kVecBlockWork) {
        I0 x0[kVecThreadWork] = {};
        I1 x1[kVecThreadWork] = {};
        I2 x2[kVecThreadWork] = {};
#pragma unroll
        for (int k = 0; k < kVecThreadWork; k++) {
            const Idx j = (Idx)threadIdx.x + (Idx)k * kThreads;
            if (j < remaining) {
                if constexpr (Op::N >= 1)
                    x0[k] = load_one<I0>(a.in[0], a.scalar[0], base + j);
                if constexpr (Op::N >= 2)
                    x1[k] = load_one<I1>(a.in[1], a.scalar[1], base + j);
                if constexpr (Op::N >= 3)
                    x2[k] = load_one<I2>(a.in[2], a.scalar[2], base + j);
            }
        }
#pragma unroll
        for (int k = 0; k < kVecThreadWork; k++) {
            const Idx j = (Idx)threadIdx.x + (Idx)k * kThreads;
            if (j < remaining)
                reinterpret_cast<O *>(a.out)[base + j] = invoke(op, x0[k], x1[k], x2[k]);
        }
        return;
    }
    I0 x0[kLoads][kVecWidth] = {};
    I1 x1[kLoads][kVecWidth] = {};
    I2 x2[kLoads][kVecWidth] = {};
#pragma unroll
    for (int k = 0; k < kLoads; k++) {
        const Idx v = base / kVecWidth + (Idx)threadIdx.x + (Idx)k * kThreads;
        if constexpr (Op::N >= 1)
            load_vec<I0>(a.in[0], a.scalar[0], v, x0[k]);
        if constexpr (Op::N >= 2)
            load_vec<I1>(a.in[1], a.scalar[1], v, x1[k]);
        if constexpr (Op::N >= 3)
            load_vec<I2>(a.in[2], a.scalar[2], v, x2[k]);
    }
    Vec<O, kVecWidth> y[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; k++)
#pragma unroll
        for (int j = 0; j < kVecWidth; j++)
            y[k].v[j] = invoke(op, x0[k][j], x1[k][j], x2[k][j]);
#pragma unroll
    for (int k = 0; k < kLoads; k++)
        reinterpret_cast<Vec<O, kVecWidth> *>(a.out)[base / kVecWidth + (Idx)threadIdx.x + (Idx)k * kThreads] = y[k];
}

/* ---- offset path -------------------------------------------------------------------------- */

template <typename index_t> struct OffArgs {
    char *base[kMaxIn + 1]; /* [0] the result, then the operands */
    int ndim;
    int trivial; /* every operand contiguous (a casting op): TrivialOffsetCalculator, no division */
    int64_t size[KB_MAX_DIMS];            /* innermost first */
    KbIntDiv div[KB_MAX_DIMS];            /* 32-bit path */
    index_t stride[kMaxIn + 1][KB_MAX_DIMS]; /* bytes, innermost first */
};

template <int NOPS, typename index_t>
__device__ __forceinline__ void offsets_of(const OffArgs<index_t> &a, int64_t idx, index_t (&off)[kMaxIn + 1])
{
#pragma unroll
    for (int k = 0; k < kMaxIn + 1; k++)
        off[k] = 0;
    if (a.trivial) {
#pragma unroll
        for (int k = 0; k < NOPS; k++)
            off[k] = (index_t)idx * a.stride[k][0];
        return;
    }
    if constexpr (sizeof(index_t) == 4) {
        uint32_t lin = (uint32_t)idx;
        for (int d = 0; d < a.ndim; d++) {
            const KbIntDiv dv = a.div[d];
            const uint32_t q = kb_intdiv_div(dv, lin);
            const int32_t rem = (int32_t)(lin - q * dv.divisor);
#pragma unroll
            for (int k = 0; k < NOPS; k++)
                off[k] += rem * a.stride[k][d];
            lin = q;
        }
    } else {
        int64_t lin = idx;
        for (int d = 0; d < a.ndim; d++) {
            const int64_t q = lin / a.size[d];
            const int64_t rem = lin - q * a.size[d];
#pragma unroll
            for (int k = 0; k < NOPS; k++)
                off[k] += rem * a.stride[k][d];
            lin = q;
        }
    }
}

template <typename T, typename index_t> __device__ __forceinline__ T load_at(char *base, index_t off)
{
    return *reinterpret_cast<const T *>(base + off);
}

/* elementwise_kernel<128, VT> with an OffsetCalculator (gpu_kernel_impl_nocast's strided path):
 * VT = 2 elements per thread for results of 4 bytes or more, else 4 (unroll_factor); 4 for a
 * dynamically casting op (gpu_kernel_impl's legacy path). Read from PyTorch 2.11's SASS: block
 * work 256 for float (a block work of 512, used here before, made L1/50's bias add 5% slower). */
template <typename Op> struct OffsetWork {
    static constexpr int v = NeedsDynamicCast<Op>::v ? 4 : sizeof(typename Op::out_t) >= 4 ? 2 : 4;
};
template <typename Op, typename index_t, int VT = OffsetWork<Op>::v>
__global__ void __launch_bounds__(kThreads) offset_kernel(Op op, OffArgs<index_t> a, int64_t n)
{
    typedef typename Op::out_t O;
    typedef typename Op::in0_t I0;
    typedef typename Op::in1_t I1;
    typedef typename Op::in2_t I2;
    constexpr int NOPS = Op::N + 1;
    const int64_t step = (int64_t)gridDim.x * (kThreads * VT);
    for (int64_t blk = (int64_t)blockIdx.x * (kThreads * VT); blk < n; blk += step) {
        I0 x0[VT] = {};
        I1 x1[VT] = {};
        I2 x2[VT] = {};
        index_t out_off[VT] = {};
#pragma unroll
        for (int j = 0; j < VT; j++) {
            const int64_t i = blk + threadIdx.x + (int64_t)j * kThreads;
            if (i < n) {
                index_t off[kMaxIn + 1];
                offsets_of<NOPS>(a, i, off);
                out_off[j] = off[0];
                if constexpr (Op::N >= 1)
                    x0[j] = load_at<I0>(a.base[1], off[1]);
                if constexpr (Op::N >= 2)
                    x1[j] = load_at<I1>(a.base[2], off[2]);
                if constexpr (Op::N >= 3)
                    x2[j] = load_at<I2>(a.base[3], off[3]);
            }
        }
#pragma unroll
        for (int j = 0; j < VT; j++) {
            const int64_t i = blk + threadIdx.x + (int64_t)j * kThreads;
            if (i < n)
                *reinterpret_cast<O *>(a.base[0] + out_off[j]) = invoke(op, x0[j], x1[j], x2[j]);
        }
    }
}

/* One element of the 32-bit strided path as PyTorch's OffsetCalculator computes it: the linear
 * index divided dim by dim (the dims loop unrolled, leaving at ndim), each operand's offset of
 * type Off (uint32_t: unsigned strides, legacy_offset_kernel; int32_t: signed ones, flip's
 * index_offset_kernel), then its loads, the op and its store. */
template <typename Op, typename Off>
__device__ __forceinline__ void offset_element(const Op &op, const OffArgs<int32_t> &a, uint32_t lin)
{
    typedef typename Op::out_t O;
    constexpr int NOPS = Op::N + 1;
    Off off[kMaxIn + 1] = {};
#pragma unroll
    for (int d = 0; d < KB_MAX_DIMS; d++) {
        if (d == a.ndim)
            break;
        const uint32_t q = kb_intdiv_div(a.div[d], lin);
        const uint32_t rem = lin - q * a.div[d].divisor;
        lin = q;
#pragma unroll
        for (int k = 0; k < NOPS; k++)
            off[k] += (Off)(rem * (uint32_t)a.stride[k][d]);
    }
    typename Op::in0_t x0{};
    typename Op::in1_t x1{};
    typename Op::in2_t x2{};
    if constexpr (Op::N >= 1)
        x0 = load_at<typename Op::in0_t>(a.base[1], off[1]);
    if constexpr (Op::N >= 2)
        x1 = load_at<typename Op::in1_t>(a.base[2], off[2]);
    if constexpr (Op::N >= 3)
        x2 = load_at<typename Op::in2_t>(a.base[3], off[3]);
    *reinterpret_cast<O *>(a.base[0] + off[0]) = invoke(op, x0, x1, x2);
}

/* The 32-bit strided launch as PyTorch 2.11 compiles it (libtorch_cuda's sm_90 SASS of
 * elementwise_kernel<128, 2, gpu_kernel_impl_nocast<BinaryFunctor<float, float, float,
 * DivFunctor<float>>>: 19 registers, launch bounds (128, 4)): an int count, idx = blockIdx.x *
 * 128 * VT + threadIdx.x, and each of the VT elements done in turn -- its offsets (the
 * OffsetCalculator's loop over MAX_DIMS unrolled, leaving at dims, its dividers and strides read
 * at fixed kernel-parameter offsets), its loads, the op, its store -- before idx += 128. The
 * generic offset_kernel above (runtime-indexed parameters, all loads of a thread before its
 * stores, a grid-stride loop) took 34 registers and ran L1/36's, 38's and 39's broadcast
 * division at 1.6 TB/s, 0.65x of eager's speed (bench/kernel-times.sh on the H200). */
template <typename Op, int VT = OffsetWork<Op>::v>
__global__ void __launch_bounds__(kThreads, 4) legacy_offset_kernel(Op op, OffArgs<int32_t> a, int n)
{
    int idx = (int)blockIdx.x * (kThreads * VT) + (int)threadIdx.x;
#pragma unroll
    for (int j = 0; j < VT; j++) {
        if (idx < n) {
            offset_element<Op, uint32_t>(op, a, (uint32_t)idx);
            idx += kThreads;
        }
    }
}

/* A launch with a negative stride (flip) as flip_kernel_impl runs it: index_elementwise_kernel
 * <128, 4> of IndexKernel.cu (launch bounds (128, 4), an int64 count, an unsigned 32-bit index)
 * with OffsetCalculator<2, uint32_t, signed_strides = true>: unsigned linear index and dividers,
 * signed 32-bit offsets, each of the 4 elements of a thread done in turn. flip writes its result
 * through the negative stride and reads its input forward (TensorTransformations.cpp negates the
 * output's strides); the generic offset_kernel over a reversed input took L1/91's flips 1.38x
 * eager's time. */
constexpr int kIndexWork = 4;
template <typename T> struct OpCopyBits;
template <typename Op> struct IsBitCopy { static constexpr bool v = false; }; /* flip's copy: the one
                                                                                 op with a negative stride */
template <typename T> struct IsBitCopy<OpCopyBits<T>> { static constexpr bool v = true; };
template <typename Op>
__global__ void __launch_bounds__(kThreads, 4) index_offset_kernel(Op op, OffArgs<int32_t> a, int64_t n)
{
    unsigned idx = (unsigned)(kThreads * kIndexWork) * blockIdx.x + threadIdx.x;
#pragma unroll
    for (int j = 0; j < kIndexWork; j++) {
        if (idx < n) {
            offset_element<Op, int32_t>(op, a, idx);
            idx += kThreads;
        }
    }
}

static unsigned int grid_for(int64_t work, int64_t per_block)
{
    int64_t blocks = (work + per_block - 1) / per_block;
    if (blocks < 1)
        blocks = 1;
    if (blocks > INT32_MAX)
        blocks = INT32_MAX;
    return (unsigned int)blocks;
}

/* ---- casting path (unrolled_elementwise_kernel with LoadWithCast) ------------------------- */

/* A dynamically casting op over contiguous operands (L1/93's x * mask: float * bool) as
 * gpu_kernel_impl runs it when the iterator is contiguous and needs_dynamic_casting:
 * launch_unrolled_kernel's unrolled_elementwise_kernel<BinaryFunctor<float, float, float,
 * MulFunctor<float>>, std::array<char *, 3>, 4, TrivialOffsetCalculator<2, unsigned int>,
 * TrivialOffsetCalculator<1, unsigned int>, LoadWithCast<2>, StoreWithCast<1>> (CUDALoops.cuh,
 * MemoryAccess.cuh). 128 threads (launch bounds (128), no minimum of blocks), 4 elements per
 * thread, block work 512, grid ceil(n / 512), an int count; thread t loads elements t + j * 128
 * of its block, each bounds-checked, computes those in bounds, then stores them; an operand's
 * address is its base plus element size times linear index, a 32-bit product (TrivialOffset-
 * Calculator: offset == index). The functor runs on the common dtype, float: each operand is
 * read through c10::fetch_and_cast<float>(dtype, ptr), a switch on the operand's ScalarType
 * passed in the kernel arguments, and the result written through c10::cast_and_store<float>, a
 * switch on the result's. Both switches have every case c10 has (AT_FORALL_SCALAR_TYPES_WITH_
 * COMPLEX plus UInt16/32/64: 21, in c10's numbering, with c10's conversions) and an assert
 * (__assert_fail) for any other value. Only float and bool are ever passed; the other cases are
 * cold code, kept because they set the compare tree the switch lowers to (its depth on the float
 * and bool paths) and the registers the kernel takes. The bool is fetched as 1.0f / 0.0f and
 * multiplied, so x * mask is bitwise OpMulBool's a * (b ? 1 : 0): -0.0 for a negative x under a
 * false mask, NaN for an inf or NaN x.
 *
 * The evidence. CUPTI on the H200: eager's x * mask of L1/93 is this kernel at 1847 us per launch
 * (grid 1048576 x 128: the 4 GiB operand split into two 32-bit-indexable launches), where
 * offset_kernel<OpMulBool, int, 4> (the operand types compiled in, trivial offsets) took 1223 us,
 * 0.66x of eager's time: a baseline faster than PyTorch. libtorch_cuda's sm_90 SASS of eager's
 * kernel: 32 registers, 2744 instructions; a load is a binary compare tree over the dtype, ISETP
 * + BRA pairs (float: > 9, > 4, > 6, != 5, != 6, then LDG.E; bool: > 9, > 24, > 14, != 10,
 * != 11, then LDG.E.U8 and at once ISETP.NE + FSEL 1.0 / 0.0 on the loaded byte, so every bool
 * load stalls its thread until the byte arrives), the store the same tree down to STG.E; one
 * thread of a full block executes 307 instructions (8 LDG, 4 FMUL, 4 STG, 72 ISETP, 78 BRA).
 * This kernel (nvcc 13.0, sm_90) compiles to the same 32 registers and 2744 instructions, opcode
 * for opcode, the same 307 on a thread's path; it differs from PyTorch's only in register names,
 * kernel-argument offsets (no empty offset calculators among its arguments), the assert's
 * arguments, and the order of two instructions in three of the cold float8 loads. Its time on the
 * H200 is not yet measured. */

/* c10::ScalarType's numbering (torch/headeronly/core/ScalarType.h): the values the switches below
 * compare against, so that they lower to the same compare tree as PyTorch's. */
enum class ScalarT : int8_t {
    Byte = 0,
    Char = 1,
    Short = 2,
    Int = 3,
    Long = 4,
    Half = 5,
    Float = 6,
    Double = 7,
    ComplexHalf = 8,
    ComplexFloat = 9,
    ComplexDouble = 10,
    Bool = 11,
    BFloat16 = 15,
    Float8_e5m2 = 23,
    Float8_e4m3fn = 24,
    Float8_e5m2fnuz = 25,
    Float8_e4m3fnuz = 26,
    UInt16 = 27,
    UInt32 = 28,
    UInt64 = 29,
    Float8_e8m0fnu = 44,
};

__device__ __forceinline__ float bits_f32(uint32_t b) { return __uint_as_float(b); }
__device__ __forceinline__ uint32_t f32_bits(float f) { return __float_as_uint(f); }
/* cuda_fp16's __half2float / __float2half_rn and cuda_bf16's __float2bfloat16_rn (sm_80+) */
__device__ __forceinline__ float half_to_f32(uint16_t h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ uint16_t f32_to_half(float f)
{
    uint16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ uint16_t f32_to_bf16(float f)
{
    uint16_t h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

/* c10's software float8 conversions (torch/headeronly/util/Float8_*.h, Half.h) */
__device__ __forceinline__ float fp16_ieee_to_f32(uint16_t h)
{
    const uint32_t w = (uint32_t)h << 16;
    const uint32_t sign = w & 0x80000000u;
    const uint32_t two_w = w + w;
    const float normalized = bits_f32((two_w >> 4) + (0xE0u << 23)) * bits_f32(15u << 23);
    const float denormalized = bits_f32((two_w >> 17) | (126u << 23)) - 0.5f;
    return bits_f32(sign | (two_w < (1u << 27) ? f32_bits(denormalized) : f32_bits(normalized)));
}
__device__ __forceinline__ float e5m2_to_f32(uint8_t x) { return fp16_ieee_to_f32((uint16_t)(x << 8)); }
__device__ __forceinline__ float e4m3fn_to_f32(uint8_t x)
{
    const uint32_t w = (uint32_t)x << 24;
    const uint32_t sign = w & 0x80000000u;
    const uint32_t nonsign = w & 0x7FFFFFFFu;
    uint32_t renorm = __clz(nonsign);
    renorm = renorm > 4 ? renorm - 4 : 0;
    const int32_t inf_nan_mask = ((int32_t)(nonsign + 0x01000000) >> 8) & 0x7F800000;
    const int32_t zero_mask = (int32_t)(nonsign - 1) >> 31;
    return bits_f32(sign | ((((nonsign << renorm >> 4) + ((0x78 - renorm) << 23)) | inf_nan_mask) & ~zero_mask));
}
template <uint32_t we, uint32_t wm> __device__ __forceinline__ float fnuz_to_f32(uint8_t x)
{
    if (x == 0)
        return 0;
    if (x == 0x80)
        return bits_f32(0x7F800001u);
    uint32_t mantissa = x & ((1 << wm) - 1);
    uint32_t exponent = (x & 0x7F) >> wm;
    if (exponent == 0) {
        const uint32_t renorm = __clz(mantissa);
        const uint32_t sh = 1 + renorm - (32 - wm);
        mantissa <<= sh;
        exponent += 1 - sh;
        mantissa &= ((1 << wm) - 1);
    }
    exponent += (1u << 7) - (1u << (we - 1)) - 1;
    mantissa <<= 23 - wm;
    return bits_f32(((uint32_t)(x >> 7) << 31) | (exponent << 23) | mantissa);
}
__device__ __forceinline__ float e8m0_to_f32(uint8_t x)
{
    if (x == 0)
        return bits_f32(0x00400000u);
    if (x == 0xFF)
        return bits_f32(0x7f800001u);
    return bits_f32((uint32_t)x << 23);
}
__device__ __forceinline__ uint8_t f32_to_e5m2(float f)
{
    uint32_t b = f32_bits(f);
    uint8_t r;
    const uint32_t sign = b & 0x80000000u;
    b ^= sign;
    if (b >= (143u << 23)) {
        r = b > (255u << 23) ? 0x7F : 0x7C;
    } else if (b < (113u << 23)) {
        b = f32_bits(bits_f32(b) + bits_f32(134u << 23));
        r = (uint8_t)(b - (134u << 23));
    } else {
        const uint32_t odd = (b >> 21) & 1;
        b += ((uint32_t)(15 - 127) << 23) + 0xFFFFF;
        b += odd;
        r = (uint8_t)(b >> 21);
    }
    return r | (uint8_t)(sign >> 24);
}
__device__ __forceinline__ uint8_t f32_to_e4m3fn(float f)
{
    uint32_t b = f32_bits(f);
    uint8_t r;
    const uint32_t sign = b & 0x80000000u;
    b ^= sign;
    if (b >= (1087u << 20)) {
        r = 0x7f;
    } else if (b < (121u << 23)) {
        b = f32_bits(bits_f32(b) + bits_f32(141u << 23));
        r = (uint8_t)(b - (141u << 23));
    } else {
        const uint8_t odd = (b >> 20) & 1;
        b += ((uint32_t)(7 - 127) << 23) + 0x7FFFF;
        b += odd;
        r = (uint8_t)(b >> 20);
    }
    return r | (uint8_t)(sign >> 24);
}
/* e4m3fnuz: (max 0x87, denorm 0x8C, normal 0x78, bias 8, shift 20, round 0x7FFFF);
 * e5m2fnuz: (0x8F, 0x85, 0x70, 16, 21, 0xFFFFF) */
template <uint32_t kMax, uint32_t kDenorm, uint32_t kNormal, int kBias, int kShift, uint32_t kRound>
__device__ __forceinline__ uint8_t f32_to_fnuz(float f)
{
    uint32_t b = f32_bits(f);
    uint32_t r;
    const uint32_t sign = b & 0x80000000u;
    b ^= sign;
    if (b >= (kMax << 23))
        return 0x80;
    if (b < (kNormal << 23)) {
        b = f32_bits(bits_f32(b) + bits_f32(kDenorm << 23));
        r = (uint8_t)(b - (kDenorm << 23));
        if (r == 0)
            return 0;
    } else {
        const uint8_t odd = (b >> kShift) & 1;
        b += ((uint32_t)(kBias - 127) << 23) + kRound;
        b += odd;
        r = (uint8_t)(b >> kShift);
    }
    r |= sign >> 24;
    return (uint8_t)r;
}
__device__ __forceinline__ uint8_t f32_to_e8m0(float f)
{
    const uint32_t b = f32_bits(f);
    uint32_t e = (b >> 23) & 0xFF;
    if (e == 0xFF)
        return (uint8_t)e;
    const bool g = (b & 0x400000) > 0, r = (b & 0x200000) > 0, s = (b & 0x1FFFFF) > 0, lsb = e > 0;
    if (g && (r || s || lsb))
        e++;
    return (uint8_t)e;
}

}  // namespace

/* CUDA_KERNEL_ASSERT's __assert_fail, declared as c10/macros/Macros.h declares it (and glibc's
 * assert.h, which leaves it out under NDEBUG) */
extern "C" {
#if defined(__CUDA_ARCH__)
__host__ __device__
#endif
    void
    __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function) noexcept
    __attribute__((__noreturn__));
}

namespace {

/* CUDA_KERNEL_ASSERT(false), ERROR_UNSUPPORTED_CAST: an unknown dtype */
#define KB_CAST_UNSUPPORTED() __assert_fail("false", __FILE__, __LINE__, __func__)

/* c10::fetch_and_cast<float> (c10/core/DynamicCast.h): the operand's dtype known at run time */
__device__ __forceinline__ float fetch_and_cast(ScalarT t, const void *p)
{
    switch (t) {
    case ScalarT::Byte: return (float)*(const uint8_t *)p;
    case ScalarT::Char: return (float)*(const int8_t *)p;
    case ScalarT::Short: return (float)*(const int16_t *)p;
    case ScalarT::Int: return (float)*(const int32_t *)p;
    case ScalarT::Long: return (float)*(const int64_t *)p;
    case ScalarT::Half: return half_to_f32(*(const uint16_t *)p);
    case ScalarT::Float: return *(const float *)p;
    case ScalarT::Double: return (float)*(const double *)p;
    case ScalarT::ComplexHalf: return half_to_f32(*(const uint16_t *)p); /* the real part */
    case ScalarT::ComplexFloat: return *(const float *)p;
    case ScalarT::ComplexDouble: return (float)*(const double *)p;
    case ScalarT::Bool: return *(const uint8_t *)p != 0 ? 1.0f : 0.0f; /* c10::load<bool> */
    case ScalarT::BFloat16: return bits_f32((uint32_t)*(const uint16_t *)p << 16);
    case ScalarT::Float8_e5m2: return e5m2_to_f32(*(const uint8_t *)p);
    case ScalarT::Float8_e4m3fn: return e4m3fn_to_f32(*(const uint8_t *)p);
    case ScalarT::Float8_e5m2fnuz: return fnuz_to_f32<5, 2>(*(const uint8_t *)p);
    case ScalarT::Float8_e4m3fnuz: return fnuz_to_f32<4, 3>(*(const uint8_t *)p);
    case ScalarT::UInt16: return (float)*(const uint16_t *)p;
    case ScalarT::UInt32: return (float)*(const uint32_t *)p;
    case ScalarT::UInt64: return (float)*(const uint64_t *)p;
    case ScalarT::Float8_e8m0fnu: return e8m0_to_f32(*(const uint8_t *)p);
    default: KB_CAST_UNSUPPORTED();
    }
    return 0.0f;
}

struct alignas(4) ComplexHalfBits {
    uint16_t re, im;
};
struct alignas(8) ComplexFloat {
    float re, im;
};
struct alignas(16) ComplexDouble {
    double re, im;
};

/* c10::cast_and_store<float> */
__device__ __forceinline__ void cast_and_store(ScalarT t, void *p, float v)
{
    switch (t) {
    case ScalarT::Byte: *(uint8_t *)p = (uint8_t)(int64_t)v; return; /* via int64, as c10 */
    case ScalarT::Char: *(int8_t *)p = (int8_t)v; return;
    case ScalarT::Short: *(int16_t *)p = (int16_t)v; return;
    case ScalarT::Int: *(int32_t *)p = (int32_t)v; return;
    case ScalarT::Long: *(int64_t *)p = (int64_t)v; return;
    case ScalarT::Half: *(uint16_t *)p = f32_to_half(v); return;
    case ScalarT::Float: *(float *)p = v; return;
    case ScalarT::Double: *(double *)p = (double)v; return;
    case ScalarT::ComplexHalf: *(ComplexHalfBits *)p = ComplexHalfBits{f32_to_half(v), 0}; return;
    case ScalarT::ComplexFloat: *(ComplexFloat *)p = ComplexFloat{v, 0.0f}; return;
    case ScalarT::ComplexDouble: *(ComplexDouble *)p = ComplexDouble{(double)v, 0.0}; return;
    case ScalarT::Bool: *(uint8_t *)p = v != 0.0f; return;
    case ScalarT::BFloat16: *(uint16_t *)p = f32_to_bf16(v); return;
    case ScalarT::Float8_e5m2: *(uint8_t *)p = f32_to_e5m2(v); return;
    case ScalarT::Float8_e4m3fn: *(uint8_t *)p = f32_to_e4m3fn(v); return;
    case ScalarT::Float8_e5m2fnuz: *(uint8_t *)p = f32_to_fnuz<0x8F, 0x85, 0x70, 16, 21, 0xFFFFF>(v); return;
    case ScalarT::Float8_e4m3fnuz: *(uint8_t *)p = f32_to_fnuz<0x87, 0x8C, 0x78, 8, 20, 0x7FFFF>(v); return;
    case ScalarT::UInt16: *(uint16_t *)p = (uint16_t)v; return;
    case ScalarT::UInt32: *(uint32_t *)p = (uint32_t)v; return;
    case ScalarT::UInt64: *(uint64_t *)p = (uint64_t)v; return;
    case ScalarT::Float8_e8m0fnu: *(uint8_t *)p = f32_to_e8m0(v); return;
    default:;
    }
    KB_CAST_UNSUPPORTED();
}

template <int NIN> struct CastPtrs {
    char *v[NIN + 1]; /* [0] the result, then the operands */
};
/* memory::LoadWithCast<NIN> */
template <int NIN> struct LoadCast {
    ScalarT dtypes[NIN];
    uint32_t element_sizes[NIN];
    __device__ __forceinline__ float load(char *base, uint32_t offset, int arg) const
    {
        return fetch_and_cast(dtypes[arg], base + element_sizes[arg] * offset);
    }
};
/* memory::StoreWithCast<1> */
struct StoreCast {
    ScalarT dtype;
    uint32_t element_size;
    __device__ __forceinline__ void store(float v, char *base, uint32_t offset) const
    {
        cast_and_store(dtype, base + element_size * offset, v);
    }
};

constexpr int kCastWork = 4; /* elementwise_thread_work_size() */

template <typename Fn, int NIN> struct CastApply;
template <typename Fn> struct CastApply<Fn, 1> {
    static __device__ __forceinline__ float apply(const Fn &f, const float (&a)[1]) { return f(a[0]); }
};
template <typename Fn> struct CastApply<Fn, 2> {
    static __device__ __forceinline__ float apply(const Fn &f, const float (&a)[2]) { return f(a[0], a[1]); }
};
template <typename Fn> struct CastApply<Fn, 3> {
    static __device__ __forceinline__ float apply(const Fn &f, const float (&a)[3]) { return f(a[0], a[1], a[2]); }
};

template <typename Fn, int NIN>
__global__ void __launch_bounds__(kThreads)
unrolled_cast_kernel(int n, Fn f, CastPtrs<NIN> data, LoadCast<NIN> loader, StoreCast storer)
{
    constexpr int kBlockWork = kCastWork * kThreads;
    const int remaining = n - kBlockWork * (int)blockIdx.x;
    const int idx = (int)blockIdx.x;
    float results[kCastWork];
    float args[kCastWork][NIN] = {};
    int thread_idx = (int)threadIdx.x;
#pragma unroll
    for (int i = 0; i < kCastWork; i++) {
        if (thread_idx < remaining) {
            const int linear_idx = thread_idx + kBlockWork * idx;
#pragma unroll
            for (int k = 0; k < NIN; k++)
                args[i][k] = loader.load(data.v[k + 1], (uint32_t)linear_idx, k);
            thread_idx += kThreads;
        }
    }
#pragma unroll
    for (int i = 0; i < kCastWork; i++)
        if ((int)(threadIdx.x + i * kThreads) < remaining)
            results[i] = CastApply<Fn, NIN>::apply(f, args[i]);
    thread_idx = (int)threadIdx.x;
#pragma unroll
    for (int i = 0; i < kCastWork; i++) {
        if (thread_idx < remaining) {
            const int linear_idx = thread_idx + kBlockWork * idx;
            storer.store(results[i], data.v[0], (uint32_t)linear_idx);
            thread_idx += kThreads;
        }
    }
}

/* the ScalarType of an engine operand type (its uint8_t operands are bools) */
template <typename T> struct ScalarTOf;
template <> struct ScalarTOf<float> {
    static constexpr ScalarT v = ScalarT::Float;
};
template <> struct ScalarTOf<uint8_t> {
    static constexpr ScalarT v = ScalarT::Bool;
};

/* One 32-bit-indexable launch of unrolled_cast_kernel over contiguous operands: the functor on
 * the common dtype (NeedsDynamicCast<Op>::fn_t), the operands' dtypes and sizes as arguments. */
template <typename Op, int NIN>
static void unrolled_cast_launch(cudaStream_t stream, char *const base[kMaxIn + 1], int64_t n)
{
    typedef typename NeedsDynamicCast<Op>::fn_t Fn;
    const ScalarT dtypes[kMaxIn] = {ScalarTOf<typename Op::in0_t>::v, ScalarTOf<typename Op::in1_t>::v,
                                    ScalarTOf<typename Op::in2_t>::v};
    const uint32_t sizes[kMaxIn] = {sizeof(typename Op::in0_t), sizeof(typename Op::in1_t),
                                    sizeof(typename Op::in2_t)};
    CastPtrs<NIN> data;
    LoadCast<NIN> loader;
    for (int k = 0; k <= NIN; k++)
        data.v[k] = base[k];
    for (int k = 0; k < NIN; k++) {
        loader.dtypes[k] = dtypes[k];
        loader.element_sizes[k] = sizes[k];
    }
    StoreCast storer;
    storer.dtype = ScalarTOf<typename Op::out_t>::v;
    storer.element_size = sizeof(typename Op::out_t);
    unrolled_cast_kernel<Fn, NIN><<<grid_for(n, (int64_t)kCastWork * kThreads), kThreads, 0, stream>>>(
        (int)n, Fn(), data, loader, storer);
}

/* One elementwise launch. Shapes: `shape` (ndim) is the iteration shape; out_stride / in_stride
 * are element strides aligned to it (0 where an operand broadcasts); out_stride NULL means the
 * result is contiguous. */
/* The offset kernel's arguments over collapsed dims (outermost first in csize/cst, innermost
 * first in OffArgs; byte strides), with the 32-bit dividers when index_t is 32-bit. */
template <typename index_t, int NIN>
static OffArgs<index_t> offset_args(char *const base[kMaxIn + 1], int cn, const int64_t *csize,
                                    const int64_t (*cst)[KB_MAX_DIMS], const size_t *esize, int trivial)
{
    OffArgs<index_t> a;
    memset(&a, 0, sizeof a);
    for (int k = 0; k <= NIN; k++)
        a.base[k] = base[k];
    a.ndim = cn;
    a.trivial = trivial;
    for (int d = 0; d < cn; d++) {
        const int s = cn - 1 - d;
        a.size[d] = csize[s];
        if (sizeof(index_t) == 4)
            a.div[d] = kb_intdiv_make((uint32_t)csize[s]);
        for (int k = 0; k <= NIN; k++)
            a.stride[k][d] = (index_t)(cst[k][s] * (int64_t)esize[k]);
    }
    return a;
}

/* The offset path's launch over collapsed dims (outermost first; byte strides = cst * esize).
 * 32-bit offsets when the count and every operand's byte extent fit; otherwise split as
 * TensorIterator::with_32bit_indexing does -- the dim with the largest byte extent of any
 * operand, in half, recursively -- so each launch indexes in 32 bits (a single 64-bit launch
 * with 64-bit div/mod took L1/93's 4 GiB mul 1.2x eager's time). A dim that cannot be split
 * leaves 64-bit indexing. */
template <typename Op, int NIN>
static void offset_launch(const Op &op, cudaStream_t stream, char *const base[kMaxIn + 1], int cn,
                          const int64_t *csize, const int64_t (*cst)[KB_MAX_DIMS], const size_t *esize)
{
    int64_t n = 1;
    for (int d = 0; d < cn; d++)
        n *= csize[d];
    int fits32 = n <= INT32_MAX, split = -1;
    int64_t widest = -1;
    for (int d = 0; d < cn; d++)
        for (int k = 0; k <= NIN; k++) {
            const int64_t ext = (csize[d] - 1) * (cst[k][d] < 0 ? -cst[k][d] : cst[k][d]) * (int64_t)esize[k];
            if (ext > widest && csize[d] > 1) {
                widest = ext;
                split = d;
            }
        }
    for (int k = 0; k <= NIN && fits32; k++) {
        int64_t ext = 0;
        for (int d = 0; d < cn; d++)
            ext += (csize[d] - 1) * (cst[k][d] < 0 ? -cst[k][d] : cst[k][d]) * (int64_t)esize[k];
        fits32 = ext <= INT32_MAX;
    }
    if (!fits32 && split >= 0) {
        int64_t half[KB_MAX_DIMS];
        for (int d = 0; d < cn; d++)
            half[d] = csize[d];
        const int64_t h = csize[split] / 2;
        half[split] = h;
        offset_launch<Op, NIN>(op, stream, base, cn, half, cst, esize);
        char *rest[kMaxIn + 1] = {NULL};
        for (int k = 0; k <= NIN; k++)
            rest[k] = base[k] + h * cst[k][split] * (int64_t)esize[k];
        half[split] = csize[split] - h;
        offset_launch<Op, NIN>(op, stream, rest, cn, half, cst, esize);
        return;
    }
    const unsigned int grid = grid_for(n, (int64_t)kThreads * OffsetWork<Op>::v);
    /* gpu_kernel_impl: a casting op over contiguous operands runs unrolled_elementwise_kernel
     * with TrivialOffsetCalculator; everything else here divides per dim, one dim included */
    int trivial = NeedsDynamicCast<Op>::v && cn == 1;
    for (int k = 0; k <= NIN && trivial; k++)
        trivial = cst[k][0] == 1;
    if constexpr (NeedsDynamicCast<Op>::v)
        if (fits32 && trivial) { /* launch_unrolled_kernel, with its dtype switches */
            unrolled_cast_launch<Op, NIN>(stream, base, n);
            return;
        }
    /* legacy_offset_kernel's offsets are unsigned, as PyTorch's: a negative stride (flip) runs
     * index_offset_kernel's signed ones */
    int unsigned_ok = 1;
    for (int k = 0; k <= NIN; k++)
        for (int d = 0; d < cn; d++)
            unsigned_ok &= cst[k][d] >= 0;
    if constexpr (IsBitCopy<Op>::v)
        if (fits32 && !unsigned_ok) {
            index_offset_kernel<Op><<<grid_for(n, (int64_t)kThreads * kIndexWork), kThreads, 0, stream>>>(
                op, offset_args<int32_t, NIN>(base, cn, csize, cst, esize, trivial), n);
            return;
        }
    if (fits32 && !trivial && unsigned_ok)
        legacy_offset_kernel<Op><<<grid, kThreads, 0, stream>>>(
            op, offset_args<int32_t, NIN>(base, cn, csize, cst, esize, trivial), (int)n);
    else if (fits32)
        offset_kernel<Op, int32_t><<<grid, kThreads, 0, stream>>>(
            op, offset_args<int32_t, NIN>(base, cn, csize, cst, esize, trivial), n);
    else
        offset_kernel<Op, int64_t><<<grid, kThreads, 0, stream>>>(
            op, offset_args<int64_t, NIN>(base, cn, csize, cst, esize, trivial), n);
}

/* numbers: bit k set when operand k is a Python number held as a one-element tensor (kb_number):
 * eager passes it to the functor as a CPU scalar, so it does not keep the kernel off the
 * vectorized path; any other one-element operand is a stride-0 broadcast, as TensorIterator
 * treats a 0-d CUDA tensor (the offset path). */
template <typename Op>
static int launch(kb_ctx *ctx, const Op &op, void *out, const int64_t *out_stride, int ndim, const int64_t *shape,
                  const void *const *in, const int64_t (*in_stride)[KB_MAX_DIMS], unsigned numbers = 0)
{
    typedef typename Op::out_t O;
    constexpr int NIN = Op::N;
    const size_t esize[kMaxIn + 1] = {sizeof(O), sizeof(typename Op::in0_t), sizeof(typename Op::in1_t),
                                      sizeof(typename Op::in2_t)};
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    if (n == 0)
        return 0;
    if (!out)
        return kb_ctx_fail(ctx, "elementwise: NULL result pointer");
    for (int k = 0; k < NIN; k++)
        if (!in[k])
            return kb_ctx_fail(ctx, "elementwise: NULL operand pointer");
    cudaStream_t stream = kb_ctx_stream(ctx);

    /* strides of every operand ([0] the result) over the iteration shape */
    int64_t st[kMaxIn + 1][KB_MAX_DIMS];
    {
        int64_t s = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            st[0][d] = out_stride ? out_stride[d] : s;
            s *= shape[d];
        }
    }
    for (int k = 0; k < NIN; k++)
        for (int d = 0; d < ndim; d++)
            st[k + 1][d] = in_stride[k][d];

    /* the vectorized path: every operand contiguous (or a single broadcast element), aligned */
    int contiguous[kMaxIn + 1], scalar[kMaxIn + 1];
    int vec_ok = 1;
    for (int k = 0; k <= NIN; k++) {
        int64_t s = 1;
        contiguous[k] = 1;
        scalar[k] = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            if (shape[d] != 1) {
                if (st[k][d] != s)
                    contiguous[k] = 0;
                if (st[k][d] != 0)
                    scalar[k] = 0;
            }
            s *= shape[d];
        }
        if (k == 0)
            scalar[0] = 0; /* the result is written in full */
        const void *p = k == 0 ? (const void *)out : in[k - 1];
        if (!contiguous[k] && !(scalar[k] && k > 0 && (numbers >> (k - 1) & 1u)))
            vec_ok = 0;
        if (!scalar[k] && ((uintptr_t)p % (esize[k] * kVecWidth)) != 0)
            vec_ok = 0;
    }
    /* a casting op is never vectorized (needs_dynamic_casting); contiguous, it reaches
     * unrolled_cast_kernel through offset_launch, after the 32-bit split */
    if (NeedsDynamicCast<Op>::v)
        vec_ok = 0;
    if (vec_ok) {
        VecArgs a;
        memset(&a, 0, sizeof a);
        a.out = (char *)out;
        for (int k = 0; k < NIN; k++) {
            a.in[k] = (const char *)in[k];
            a.scalar[k] = scalar[k + 1] && !contiguous[k + 1];
        }
        if (n <= INT32_MAX)
            vec_kernel<Op, int32_t><<<grid_for(n, kVecBlockWork), kThreads, 0, stream>>>(op, a, (int32_t)n);
        else
            vec_kernel<Op, int64_t><<<grid_for(n, kVecBlockWork), kThreads, 0, stream>>>(op, a, n);
        KB_OP_LAUNCHED(ctx);
        return 0;
    }

    /* the offset path: coalesce dimensions (size-1 dims dropped; d merged into its inner
     * neighbour when every operand has stride[d] == stride[d+1] * size[d+1]) */
    int64_t csize[KB_MAX_DIMS];
    int64_t cst[kMaxIn + 1][KB_MAX_DIMS];
    int cn = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 1)
            continue;
        if (cn > 0) {
            int merge = 1;
            for (int k = 0; k <= NIN && merge; k++)
                merge = cst[k][cn - 1] == st[k][d] * shape[d];
            if (merge) {
                csize[cn - 1] *= shape[d];
                for (int k = 0; k <= NIN; k++)
                    cst[k][cn - 1] = st[k][d];
                continue;
            }
        }
        csize[cn] = shape[d];
        for (int k = 0; k <= NIN; k++)
            cst[k][cn] = st[k][d];
        cn++;
    }
    char *base[kMaxIn + 1] = {(char *)out};
    for (int k = 0; k < NIN; k++)
        base[k + 1] = (char *)in[k];
    offset_launch<Op, NIN>(op, stream, base, cn, csize, cst, esize);
    KB_OP_LAUNCHED(ctx);
    return 0;
}

/* A contiguous n-element launch (the raw kb_op_unary). */
template <typename Op> static int launch_flat(kb_ctx *ctx, const Op &op, void *out, const void *x, int64_t n)
{
    const int64_t shape[1] = {n};
    const int64_t stride[1][KB_MAX_DIMS] = {{1}};
    const void *in[1] = {x};
    return launch(ctx, op, out, NULL, 1, shape, in, stride);
}

/* ---- triu / tril (triu_tril_kernel: 512 threads, 8 bytes of a row per thread) -------------- */

constexpr int kTriThreads = 512;
constexpr int kTriWork = 2; /* sizeof(float) < 8 ? 8 / sizeof(float) : 1 */

template <bool upper, bool inplace>
__global__ void __launch_bounds__(kTriThreads)
triu_tril_kernel(float *y, const float *x, int64_t rows, int64_t cols, int64_t k, int64_t cols_padded, int64_t n_padded)
{
    int64_t lin = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * kTriWork;
    if (lin >= n_padded)
        return;
    const int64_t col = lin % cols_padded;
    lin /= cols_padded;
    const int64_t row = lin % rows;
    const int64_t mat = lin / rows;
    if (inplace) {
        const bool all_kept = upper ? (col - row >= k) : (col + kTriWork - row <= k);
        if (all_kept)
            return;
    }
    const int64_t base = (mat * rows + row) * cols;
#pragma unroll
    for (int i = 0; i < kTriWork; i++) {
        const int64_t c = col + i;
        if (c < cols) {
            const bool keep = upper ? (c - row >= k) : (c - row <= k);
            y[base + c] = keep ? x[base + c] : 0.0f;
        }
    }
}

/* ---- torch.cat: cat_out_cuda's batched copies (ATen/native/cuda/Shape.cu) ------------------ */

constexpr int kCatBatch = 128;       /* CAT_ARRAY_BATCH_SIZE: inputs per launch, contiguous inputs */
constexpr int kCatMaxDims = 4;       /* CAT_ARRAY_MAX_INPUT_DIMS */
constexpr int kCatVecBytes = 16;     /* the vectorized and alignedK kernels' alignment */
constexpr int kCatThreads = 128;     /* getCatGridContig's block */
constexpr int kCatTbPerSm = 32;      /* ... and its cap: 32 blocks per SM */
constexpr int kCatWideThreads = 512; /* 32 * 16, the unaligned kernels' block (grid 2 x SMs) */

/* TensorSizeStride<unsigned int, 4> */
struct CatSizeStride {
    unsigned size[kCatMaxDims];
    unsigned stride[kCatMaxDims];
};

/* CatArrInputTensorMetadata<T, unsigned int, B, S>, field for field (the kernel's argument block
 * is as large as eager's): B inputs of one launch; S == 1 for contiguous inputs (no per-input
 * strides), S == B for strided ones. */
template <int B, int S> struct CatMeta {
    const char *src[B];
    unsigned offset[B];   /* the input's first index along the cat dimension of the result */
    unsigned dim_size[B]; /* its extent along that dimension */
    unsigned nelem[B];
    bool contig[B];
    CatSizeStride in[S];
};
typedef CatMeta<kCatBatch, 1> CatMetaContig;
typedef CatMeta<kCatBatch / 2, kCatBatch / 2> CatMetaStrided;

/* CatArrIndexToOffset: the offset, in the result (sizes and strides `s`, the cat dimension's extent
 * replaced by the input's), of the input's element `lin` in row-major order. Dims - 1 divisions. */
template <int Dims>
__device__ __forceinline__ unsigned cat_offset(const CatSizeStride &s, unsigned dim_size, int cat_dim, unsigned lin)
{
    unsigned off = 0;
#pragma unroll
    for (int i = Dims - 1; i >= 1; --i) {
        const unsigned len = i == cat_dim ? dim_size : s.size[i];
        const unsigned next = lin / len;
        off += (lin - next * len) * s.stride[i];
        lin = next;
    }
    return off + lin * s.stride[0];
}

/* CatArrayBatchedCopy_vectorized: every input slice and the result's row are whole 16-byte
 * vectors; the dimensions from the cat one on are flattened into vectors (the host passes
 * Dims = cat dim + 1 and the sizes / strides in vectors), each thread moves one vector per step of
 * its grid-stride loop. ES: the element size (16 / ES elements per vector). */
template <int ES, int Dims>
__global__ void cat_vec_kernel(char *out, CatMetaContig m, CatSizeStride os, int cat_dim, unsigned trailing)
{
    constexpr unsigned kPer = kCatVecBytes / ES;
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned n = m.nelem[blockIdx.y] / kPer;
    if (tid >= n)
        return;
    const char *src = m.src[blockIdx.y];
    const unsigned offset = m.offset[blockIdx.y] * trailing / kPer;
    const unsigned dim_size = m.dim_size[blockIdx.y] * trailing / kPer;
    const int64_t base = (int64_t)offset * kCatVecBytes;
    const unsigned step = gridDim.x * blockDim.x;
    while (tid < n) {
        const int64_t at = (int64_t)cat_offset<Dims>(os, dim_size, cat_dim, tid) * kCatVecBytes;
        const uint4 v = *reinterpret_cast<const uint4 *>(src + (int64_t)kCatVecBytes * tid);
        *reinterpret_cast<uint4 *>(out + base + at) = v;
        tid += step;
    }
}

/* CatArrayBatchedCopy_alignedK_contig: every input 16-byte aligned; a thread loads ILP elements of
 * its input as one vector, computes each one's place in the result, stores them one by one; the
 * elements past the last whole vector go one at a time (by the one thread that reaches them). */
template <typename T, int ILP, int Dims>
__global__ void cat_aligned_kernel(T *out, CatMetaContig m, CatSizeStride os, int cat_dim, unsigned dim_stride)
{
    unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) * ILP;
    const unsigned step = gridDim.x * blockDim.x * ILP;
    const unsigned n = m.nelem[blockIdx.y];
    if (i >= n)
        return;
    const T *src = reinterpret_cast<const T *>(m.src[blockIdx.y]);
    const unsigned dim_size = m.dim_size[blockIdx.y];
    const unsigned base = m.offset[blockIdx.y] * dim_stride;
    unsigned at[ILP];
    T v[ILP];
    while (i + ILP <= n) {
        for (int k = 0; k < ILP; k++)
            at[k] = cat_offset<Dims>(os, dim_size, cat_dim, i + k);
        *reinterpret_cast<Vec<T, ILP> *>(v) = *reinterpret_cast<const Vec<T, ILP> *>(src + i);
#pragma unroll
        for (int k = 0; k < ILP; k++)
            out[base + at[k]] = v[k];
        i += step;
    }
    while (i < n) {
        out[base + cat_offset<Dims>(os, dim_size, cat_dim, i)] = src[i];
        i++;
    }
}

/* CatArrayBatchedCopy_contig: contiguous inputs, one element per thread and grid step. */
template <typename T, int Dims>
__global__ void cat_contig_kernel(T *out, CatMetaContig m, CatSizeStride os, int cat_dim, unsigned dim_stride)
{
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned n = m.nelem[blockIdx.y];
    if (tid >= n)
        return;
    const T *src = reinterpret_cast<const T *>(m.src[blockIdx.y]);
    const unsigned dim_size = m.dim_size[blockIdx.y];
    const unsigned base = m.offset[blockIdx.y] * dim_stride;
    const unsigned step = gridDim.x * blockDim.x;
    while (tid < n) {
        out[base + cat_offset<Dims>(os, dim_size, cat_dim, tid)] = src[tid];
        tid += step;
    }
}

/* CatArrayBatchedCopy (stride_size > 1): strided inputs, each element's source offset from the
 * input's own sizes and strides. */
template <typename T, int Dims>
__global__ void cat_strided_kernel(T *out, CatMetaStrided m, CatSizeStride os, int cat_dim, unsigned dim_stride)
{
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned n = m.nelem[blockIdx.y];
    const CatSizeStride ins = m.in[blockIdx.y];
    if (tid >= n)
        return;
    const T *src = reinterpret_cast<const T *>(m.src[blockIdx.y]);
    const unsigned dim_size = m.dim_size[blockIdx.y];
    const unsigned base = m.offset[blockIdx.y] * dim_stride;
    const unsigned step = gridDim.x * blockDim.x;
    while (tid < n) {
        const unsigned at = cat_offset<Dims>(os, dim_size, cat_dim, tid);
        out[base + at] = src[cat_offset<Dims>(ins, dim_size, cat_dim, tid)];
        tid += step;
    }
}

/* ---- tensor-level helpers ----------------------------------------------------------------- */

/* Broadcast shape of the operands (PyTorch's rules); 0 and a failed scope if incompatible. */
static int broadcast_shape(kb_ref *r, const char *name, int n, const kb_tensor *t, int *ndim, int64_t *shape)
{
    int nd = 0;
    for (int k = 0; k < n; k++)
        if (t[k].ndim > nd)
            nd = t[k].ndim;
    for (int i = 0; i < nd; i++) {
        int64_t s = 1;
        for (int k = 0; k < n; k++) {
            const int j = t[k].ndim - nd + i;
            const int64_t have = j >= 0 ? t[k].shape[j] : 1;
            if (have == 1)
                continue;
            if (s != 1 && s != have) {
                kb_ref_fail(r, "%s: operand %d has size %lld at dimension %d, which does not broadcast against %lld",
                            name, k, (long long)have, i, (long long)s);
                return 0;
            }
            s = have;
        }
        shape[i] = s;
    }
    *ndim = nd;
    return 1;
}

/* Element strides of t aligned to the iteration shape (0 where t broadcasts). */
static void aligned_strides(kb_tensor t, int ndim, const int64_t *shape, int64_t *st)
{
    for (int i = ndim - 1, j = t.ndim - 1; i >= 0; i--, j--) {
        if (j < 0 || (t.shape[j] == 1 && shape[i] != 1))
            st[i] = 0;
        else
            st[i] = t.stride[j];
    }
}

static int check_operand(kb_ref *r, const char *name, int k, kb_tensor t, kb_dtype want)
{
    if (!t.data && kb_numel(t) > 0)
        return kb_ref_fail(r, "%s: operand %d has no data", name, k);
    if (t.dtype != want)
        return kb_ref_fail(r, "%s: operand %d has dtype %d, expected %d", name, k, (int)t.dtype, (int)want);
    return 1;
}

template <typename T> struct DtypeOf;
template <> struct DtypeOf<float> { static constexpr kb_dtype v = KB_F32; };
template <> struct DtypeOf<uint8_t> { static constexpr kb_dtype v = KB_BOOL; };

/* The whole tensor-level op: validate, broadcast, get the result, launch, fold the code. */
template <typename Op> static kb_tensor ew(kb_ref *r, kb_tensor out, const char *name, const Op &op, const kb_tensor *ins)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    constexpr int NIN = Op::N;
    const kb_dtype want[kMaxIn] = {DtypeOf<typename Op::in0_t>::v, DtypeOf<typename Op::in1_t>::v,
                                   DtypeOf<typename Op::in2_t>::v};
    for (int k = 0; k < NIN; k++)
        if (!check_operand(r, name, k, ins[k], want[k]))
            return kb_ref_none();
    int ndim = 0;
    int64_t shape[KB_MAX_DIMS];
    if (NIN == 0) {
        ndim = out.ndim;
        for (int d = 0; d < ndim; d++)
            shape[d] = out.shape[d];
    } else if (!broadcast_shape(r, name, NIN, ins, &ndim, shape)) {
        return kb_ref_none();
    }
    kb_tensor res = kb_result(r, out, DtypeOf<typename Op::out_t>::v, ndim, shape, name);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    const void *in[kMaxIn] = {NULL, NULL, NULL};
    int64_t st[kMaxIn][KB_MAX_DIMS];
    unsigned numbers = 0;
    for (int k = 0; k < NIN; k++) {
        in[k] = ins[k].data;
        aligned_strides(ins[k], ndim, shape, st[k]);
        if (ins[k].number)
            numbers |= 1u << k;
    }
    kb_ref_check(r, launch(kb_ref_ctx(r), op, res.data, NULL, ndim, shape, in, st, numbers));
    return kb_ref_ok(r) ? res : kb_ref_none();
}

template <typename Op> static kb_tensor ew1(kb_ref *r, kb_tensor out, const char *name, const Op &op, kb_tensor x)
{
    const kb_tensor ins[1] = {x};
    return ew(r, out, name, op, ins);
}

template <typename Op>
static kb_tensor ew2(kb_ref *r, kb_tensor out, const char *name, const Op &op, kb_tensor a, kb_tensor b)
{
    const kb_tensor ins[2] = {a, b};
    return ew(r, out, name, op, ins);
}

/* A float scalar as PyTorch rounds a Python number into the float op. */
static float f32(double s) { return (float)s; }

/* Copies x into res (same shape, any supported dtypes): memcpy when both are contiguous and of
 * one dtype, else the engine with a cast. */
template <typename From>
static int cast_from(kb_ctx *ctx, kb_tensor res, const void *x, int ndim, const int64_t *shape,
                     const int64_t (*st)[KB_MAX_DIMS])
{
    const void *in[1] = {x};
    switch (res.dtype) {
    case KB_F32: return launch(ctx, OpCast<From, float>(), res.data, NULL, ndim, shape, in, st);
    case KB_I64: return launch(ctx, OpCast<From, int64_t>(), res.data, NULL, ndim, shape, in, st);
    case KB_I32: return launch(ctx, OpCast<From, int32_t>(), res.data, NULL, ndim, shape, in, st);
    case KB_F64: return launch(ctx, OpCast<From, double>(), res.data, NULL, ndim, shape, in, st);
    case KB_BOOL: return launch(ctx, OpCast<From, bool>(), res.data, NULL, ndim, shape, in, st);
    default: return kb_ctx_fail(ctx, "kb_copy: unsupported result dtype %d", (int)res.dtype);
    }
}

template <typename To>
static int cast_bool_to(kb_ctx *ctx, kb_tensor res, const void *x, int ndim, const int64_t *shape,
                        const int64_t (*st)[KB_MAX_DIMS])
{
    const void *in[1] = {x};
    return launch(ctx, OpCastFromBool<To>(), res.data, NULL, ndim, shape, in, st);
}

/* Same-dtype strided copy: opaque elements of the dtype's size (PyTorch's OpaqueType). */
template <typename T> struct OpCopyBits {
    static constexpr int N = 1;
    typedef T out_t;
    typedef T in0_t;
    typedef float in1_t;
    typedef float in2_t;
    __device__ T operator()(T x) const { return x; }
};

/* integer tensor + integer scalar (add_(1) on a LongTensor: AddFunctor<int64_t>, no float opmath) */
template <typename T> struct OpAddIntS {
    static constexpr int N = 1;
    typedef T out_t;
    typedef T in0_t;
    typedef float in1_t;
    typedef float in2_t;
    T s;
    __device__ T operator()(T x) const { return x + s; }
};

static int copy_into(kb_ctx *ctx, kb_tensor res, kb_tensor x)
{
    const int ndim = res.ndim;
    int64_t st[1][KB_MAX_DIMS];
    aligned_strides(x, ndim, res.shape, st[0]);
    const int64_t n = kb_numel(res);
    if (n == 0)
        return 0;
    if (x.dtype == res.dtype) {
        if (kb_is_contiguous(x) && kb_same_shape(x, res)) {
            if (x.data != res.data)
                KB_OP_CUDA(ctx, cudaMemcpyAsync(res.data, x.data, (size_t)n * kb_dtype_size(x.dtype),
                                                cudaMemcpyDeviceToDevice, kb_ctx_stream(ctx)));
            return 0;
        }
        const void *in[1] = {x.data};
        switch (kb_dtype_size(x.dtype)) {
        case 1: return launch(ctx, OpCopyBits<uint8_t>(), res.data, NULL, ndim, res.shape, in, st);
        case 2: return launch(ctx, OpCopyBits<uint16_t>(), res.data, NULL, ndim, res.shape, in, st);
        case 4: return launch(ctx, OpCopyBits<uint32_t>(), res.data, NULL, ndim, res.shape, in, st);
        case 8: return launch(ctx, OpCopyBits<uint64_t>(), res.data, NULL, ndim, res.shape, in, st);
        default: return kb_ctx_fail(ctx, "kb_copy: dtype %d", (int)x.dtype);
        }
    }
    switch (x.dtype) {
    case KB_F32: return cast_from<float>(ctx, res, x.data, ndim, res.shape, st);
    case KB_I64: return cast_from<int64_t>(ctx, res, x.data, ndim, res.shape, st);
    case KB_I32: return cast_from<int32_t>(ctx, res, x.data, ndim, res.shape, st);
    case KB_F64: return cast_from<double>(ctx, res, x.data, ndim, res.shape, st);
    case KB_BOOL:
        switch (res.dtype) {
        case KB_F32: return cast_bool_to<float>(ctx, res, x.data, ndim, res.shape, st);
        case KB_I64: return cast_bool_to<int64_t>(ctx, res, x.data, ndim, res.shape, st);
        case KB_I32: return cast_bool_to<int32_t>(ctx, res, x.data, ndim, res.shape, st);
        case KB_F64: return cast_bool_to<double>(ctx, res, x.data, ndim, res.shape, st);
        default: break;
        }
        break;
    default: break;
    }
    return kb_ctx_fail(ctx, "kb_copy: no cast from dtype %d to %d", (int)x.dtype, (int)res.dtype);
}

static int fill_into(kb_ctx *ctx, kb_tensor res, double v)
{
    const int64_t *shape = res.shape;
    const int ndim = res.ndim;
    switch (res.dtype) {
    case KB_F32: { OpFill<float> op; op.v = (float)v; return launch(ctx, op, res.data, NULL, ndim, shape, NULL, NULL); }
    case KB_I64: { OpFill<int64_t> op; op.v = (int64_t)v; return launch(ctx, op, res.data, NULL, ndim, shape, NULL, NULL); }
    case KB_I32: { OpFill<int32_t> op; op.v = (int32_t)v; return launch(ctx, op, res.data, NULL, ndim, shape, NULL, NULL); }
    case KB_F64: { OpFill<double> op; op.v = v; return launch(ctx, op, res.data, NULL, ndim, shape, NULL, NULL); }
    case KB_BOOL: { OpFill<uint8_t> op; op.v = v != 0.0; return launch(ctx, op, res.data, NULL, ndim, shape, NULL, NULL); }
    default: return kb_ctx_fail(ctx, "kb_fill: unsupported dtype %d", (int)res.dtype);
    }
}

static kb_tensor triangle(kb_ref *r, kb_tensor out, kb_tensor x, int64_t k, bool upper, const char *name)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_operand(r, name, 0, x, KB_F32))
        return kb_ref_none();
    if (x.ndim < 2) {
        kb_ref_fail(r, "%s: expected at least 2 dimensions, got %d", name, x.ndim);
        return kb_ref_none();
    }
    if (!kb_is_contiguous(x)) {
        kb_ref_fail(r, "%s: the input must be contiguous (kb_copy it first)", name);
        return kb_ref_none();
    }
    kb_tensor res = kb_result(r, out, KB_F32, x.ndim, x.shape, name);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    const int64_t n = kb_numel(x);
    if (n == 0)
        return res;
    const int64_t rows = x.shape[x.ndim - 2], cols = x.shape[x.ndim - 1];
    const int64_t cols_padded = (cols + kTriWork - 1) / kTriWork * kTriWork;
    const int64_t n_padded = n / cols * cols_padded;
    const unsigned int grid = grid_for(n_padded / kTriWork, kTriThreads);
    kb_ctx *ctx = kb_ref_ctx(r);
    cudaStream_t stream = kb_ctx_stream(ctx);
    float *y = (float *)res.data;
    const float *xp = (const float *)x.data;
    const bool inplace = res.data == x.data;
    if (upper) {
        if (inplace)
            triu_tril_kernel<true, true><<<grid, kTriThreads, 0, stream>>>(y, xp, rows, cols, k, cols_padded, n_padded);
        else
            triu_tril_kernel<true, false><<<grid, kTriThreads, 0, stream>>>(y, xp, rows, cols, k, cols_padded, n_padded);
    } else {
        if (inplace)
            triu_tril_kernel<false, true><<<grid, kTriThreads, 0, stream>>>(y, xp, rows, cols, k, cols_padded, n_padded);
        else
            triu_tril_kernel<false, false><<<grid, kTriThreads, 0, stream>>>(y, xp, rows, cols, k, cols_padded, n_padded);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        kb_ref_check(r, kb_ctx_fail(ctx, "%s: launch failed: %s", name, cudaGetErrorString(e)));
    return kb_ref_ok(r) ? res : kb_ref_none();
}

static int sm_count(void)
{
    static int n = 0;
    if (n == 0) {
        int dev = 0, v = 0;
        if (cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && v > 0)
            n = v;
        else
            n = 132;
    }
    return n;
}

} /* namespace */

/* ---- the raw op of kb/ops.h --------------------------------------------------------------- */

extern "C" int kb_op_unary(kb_ctx *ctx, kb_unary op, const float *x, float *y, int64_t n)
{
    if (n < 0)
        return kb_ctx_fail(ctx, "kb_op_unary: negative element count %lld", (long long)n);
    if (n == 0)
        return 0;
    if (!x || !y)
        return kb_ctx_fail(ctx, "kb_op_unary: NULL tensor pointer");
    switch (op) {
    case KB_UNARY_RELU: return launch_flat(ctx, OpRelu(), y, x, n);
    case KB_UNARY_GELU: return launch_flat(ctx, OpGelu(), y, x, n);
    case KB_UNARY_GELU_TANH: return launch_flat(ctx, OpGeluTanh(), y, x, n);
    case KB_UNARY_SIGMOID: return launch_flat(ctx, OpSigmoid(), y, x, n);
    case KB_UNARY_TANH: return launch_flat(ctx, OpTanh(), y, x, n);
    }
    return kb_ctx_fail(ctx, "kb_op_unary: unknown op %d", (int)op);
}

/* ---- tensor (op) tensor ------------------------------------------------------------------- */

extern "C" kb_tensor kb_add(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b) { return ew2(r, out, "kb_add", OpAdd(), a, b); }
extern "C" kb_tensor kb_sub(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b) { return ew2(r, out, "kb_sub", OpSub(), a, b); }
extern "C" kb_tensor kb_mul(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b)
{
    if (a.dtype == KB_F32 && b.dtype == KB_BOOL)
        return ew2(r, out, "kb_mul", OpMulBool(), a, b); /* x * mask promotes to float */
    if (a.dtype == KB_BOOL && b.dtype == KB_F32)
        return ew2(r, out, "kb_mul", OpMulBool(), b, a);
    return ew2(r, out, "kb_mul", OpMul(), a, b);
}
extern "C" kb_tensor kb_div(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b) { return ew2(r, out, "kb_div", OpDiv(), a, b); }
extern "C" kb_tensor kb_pow(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b) { return ew2(r, out, "kb_pow", OpPow(), a, b); }
extern "C" kb_tensor kb_maximum(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b)
{
    return ew2(r, out, "kb_maximum", OpMaximum(), a, b);
}
extern "C" kb_tensor kb_minimum(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b)
{
    return ew2(r, out, "kb_minimum", OpMinimum(), a, b);
}
extern "C" kb_tensor kb_where(kb_ref *r, kb_tensor out, kb_tensor cond, kb_tensor a, kb_tensor b)
{
    const kb_tensor ins[3] = {cond, a, b};
    return ew(r, out, "kb_where", OpWhere(), ins);
}

/* ---- tensor (op) scalar ------------------------------------------------------------------- */

extern "C" kb_tensor kb_adds(kb_ref *r, kb_tensor out, kb_tensor a, double s)
{
    OpAddS op;
    op.s = f32(s);
    return ew1(r, out, "kb_adds", op, a);
}
extern "C" kb_tensor kb_subs(kb_ref *r, kb_tensor out, kb_tensor a, double s)
{
    OpSubS op;
    op.s = f32(s);
    return ew1(r, out, "kb_subs", op, a);
}
extern "C" kb_tensor kb_rsubs(kb_ref *r, kb_tensor out, double s, kb_tensor a)
{
    OpRsubS op;
    op.s = f32(s);
    return ew1(r, out, "kb_rsubs", op, a);
}
extern "C" kb_tensor kb_muls(kb_ref *r, kb_tensor out, kb_tensor a, double s)
{
    OpMulS op;
    op.s = f32(s);
    return ew1(r, out, "kb_muls", op, a);
}
extern "C" kb_tensor kb_divs(kb_ref *r, kb_tensor out, kb_tensor a, double s)
{
    /* div_true_kernel_cuda with a CPU-scalar divisor: a * (1 / s), the reciprocal in float */
    OpMulS op;
    op.s = 1.0f / f32(s);
    return ew1(r, out, "kb_divs", op, a);
}
extern "C" kb_tensor kb_rdivs(kb_ref *r, kb_tensor out, double s, kb_tensor a)
{
    OpRdivS op;
    op.s = f32(s);
    return ew1(r, out, "kb_rdivs", op, a);
}
extern "C" kb_tensor kb_pows(kb_ref *r, kb_tensor out, kb_tensor a, double e)
{
    if (e == 0.0) { /* Pow.cpp: out.fill_(1) */
        if (!kb_ref_ok(r) || !check_operand(r, "kb_pows", 0, a, KB_F32))
            return kb_ref_none();
        kb_tensor res = kb_result(r, out, KB_F32, a.ndim, a.shape, "kb_pows");
        return kb_fill(r, res, 1.0);
    }
    if (e == 1.0) { /* Pow.cpp: out.copy_(base) */
        if (!kb_ref_ok(r) || !check_operand(r, "kb_pows", 0, a, KB_F32))
            return kb_ref_none();
        kb_tensor res = kb_result(r, out, KB_F32, a.ndim, a.shape, "kb_pows");
        return kb_copy(r, res, a);
    }
    if (e == 0.5)
        return ew1(r, out, "kb_pows", OpSqrt(), a);
    if (e == -0.5)
        return ew1(r, out, "kb_pows", OpRsqrt(), a);
    if (e == -1.0)
        return ew1(r, out, "kb_pows", OpReciprocal(), a);
    if (e == 2.0)
        return ew1(r, out, "kb_pows", OpSquare(), a);
    if (e == 3.0)
        return ew1(r, out, "kb_pows", OpCube(), a);
    if (e == -2.0)
        return ew1(r, out, "kb_pows", OpInvSquare(), a);
    OpPowS op;
    op.e = f32(e);
    return ew1(r, out, "kb_pows", op, a);
}
extern "C" kb_tensor kb_clamp(kb_ref *r, kb_tensor out, kb_tensor a, double lo, double hi)
{
    OpClamp op;
    op.has_lo = !isnan(lo);
    op.has_hi = !isnan(hi);
    op.lo = op.has_lo ? f32(lo) : 0.0f;
    op.hi = op.has_hi ? f32(hi) : 0.0f;
    return ew1(r, out, "kb_clamp", op, a);
}
/* torch.clamp(a, min=lo) / torch.clamp_min(a, lo): clamp_min_scalar_kernel_impl (UnaryOpsKernel.cu
 * clamp kernels), isnan(v) ? v : ::max(v, lo); clamp_max the same with ::min. */
extern "C" kb_tensor kb_clamp_min(kb_ref *r, kb_tensor out, kb_tensor a, double lo)
{
    OpClamp op;
    op.has_lo = 1;
    op.has_hi = 0;
    op.lo = f32(lo);
    op.hi = 0.0f;
    return ew1(r, out, "kb_clamp_min", op, a);
}
extern "C" kb_tensor kb_clamp_max(kb_ref *r, kb_tensor out, kb_tensor a, double hi)
{
    OpClamp op;
    op.has_lo = 0;
    op.has_hi = 1;
    op.lo = 0.0f;
    op.hi = f32(hi);
    return ew1(r, out, "kb_clamp_max", op, a);
}
extern "C" kb_tensor kb_eqs(kb_ref *r, kb_tensor out, kb_tensor a, double s)
{
    /* at::eq(Tensor, Scalar): the scalar is a CPU wrapped number, rounded to float once (an
     * infinite s stays infinite) */
    OpEqS op;
    op.s = f32(s);
    return ew1(r, out, "kb_eqs", op, a);
}
extern "C" kb_tensor kb_masked_fill(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor mask, double value)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_operand(r, "kb_masked_fill", 0, x, KB_F32) || !check_operand(r, "kb_masked_fill", 1, mask, KB_BOOL))
        return kb_ref_none();
    /* masked_fill_'s expand_inplace: the mask broadcasts to x's shape, never the other way */
    int ndim = 0;
    int64_t shape[KB_MAX_DIMS];
    const kb_tensor both[2] = {x, mask};
    if (!broadcast_shape(r, "kb_masked_fill", 2, both, &ndim, shape))
        return kb_ref_none();
    int same = ndim == x.ndim;
    for (int d = 0; same && d < ndim; d++)
        same = shape[d] == x.shape[d];
    if (!same) {
        kb_ref_fail(r, "kb_masked_fill: the mask does not broadcast to x's shape");
        return kb_ref_none();
    }
    /* x.masked_fill_(mask, v) writes x; x.masked_fill(mask, v) is result = x.clone() then
     * result.masked_fill_(mask, v): two launches, as eager */
    kb_tensor res = x;
    if (!(out.data && out.data == x.data)) {
        res = kb_copy(r, out, x);
        if (!kb_ref_ok(r))
            return kb_ref_none();
    }
    OpMaskedFill op;
    op.v = f32(value);
    return ew2(r, res, "kb_masked_fill", op, res, mask);
}
extern "C" kb_tensor kb_gts(kb_ref *r, kb_tensor out, kb_tensor a, double s)
{
    OpGtS op;
    op.s = f32(s);
    return ew1(r, out, "kb_gts", op, a);
}

/* ---- unary -------------------------------------------------------------------------------- */

extern "C" kb_tensor kb_relu(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_relu", OpRelu(), x); }
extern "C" kb_tensor kb_leaky_relu(kb_ref *r, kb_tensor out, kb_tensor x, double negative_slope)
{
    OpLeakyRelu op;
    op.slope = f32(negative_slope);
    return ew1(r, out, "kb_leaky_relu", op, x);
}
extern "C" kb_tensor kb_sigmoid(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_sigmoid", OpSigmoid(), x); }
extern "C" kb_tensor kb_tanh(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_tanh", OpTanh(), x); }
extern "C" kb_tensor kb_gelu(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_gelu", OpGelu(), x); }
extern "C" kb_tensor kb_gelu_tanh(kb_ref *r, kb_tensor out, kb_tensor x)
{
    return ew1(r, out, "kb_gelu_tanh", OpGeluTanh(), x);
}
extern "C" kb_tensor kb_selu(kb_ref *r, kb_tensor out, kb_tensor x)
{
    /* at::selu = at::elu(x, SELU_ALPHA, SELU_SCALE): coefficients as Scalar.to<float>(), then
     * alpha * scale multiplied in float */
    const double kAlpha = 1.6732632423543772848170429916717;
    const double kScale = 1.0507009873554804934193349852946;
    OpElu op;
    op.negcoef = f32(kAlpha) * f32(kScale);
    op.poscoef = f32(kScale);
    op.negiptcoef = 1.0f;
    return ew1(r, out, "kb_selu", op, x);
}
extern "C" kb_tensor kb_elu(kb_ref *r, kb_tensor out, kb_tensor x, double alpha)
{
    OpElu op; /* scale = input_scale = 1 */
    op.negcoef = f32(alpha) * 1.0f;
    op.poscoef = 1.0f;
    op.negiptcoef = 1.0f;
    return ew1(r, out, "kb_elu", op, x);
}
extern "C" kb_tensor kb_hardsigmoid(kb_ref *r, kb_tensor out, kb_tensor x)
{
    return ew1(r, out, "kb_hardsigmoid", OpHardsigmoid(), x);
}
extern "C" kb_tensor kb_hardswish(kb_ref *r, kb_tensor out, kb_tensor x)
{
    return ew1(r, out, "kb_hardswish", OpHardswish(), x);
}
extern "C" kb_tensor kb_mish(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_mish", OpMish(), x); }
extern "C" kb_tensor kb_hardtanh(kb_ref *r, kb_tensor out, kb_tensor x, double min_val, double max_val)
{
    OpClamp op; /* at::hardtanh_out is clamp_out(x, min, max) */
    op.has_lo = 1;
    op.has_hi = 1;
    op.lo = f32(min_val);
    op.hi = f32(max_val);
    return ew1(r, out, "kb_hardtanh", op, x);
}
extern "C" kb_tensor kb_softplus(kb_ref *r, kb_tensor out, kb_tensor x, double beta, double threshold)
{
    OpSoftplus op;
    op.beta = f32(beta);
    op.threshold = f32(threshold);
    return ew1(r, out, "kb_softplus", op, x);
}
extern "C" kb_tensor kb_abs(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_abs", OpAbs(), x); }
extern "C" kb_tensor kb_neg(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_neg", OpNeg(), x); }
extern "C" kb_tensor kb_exp(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_exp", OpExp(), x); }
extern "C" kb_tensor kb_log(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_log", OpLog(), x); }
extern "C" kb_tensor kb_sqrt(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_sqrt", OpSqrt(), x); }
extern "C" kb_tensor kb_rsqrt(kb_ref *r, kb_tensor out, kb_tensor x) { return ew1(r, out, "kb_rsqrt", OpRsqrt(), x); }

/* ---- copies and fills --------------------------------------------------------------------- */

extern "C" kb_tensor kb_copy(kb_ref *r, kb_tensor out, kb_tensor x)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!x.data && kb_numel(x) > 0) {
        kb_ref_fail(r, "kb_copy: the source has no data");
        return kb_ref_none();
    }
    kb_tensor res;
    if (out.data) { /* out.copy_(x): x broadcasts to out's shape, cast to out's dtype */
        int ndim;
        int64_t shape[KB_MAX_DIMS];
        const kb_tensor both[2] = {out, x};
        if (!broadcast_shape(r, "kb_copy", 2, both, &ndim, shape))
            return kb_ref_none();
        int same = ndim == out.ndim;
        for (int d = 0; same && d < ndim; d++)
            same = shape[d] == out.shape[d];
        if (!same) {
            kb_ref_fail(r, "kb_copy: the source does not broadcast to the result's shape");
            return kb_ref_none();
        }
        res = kb_result(r, out, out.dtype, out.ndim, out.shape, "kb_copy");
    } else {
        res = kb_result(r, out, x.dtype, x.ndim, x.shape, "kb_copy");
    }
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ref_check(r, copy_into(kb_ref_ctx(r), res, x));
    return kb_ref_ok(r) ? res : kb_ref_none();
}

extern "C" kb_tensor kb_fill(kb_ref *r, kb_tensor out, double v)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!out.data && kb_numel(out) > 0) {
        kb_ref_fail(r, "kb_fill: the result must exist (pass a tensor, not KB_NEW)");
        return kb_ref_none();
    }
    kb_tensor res = kb_result(r, out, out.dtype, out.ndim, out.shape, "kb_fill");
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ref_check(r, fill_into(kb_ref_ctx(r), res, v));
    return kb_ref_ok(r) ? res : kb_ref_none();
}

extern "C" kb_tensor kb_add_int(kb_ref *r, kb_tensor out, kb_tensor a, int64_t s)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (a.dtype != KB_I64 && a.dtype != KB_I32) {
        kb_ref_fail(r, "kb_add_int: an int64 or int32 tensor (got dtype %d)", (int)a.dtype);
        return kb_ref_none();
    }
    if (!kb_is_contiguous(a)) {
        kb_ref_fail(r, "kb_add_int: the operand must be contiguous");
        return kb_ref_none();
    }
    kb_tensor res = kb_result(r, out, a.dtype, a.ndim, a.shape, "kb_add_int");
    if (!kb_ref_ok(r) || kb_numel(a) == 0)
        return kb_ref_ok(r) ? res : kb_ref_none();
    int64_t st[1][KB_MAX_DIMS];
    for (int d = 0; d < a.ndim; d++)
        st[0][d] = a.stride[d];
    const void *in[1] = {a.data};
    kb_ctx *ctx = kb_ref_ctx(r);
    if (a.dtype == KB_I64) {
        OpAddIntS<int64_t> op;
        op.s = s;
        kb_ref_check(r, launch(ctx, op, res.data, NULL, res.ndim, res.shape, in, st));
    } else {
        OpAddIntS<int32_t> op;
        op.s = (int32_t)s;
        kb_ref_check(r, launch(ctx, op, res.data, NULL, res.ndim, res.shape, in, st));
    }
    return kb_ref_ok(r) ? res : kb_ref_none();
}

extern "C" kb_tensor kb_zeros_like(kb_ref *r, kb_tensor x)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_tensor res = kb_empty(r, x.dtype, x.ndim, x.shape); /* empty_like, then zero_() = fill_(0) */
    if (!kb_ref_ok(r))
        return kb_ref_none();
    return kb_fill(r, res, 0.0);
}

extern "C" kb_tensor kb_triu(kb_ref *r, kb_tensor out, kb_tensor x, int64_t diagonal)
{
    return triangle(r, out, x, diagonal, true, "kb_triu");
}

extern "C" kb_tensor kb_tril(kb_ref *r, kb_tensor out, kb_tensor x, int64_t diagonal)
{
    return triangle(r, out, x, diagonal, false, "kb_tril");
}

extern "C" kb_tensor kb_flip(kb_ref *r, kb_tensor out, kb_tensor x, int dim)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!x.data && kb_numel(x) > 0) {
        kb_ref_fail(r, "kb_flip: the source has no data");
        return kb_ref_none();
    }
    const int d = kb_norm_dim(r, x, dim);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (out.data && out.data == x.data) {
        kb_ref_fail(r, "kb_flip: the result may not alias the input");
        return kb_ref_none();
    }
    kb_tensor res = kb_result(r, out, x.dtype, x.ndim, x.shape, "kb_flip");
    if (!kb_ref_ok(r) || kb_numel(x) == 0)
        return kb_ref_ok(r) ? res : kb_ref_none();
    /* at::flip: the input read forward, the result written from its last element along dim with
     * that dim's stride negated (index_offset_kernel) */
    int64_t st[1][KB_MAX_DIMS], ost[KB_MAX_DIMS];
    for (int i = 0; i < x.ndim; i++)
        st[0][i] = x.shape[i] == 1 ? 0 : x.stride[i];
    {
        int64_t s = 1;
        for (int i = x.ndim - 1; i >= 0; i--) {
            ost[i] = s;
            s *= res.shape[i];
        }
    }
    void *res_at = res.data;
    if (x.ndim > 0 && x.shape[d] > 1) {
        res_at = (char *)res.data + (x.shape[d] - 1) * ost[d] * kb_dtype_size(x.dtype);
        ost[d] = -ost[d];
    }
    const void *in[1] = {x.data};
    kb_ctx *ctx = kb_ref_ctx(r);
    int rc;
    switch (kb_dtype_size(x.dtype)) {
    case 1: rc = launch(ctx, OpCopyBits<uint8_t>(), res_at, ost, res.ndim, res.shape, in, st); break;
    case 2: rc = launch(ctx, OpCopyBits<uint16_t>(), res_at, ost, res.ndim, res.shape, in, st); break;
    case 4: rc = launch(ctx, OpCopyBits<uint32_t>(), res_at, ost, res.ndim, res.shape, in, st); break;
    default: rc = launch(ctx, OpCopyBits<uint64_t>(), res_at, ost, res.ndim, res.shape, in, st); break;
    }
    kb_ref_check(r, rc);
    return kb_ref_ok(r) ? res : kb_ref_none();
}

/* ---- torch.cat (cat_out_cuda) ------------------------------------------------------------- */

/* canUse32BitIndexMath: fewer than INT32_MAX elements and the last one's offset below it. */
static bool cat_fits32(kb_tensor t)
{
    const int64_t n = kb_numel(t);
    if (n >= INT32_MAX)
        return false;
    if (n == 0)
        return true;
    int64_t lin = n - 1, off = 0;
    for (int d = t.ndim - 1; d >= 0; d--) {
        off += (lin % t.shape[d]) * t.stride[d];
        lin /= t.shape[d];
    }
    return off < INT32_MAX;
}

/* cat_should_skip_tensor: the legacy 1-D empty operand, left out of the shape checks */
static bool cat_skip(kb_tensor t) { return t.ndim == 1 && t.shape[0] == 0; }

/* is_contiguous(): strides of the size-1 dimensions do not matter, an empty tensor is contiguous */
static bool cat_contiguous(kb_tensor t) { return kb_numel(t) == 0 || kb_is_contiguous(t); }

/* is_channels_last_strides_2d_s4 / _3d_s5: what suggest_memory_format() reads */
static bool cat_channels_last_like(kb_tensor t)
{
    static const int order4[4] = {1, 3, 2, 0}, order5[5] = {1, 4, 3, 2, 0};
    if ((t.ndim != 4 && t.ndim != 5) || t.stride[1] == 0)
        return false;
    const int *order = t.ndim == 4 ? order4 : order5;
    int64_t min = 0;
    for (int k = 0; k < t.ndim; k++) {
        const int d = order[k];
        if (t.shape[d] == 0 || t.stride[d] < min || (d == 0 && min == t.stride[1]))
            return false;
        min = t.stride[d] * (t.shape[d] > 1 ? t.shape[d] : 1);
    }
    return true;
}

/* getCatGridContig: 128 threads, per_thread elements each over the batch's largest input, at most
 * 32 blocks per SM; blockIdx.y the input */
static dim3 cat_grid_contig(unsigned max_elems, unsigned per_thread, int inputs)
{
    const unsigned threads = (max_elems + per_thread - 1) / per_thread;
    unsigned blocks = (threads + kCatThreads - 1) / kCatThreads;
    const unsigned cap = (unsigned)sm_count() * kCatTbPerSm;
    if (blocks > cap)
        blocks = cap;
    return dim3(blocks, (unsigned)inputs);
}

enum { CAT_VEC, CAT_ALIGNED, CAT_CONTIG };

/* contiguous inputs: the vectorized, alignedK or plain kernel */
template <typename T, int Dims>
static void cat_launch_dims(int kind, dim3 grid, dim3 block, cudaStream_t s, char *out, const CatMetaContig &m,
                            const CatSizeStride &os, int cat_dim, unsigned arg)
{
    constexpr int ES = (int)sizeof(T);
    /* kILP: 16-byte vectors, 8-byte ones for 2-byte types (register pressure, as eager) */
    constexpr int ILP = ES == 2 ? 4 : ES > 2 ? kCatVecBytes / ES : 1;
    switch (kind) {
    case CAT_VEC: cat_vec_kernel<ES, Dims><<<grid, block, 0, s>>>(out, m, os, cat_dim, arg); break;
    case CAT_ALIGNED:
        if constexpr (ES >= 2)
            cat_aligned_kernel<T, ILP, Dims><<<grid, block, 0, s>>>((T *)out, m, os, cat_dim, arg);
        break;
    default: cat_contig_kernel<T, Dims><<<grid, block, 0, s>>>((T *)out, m, os, cat_dim, arg); break;
    }
}

/* strided inputs */
template <typename T, int Dims>
static void cat_launch_dims(int, dim3 grid, dim3 block, cudaStream_t s, char *out, const CatMetaStrided &m,
                            const CatSizeStride &os, int cat_dim, unsigned arg)
{
    cat_strided_kernel<T, Dims><<<grid, block, 0, s>>>((T *)out, m, os, cat_dim, arg);
}

template <typename T, typename Meta>
static void cat_launch(int kind, int dims, dim3 grid, dim3 block, cudaStream_t s, char *out, const Meta &m,
                       const CatSizeStride &os, int cat_dim, unsigned arg)
{
    switch (dims) {
    case 1: cat_launch_dims<T, 1>(kind, grid, block, s, out, m, os, cat_dim, arg); break;
    case 2: cat_launch_dims<T, 2>(kind, grid, block, s, out, m, os, cat_dim, arg); break;
    case 3: cat_launch_dims<T, 3>(kind, grid, block, s, out, m, os, cat_dim, arg); break;
    default: cat_launch_dims<T, 4>(kind, grid, block, s, out, m, os, cat_dim, arg); break;
    }
}

/* parallel_cat<T, B, S>: the inputs in batches of B, one launch per batch. S == 1: every input
 * contiguous (B = 128); S == B = 64: strided inputs. The kernel of a batch follows eager's
 * tests, whose flags accumulate over the batches so far: the vectorized kernel when the result and
 * every input slice along the cat dimension are whole 16-byte vectors (isInOutAligned), else the
 * alignedK one when every input is 16-byte aligned (elements of 2 to 8 bytes), else the plain
 * contiguous one, else the strided one. */
template <int B, int S> static int cat_parallel(kb_ctx *ctx, kb_tensor res, const kb_tensor *xs, int n, int d)
{
    typedef CatMeta<B, S> Meta;
    const int es = kb_dtype_size(res.dtype);
    const bool contig = S == 1;
    const int nd = res.ndim;
    CatSizeStride os;
    memset(&os, 0, sizeof os);
    for (int64_t i = nd - 1, s = 1; i >= 0; i--) { /* contiguous inputs: canonical strides */
        os.size[i] = (unsigned)res.shape[i];
        os.stride[i] = (unsigned)(contig ? s : res.stride[i]);
        s *= res.shape[i];
    }
    bool in_out_aligned = contig && (uintptr_t)res.data % kCatVecBytes == 0 &&
                          (d == 0 || (uint64_t)os.stride[d - 1] * es % kCatVecBytes == 0);
    bool aligned = true;
    unsigned max_elems = 0;
    int64_t offset = 0;
    cudaStream_t stream = kb_ctx_stream(ctx);
    Meta m; /* 2.7 or 3.4 KB, the kernels' argument block */
    for (int i = 0; i < n; i += B) {
        int cnt = 0;
        memset(&m, 0, sizeof m);
        for (; cnt < B && i + cnt < n; cnt++) {
            const kb_tensor t = xs[i + cnt];
            const int64_t numel = kb_numel(t);
            int64_t dim_size = 0;
            if (numel > 0) {
                dim_size = t.shape[d];
                if (in_out_aligned) {
                    int64_t slice = numel;
                    if (d > 0 && t.shape[d - 1] != 1)
                        slice = t.stride[d - 1];
                    else if (d > 0)
                        slice = kb_shape_numel(t.ndim - d, t.shape + d);
                    in_out_aligned = slice * es % kCatVecBytes == 0;
                }
            }
            m.src[cnt] = (const char *)t.data;
            m.offset[cnt] = (unsigned)offset;
            m.dim_size[cnt] = (unsigned)dim_size;
            m.nelem[cnt] = (unsigned)numel;
            aligned = aligned && (uintptr_t)t.data % kCatVecBytes == 0;
            in_out_aligned = in_out_aligned && (uintptr_t)t.data % kCatVecBytes == 0;
            if (S > 1) {
                for (int j = 0; j < nd && j < t.ndim; j++) {
                    m.in[cnt % S].size[j] = (unsigned)t.shape[j];
                    m.in[cnt % S].stride[j] = (unsigned)t.stride[j];
                }
                m.contig[cnt] = false;
            } else {
                m.contig[cnt] = true;
            }
            offset += dim_size;
            if (m.nelem[cnt] > max_elems)
                max_elems = m.nelem[cnt];
        }
        if (max_elems == 0)
            continue;
        dim3 grid, block(kCatThreads);
        if (in_out_aligned || (contig && aligned && es > 2))
            grid = cat_grid_contig(max_elems, kCatVecBytes / es, cnt);
        else if (contig && aligned && es == 2)
            grid = cat_grid_contig(max_elems, 4, cnt); /* ALIGNED_VEC_LOAD_BYTES_8 / 2 */
        else {
            block = dim3(kCatWideThreads);
            grid = dim3(2u * (unsigned)sm_count(), (unsigned)cnt); /* getCatGrid */
        }
        int kind = CAT_CONTIG, dims = nd;
        CatSizeStride kos = os;
        unsigned arg = os.stride[d]; /* dimStride: the result's stride along the cat dimension */
        if (in_out_aligned) {
            /* the dimensions from d on as one of 16-byte vectors: sizes and strides in vectors */
            const unsigned per = (unsigned)(kCatVecBytes / es);
            kind = CAT_VEC;
            dims = d + 1;
            kos.size[d] = (d == 0 ? (unsigned)kb_numel(res) : os.stride[d - 1]) / per;
            kos.stride[d] = 1;
            for (int k = 0; k < d; k++)
                kos.stride[k] /= per;
            arg = os.stride[d]; /* trailingSize */
        } else if (contig && aligned && es >= 2 && es <= 8) {
            kind = CAT_ALIGNED;
        } /* else CatArrayBatchedCopy_contig, or (S > 1) the strided CatArrayBatchedCopy */
        char *o = (char *)res.data;
        switch (es) {
        case 1: cat_launch<uint8_t>(kind, dims, grid, block, stream, o, m, kos, d, arg); break;
        case 2: cat_launch<uint16_t>(kind, dims, grid, block, stream, o, m, kos, d, arg); break;
        case 4: cat_launch<uint32_t>(kind, dims, grid, block, stream, o, m, kos, d, arg); break;
        case 8: cat_launch<uint64_t>(kind, dims, grid, block, stream, o, m, kos, d, arg); break;
        default: return kb_ctx_fail(ctx, "kb_cat: no kernel for %d-byte elements", es);
        }
        KB_OP_LAUNCHED(ctx);
    }
    return 0;
}

/* The general case (more than 4 dimensions, more than 2^31 elements, a single input): each
 * input copied into its narrowed slice of the result, `copy_` (a memcpy where both are
 * contiguous, else the strided copy kernel). */
static int cat_copies(kb_ctx *ctx, kb_tensor res, const kb_tensor *xs, int n, int d)
{
    const int es = kb_dtype_size(res.dtype);
    int64_t offset = 0;
    for (int k = 0; k < n; k++) {
        const kb_tensor t = xs[k];
        if (cat_skip(t))
            continue;
        kb_tensor v = res; /* at::narrow(result, dim, offset, size) */
        v.data = (char *)res.data + offset * res.stride[d] * es;
        v.shape[d] = t.shape[d];
        offset += t.shape[d];
        const int64_t numel = kb_numel(t);
        if (numel == 0)
            continue;
        if (cat_contiguous(v) && cat_contiguous(t)) {
            KB_OP_CUDA(ctx, cudaMemcpyAsync(v.data, t.data, (size_t)numel * es, cudaMemcpyDeviceToDevice,
                                            kb_ctx_stream(ctx)));
            continue;
        }
        int64_t st[1][KB_MAX_DIMS];
        for (int i = 0; i < t.ndim; i++)
            st[0][i] = t.shape[i] == 1 ? 0 : t.stride[i];
        const void *in[1] = {t.data};
        int rc;
        switch (es) {
        case 1: rc = launch(ctx, OpCopyBits<uint8_t>(), v.data, v.stride, v.ndim, v.shape, in, st); break;
        case 2: rc = launch(ctx, OpCopyBits<uint16_t>(), v.data, v.stride, v.ndim, v.shape, in, st); break;
        case 4: rc = launch(ctx, OpCopyBits<uint32_t>(), v.data, v.stride, v.ndim, v.shape, in, st); break;
        case 8: rc = launch(ctx, OpCopyBits<uint64_t>(), v.data, v.stride, v.ndim, v.shape, in, st); break;
        default: rc = kb_ctx_fail(ctx, "kb_cat: no copy for %d-byte elements", es); break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

extern "C" kb_tensor kb_cat(kb_ref *r, kb_tensor out, const kb_tensor *xs, int n, int dim)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (n < 1 || !xs) {
        kb_ref_fail(r, "kb_cat: expected a non-empty list of tensors");
        return kb_ref_none();
    }
    int valid = n; /* the first operand that is not a legacy 1-D empty one */
    for (int k = 0; k < n && valid == n; k++)
        if (!cat_skip(xs[k]))
            valid = k;
    if (valid == n) {
        kb_ref_fail(r, "kb_cat: every operand is a 1-D empty tensor");
        return kb_ref_none();
    }
    const kb_tensor v0 = xs[valid];
    if (v0.ndim < 1) {
        kb_ref_fail(r, "kb_cat: a zero-dimensional tensor cannot be concatenated");
        return kb_ref_none();
    }
    const int d = kb_norm_dim(r, v0, dim);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    int64_t shape[KB_MAX_DIMS];
    for (int i = 0; i < v0.ndim; i++)
        shape[i] = v0.shape[i];
    shape[d] = 0;
    bool all_contig = true, fits = true, channels_last = true;
    for (int k = 0; k < n; k++) {
        const kb_tensor t = xs[k];
        if (t.dtype != v0.dtype) { /* eager would promote and copy_ each input: not mirrored */
            kb_ref_fail(r, "kb_cat: operand %d has dtype %d, operand %d has %d", k, (int)t.dtype, valid, (int)v0.dtype);
            return kb_ref_none();
        }
        if (!t.data && kb_numel(t) > 0) {
            kb_ref_fail(r, "kb_cat: operand %d has no data", k);
            return kb_ref_none();
        }
        channels_last = channels_last && cat_channels_last_like(t);
        fits = fits && cat_fits32(t);
        if (cat_skip(t)) {
            all_contig = false;
            continue;
        }
        if (t.ndim != v0.ndim) {
            kb_ref_fail(r, "kb_cat: operand %d has %d dimensions, operand %d has %d", k, t.ndim, valid, v0.ndim);
            return kb_ref_none();
        }
        for (int i = 0; i < t.ndim; i++)
            if (i != d && t.shape[i] != v0.shape[i]) {
                kb_ref_fail(r, "kb_cat: sizes differ at dimension %d (operand %d: %lld, operand %d: %lld)", i, k,
                            (long long)t.shape[i], valid, (long long)v0.shape[i]);
                return kb_ref_none();
            }
        shape[d] += t.shape[d];
        all_contig = all_contig && cat_contiguous(t);
    }
    if (channels_last) { /* cat_compute_output_memory_format would give a channels-last result */
        kb_ref_fail(r, "kb_cat: every operand has channels-last strides (a channels-last result is not mirrored)");
        return kb_ref_none();
    }
    kb_tensor res = kb_result(r, out, v0.dtype, v0.ndim, shape, "kb_cat");
    if (!kb_ref_ok(r) || kb_numel(res) == 0)
        return kb_ref_ok(r) ? res : kb_ref_none();
    fits = fits && cat_fits32(res);
    kb_ctx *ctx = kb_ref_ctx(r);
    int rc;
    if (n > 1 && res.ndim <= kCatMaxDims && fits && all_contig)
        rc = cat_parallel<kCatBatch, 1>(ctx, res, xs, n, d);
    else if (n > 1 && res.ndim <= kCatMaxDims && fits)
        rc = cat_parallel<kCatBatch / 2, kCatBatch / 2>(ctx, res, xs, n, d);
    else
        rc = cat_copies(ctx, res, xs, n, d);
    kb_ref_check(r, rc);
    return kb_ref_ok(r) ? res : kb_ref_none();
}

extern "C" kb_tensor kb_cat2(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b, int dim)
{
    const kb_tensor xs[2] = {a, b};
    return kb_cat(r, out, xs, 2, dim);
}

/* torch.diag(v) of a 1-D v: at::diag_embed = zeros(n, n) (fill_ kernel) then
 * result.diagonal().copy_(v) (a strided copy kernel): two launches, as eager. */
extern "C" kb_tensor kb_diag(kb_ref *r, kb_tensor out, kb_tensor v)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_operand(r, "kb_diag", 0, v, KB_F32))
        return kb_ref_none();
    if (v.ndim != 1) {
        kb_ref_fail(r, "kb_diag: expected a 1-d tensor, got %d dimensions", v.ndim);
        return kb_ref_none();
    }
    const int64_t n = v.shape[0];
    const int64_t shape[2] = {n, n};
    kb_tensor res = kb_result(r, out, KB_F32, 2, shape, "kb_diag");
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_fill(r, res, 0.0);
    if (!kb_ref_ok(r) || n == 0)
        return kb_ref_ok(r) ? res : kb_ref_none();
    const int64_t dshape[1] = {n};
    const int64_t dstride[1] = {n + 1};
    const int64_t st[1][KB_MAX_DIMS] = {{v.stride[0]}};
    const void *in[1] = {v.data};
    kb_ref_check(r, launch(kb_ref_ctx(r), OpCopyBits<uint32_t>(), res.data, dstride, 1, dshape, in, st));
    return kb_ref_ok(r) ? res : kb_ref_none();
}

/* ---- dropout (Dropout.cu: native_dropout_cuda -> dropout_cuda<bool> -> fused_dropout_kernel*) --
 *
 * F.dropout(x, p, training=True) on a CUDA tensor with 0 < p < 1 is at::native_dropout (Dropout.cpp
 * is_fused_kernel_acceptable), whose CUDA kernel allocates the bool mask (empty_like, first) and
 * the result (empty_like), then launches 256-thread blocks, grid = min(ceil(n / 256), SMs *
 * maxThreadsPerSM / 256), each thread seeding a Philox4_32_10 state with (seed, subsequence =
 * its global index, offset) and drawing one curand_uniform4 per 4 elements: keep = u < 1 - p,
 * y = x * keep * scale with scale = (float)(1.0 / (float)(1 - p)), mask = keep. The result is
 * returned and the mask dropped (std::get<0> of the tuple). Contiguous, 16-byte aligned and
 * n % 4 == 0 (get_vector_size: 16 / sizeof(float) = 4, halved until it divides n):
 * fused_dropout_kernel_vec<VEC = 4> (one float4 load, one float4 store, one 4-byte mask store per
 * 4 elements, grid-stride); VEC = 2 when x is only 8-byte aligned or n % 4 == 2 (a fresh draw
 * every iteration, its first two uniforms used: PyTorch's gridxvec_loop_state never leaves 0, so
 * its reuse branch is dead code, kept here as written); otherwise fused_dropout_kernel (4
 * elements at stride grid * 256, the loop run to the rounded size so every thread draws the same
 * number of times). Launch
 * bounds (256, 4); unsigned 32-bit indices when n < INT32_MAX (canUse32BitIndexMath), else
 * 64-bit. Where it differs: PyTorch takes seed and offset from the default CUDA generator and
 * advances its offset per call; here they are fixed (kDropoutSeed, offset 0), so the reference is
 * reproducible run to run; the mask cannot be PyTorch's anyway. */

namespace {

constexpr int kDropThreads = 256;
constexpr int kDropUnroll = 4;
constexpr unsigned long long kDropoutSeed = 0x6b62646f70ull; /* fixed: "kbdop" */

template <typename IndexType, int VEC>
__global__ void __launch_bounds__(kDropThreads, 4)
fused_dropout_kernel_vec(const float *a, float *b, uint8_t *c, IndexType totalElements, float p,
                         unsigned long long seed, unsigned long long offset)
{
    IndexType idx = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, idx, offset, &state);
    bool gridxvec_loop_state = false;
    const float scale = 1.0 / p; /* accscalar_t scale = 1.0 / p: a double quotient, stored as float */
    float4 rand;
    for (IndexType linearIndex = idx * VEC; linearIndex < totalElements;
         linearIndex += gridDim.x * blockDim.x * VEC) {
        if ((VEC >= 4) || (gridxvec_loop_state == 0)) {
            rand = curand_uniform4(&state);
        } else {
            /* the last two uniforms of the previous draw */
            rand.x = rand.z;
            rand.y = rand.w;
            gridxvec_loop_state ^= 1;
        }
        rand.x = rand.x < p;
        rand.y = rand.y < p;
        if constexpr (VEC >= 4) {
            rand.z = rand.z < p;
            rand.w = rand.w < p;
        }
        const Vec<float, VEC> src = *reinterpret_cast<const Vec<float, VEC> *>(&a[linearIndex]);
        Vec<float, VEC> r;
        Vec<uint8_t, VEC> mask;
#pragma unroll
        for (int ii = 0; ii < VEC; ii++) {
            r.v[ii] = src.v[ii] * (&rand.x)[ii] * scale;
            mask.v[ii] = (uint8_t)(bool)(&rand.x)[ii];
        }
        *reinterpret_cast<Vec<float, VEC> *>(&b[linearIndex]) = r;
        *reinterpret_cast<Vec<uint8_t, VEC> *>(&c[linearIndex]) = mask;
        __syncthreads();
    }
}

/* fused_dropout_kernel<float, float, IndexType, ADims = 1>: the collapsed 1-d contiguous case,
 * IndexToOffset<.., 1> = linear index * stride[0] (1) */
template <typename IndexType>
__global__ void __launch_bounds__(kDropThreads, 4)
fused_dropout_kernel(const float *a, IndexType a_stride, float *b, IndexType b_stride, uint8_t *c,
                     IndexType totalElements, float p, unsigned long long seed, unsigned long long offset)
{
    IndexType idx = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, idx, offset, &state);
    const float scale = 1.0 / p;
    const IndexType rounded_size =
        ((totalElements - 1) / (blockDim.x * gridDim.x * kDropUnroll) + 1) * blockDim.x * gridDim.x * kDropUnroll;
    for (IndexType linearIndex = idx; linearIndex < rounded_size;
         linearIndex += gridDim.x * blockDim.x * kDropUnroll) {
        float4 rand = curand_uniform4(&state);
        float src[kDropUnroll];
        rand.x = rand.x < p;
        rand.y = rand.y < p;
        rand.z = rand.z < p;
        rand.w = rand.w < p;
        for (int ii = 0; ii < kDropUnroll; ii++) {
            const IndexType li = linearIndex + blockDim.x * gridDim.x * ii;
            if (li < totalElements)
                src[ii] = a[li * a_stride];
        }
        for (int ii = 0; ii < kDropUnroll; ii++) {
            const IndexType li = linearIndex + blockDim.x * gridDim.x * ii;
            if (li < totalElements) {
                const IndexType bOffset = li * b_stride;
                b[bOffset] = src[ii] * (&rand.x)[ii] * scale;
                c[bOffset] = (uint8_t)(bool)(&rand.x)[ii];
            }
        }
        __syncthreads();
    }
}

/* get_vector_size<float>: 4 when x is 16-byte aligned (can_vectorize_up_to, capped at 16 /
 * sizeof(float)), 2 when 8-byte aligned, halved until it divides n; 1 otherwise. x, y and the
 * mask are contiguous here (dense). */
static int dropout_vec_size(const void *x, int64_t n)
{
    const uintptr_t a = (uintptr_t)x;
    int vec = a % 16 == 0 ? 4 : a % 8 == 0 ? 2 : 1;
    while (vec > 1 && n % vec != 0)
        vec /= 2;
    return vec;
}

template <typename IndexType>
static void dropout_launch(cudaStream_t s, int vec, unsigned grid, const float *x, float *y, uint8_t *mask, int64_t n,
                           float p1m)
{
    const IndexType total = (IndexType)n;
    switch (vec) {
    case 4:
        fused_dropout_kernel_vec<IndexType, 4><<<grid, kDropThreads, 0, s>>>(x, y, mask, total, p1m, kDropoutSeed, 0);
        break;
    case 2:
        fused_dropout_kernel_vec<IndexType, 2><<<grid, kDropThreads, 0, s>>>(x, y, mask, total, p1m, kDropoutSeed, 0);
        break;
    default:
        fused_dropout_kernel<IndexType><<<grid, kDropThreads, 0, s>>>(x, (IndexType)1, y, (IndexType)1, mask, total,
                                                                      p1m, kDropoutSeed, 0);
        break;
    }
}

/* The replay of a given mask (docs/protocols.md, "Live dropout"): the vector kernel's arithmetic,
 * src * keep * scale with keep 1.0f or 0.0f, with the keep bits read instead of drawn. */
__global__ void replay_dropout_kernel(const float *a, float *b, uint8_t *c, const uint8_t *keep, int64_t n, float p)
{
    const float scale = 1.0 / p;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        if (keep[i] & KB_MASK_OWN) /* a row whose mask cannot be read: the reference's own draw stays */
            continue;
        const float k = (keep[i] & 1) ? 1.0f : 0.0f;
        b[i] = a[i] * k * scale;
        c[i] = keep[i] & 1;
    }
}

/* kb_row_mode_mask: one block per row; the row's bit patterns sorted in shared memory (bitonic,
 * padded with 0xffffffff up to a power of two), the longest run of equal patterns found by one
 * thread (the first of equally long runs), then mask = pattern != that run's, with KB_MASK_UNREAD
 * in a row whose most frequent value is a zero or not finite, and KB_MASK_UNREAD | KB_MASK_OWN
 * in one where that value fills more than half of the row. */
constexpr int kModeThreads = 1024;
constexpr int64_t kModeMaxRow = 32768; /* 128 KiB of shared memory */

__global__ void __launch_bounds__(kModeThreads) row_mode_mask_kernel(const float *y, uint8_t *mask, int64_t len, int p2)
{
    extern __shared__ uint32_t keys[];
    __shared__ uint32_t mode;
    __shared__ bool flat;
    const float *row = y + (int64_t)blockIdx.x * len;
    for (int i = threadIdx.x; i < p2; i += blockDim.x)
        keys[i] = i < len ? __float_as_uint(row[i]) : 0xffffffffu;
    __syncthreads();
    for (int k = 2; k <= p2; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = threadIdx.x; i < p2; i += blockDim.x) {
                const int l = i ^ j;
                if (l > i) {
                    const uint32_t a = keys[i], b = keys[l];
                    if (((i & k) == 0) == (a > b)) {
                        keys[i] = b;
                        keys[l] = a;
                    }
                }
            }
            __syncthreads();
        }
    if (threadIdx.x == 0) {
        uint32_t best = keys[0], cur = keys[0];
        int64_t best_n = 0, n = 0;
        for (int64_t i = 0; i < len; i++) { /* the padding sorts last, a real 0xffffffff too: len covers it */
            if (keys[i] == cur) {
                n++;
            } else {
                cur = keys[i];
                n = 1;
            }
            if (n > best_n) {
                best_n = n;
                best = cur;
            }
        }
        mode = best;
        flat = 2 * best_n > len;
    }
    __syncthreads();
    const uint8_t unread = flat ? KB_MASK_UNREAD | KB_MASK_OWN
                           : (mode & 0x7fffffffu) == 0 || (mode & 0x7f800000u) == 0x7f800000u ? KB_MASK_UNREAD
                                                                                               : 0;
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x)
        mask[(int64_t)blockIdx.x * len + i] = (uint8_t)((__float_as_uint(row[i]) != mode) | unread);
}

} /* namespace */

extern "C" kb_tensor kb_row_mode_mask(kb_ref *r, kb_tensor out, kb_tensor y)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_operand(r, "kb_row_mode_mask", 0, y, KB_F32))
        return kb_ref_none();
    if (!kb_is_contiguous(y) || y.ndim < 1) {
        kb_ref_fail(r, "kb_row_mode_mask: y must be contiguous with at least one dimension");
        return kb_ref_none();
    }
    const int64_t len = y.shape[y.ndim - 1], rows = len > 0 ? kb_numel(y) / len : 0;
    if (len > kModeMaxRow || rows > 0x7fffffff) {
        kb_ref_fail(r, "kb_row_mode_mask: rows of %lld elements (at most %lld) x %lld rows", (long long)len,
                    (long long)kModeMaxRow, (long long)rows);
        return kb_ref_none();
    }
    kb_tensor res = kb_result(r, out, KB_BOOL, y.ndim, y.shape, "kb_row_mode_mask");
    if (!kb_ref_ok(r) || rows == 0)
        return kb_ref_ok(r) ? res : kb_ref_none();
    int p2 = 1;
    while (p2 < len)
        p2 <<= 1;
    kb_ctx *ctx = kb_ref_ctx(r);
    const size_t smem = (size_t)p2 * sizeof(uint32_t);
    cudaError_t e = cudaFuncSetAttribute(row_mode_mask_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess) {
        row_mode_mask_kernel<<<(unsigned)rows, kModeThreads, smem, kb_ctx_stream(ctx)>>>((const float *)y.data,
                                                                                       (uint8_t *)res.data, len, p2);
        e = cudaGetLastError();
    }
    if (e != cudaSuccess) {
        kb_ref_check(r, kb_ctx_fail(ctx, "kb_row_mode_mask: launch failed: %s", cudaGetErrorString(e)));
        return kb_ref_none();
    }
    return res;
}

extern "C" void kb_replay_dropout(kb_ref *r, kb_tensor mask, double p)
{
    if (!kb_ref_ok(r))
        return;
    if (mask.dtype != KB_BOOL || !kb_is_contiguous(mask)) {
        kb_ref_fail(r, "kb_replay_dropout: the mask must be a contiguous KB_BOOL tensor");
        return;
    }
    kb_ref_check(r, kb_ctx_set_dropout_mask(kb_ref_ctx(r), (const uint8_t *)mask.data, kb_numel(mask), p));
}

extern "C" kb_tensor kb_dropout(kb_ref *r, kb_tensor out, kb_tensor x, double p, int training)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!check_operand(r, "kb_dropout", 0, x, KB_F32))
        return kb_ref_none();
    if (!(p >= 0.0 && p <= 1.0)) {
        kb_ref_fail(r, "kb_dropout: dropout probability has to be between 0 and 1, but got %g", p);
        return kb_ref_none();
    }
    const int64_t n = kb_numel(x);
    /* _dropout_impl: p == 0, eval mode or an empty input return the input itself */
    if (p == 0.0 || !training || n == 0) {
        if (!out.data)
            return x;
        return out.data == x.data ? out : kb_copy(r, out, x);
    }
    if (p == 1.0) { /* _dropout_impl: input * at::zeros({}): a 0-d fill, then the broadcast mul */
        kb_tensor zero = kb_empty(r, KB_F32, 0, NULL);
        kb_fill(r, zero, 0.0);
        kb_tensor res = kb_mul(r, out, x, zero);
        kb_drop(r, zero);
        return res;
    }
    if (!kb_is_contiguous(x)) {
        kb_ref_fail(r, "kb_dropout: x must be contiguous (eager's strided fused_dropout_kernel is not mirrored)");
        return kb_ref_none();
    }
    kb_tensor mask = kb_empty(r, KB_BOOL, x.ndim, x.shape); /* allocated before the result, as eager */
    kb_tensor res = kb_result(r, out, KB_F32, x.ndim, x.shape, "kb_dropout");
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (res.data == x.data) {
        kb_ref_fail(r, "kb_dropout: the result may not alias x (native_dropout writes a new tensor)");
        return kb_ref_none();
    }
    kb_ctx *ctx = kb_ref_ctx(r);
    int dev = 0, sms = 0, max_threads = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    if (e != cudaSuccess) {
        kb_ref_check(r, kb_ctx_fail(ctx, "kb_dropout: device attributes: %s", cudaGetErrorString(e)));
        return kb_ref_none();
    }
    const unsigned blocks_per_sm = (unsigned)max_threads / kDropThreads;
    const int64_t want = (n + kDropThreads - 1) / kDropThreads;
    const int64_t cap = (int64_t)sms * blocks_per_sm;
    const unsigned grid = (unsigned)(want < cap ? want : cap);
    const double p1m = 1.0 - p;
    const float pa = (float)p1m; /* accscalar_t pa = (accscalar_t)(p) of the keep probability */
    const int vec = dropout_vec_size(x.data, n);
    cudaStream_t s = kb_ctx_stream(ctx);
    int64_t replay_n = 0;
    double replay_p = 0.0;
    const uint8_t *keep = kb_ctx_dropout_mask(ctx, &replay_n, &replay_p);
    if (keep && (replay_n != n || replay_p != p)) {
        kb_ref_fail(r, "kb_dropout: the replayed mask holds %lld elements at p = %g, this dropout %lld at p = %g",
                    (long long)replay_n, replay_p, (long long)n, p);
        return kb_ref_none();
    }
    if (n < INT32_MAX) /* cuda::detail::canUse32BitIndexMath(self): numel < INT32_MAX, contiguous */
        dropout_launch<unsigned int>(s, vec, grid, (const float *)x.data, (float *)res.data, (uint8_t *)mask.data, n, pa);
    else
        dropout_launch<uint64_t>(s, vec, grid, (const float *)x.data, (float *)res.data, (uint8_t *)mask.data, n, pa);
    if (keep) /* the replay: the drawn mask replaced by the call's, where its row could be read */
        replay_dropout_kernel<<<grid, kDropThreads, 0, s>>>((const float *)x.data, (float *)res.data, (uint8_t *)mask.data,
                                                             keep, n, pa);
    e = cudaGetLastError();
    if (e != cudaSuccess)
        kb_ref_check(r, kb_ctx_fail(ctx, "kb_dropout: launch failed: %s", cudaGetErrorString(e)));
    kb_drop(r, mask); /* the tuple's mask dies with it */
    return kb_ref_ok(r) ? res : kb_ref_none();
}
