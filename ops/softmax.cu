/*
 * ops/softmax.cu -- kb_op_softmax: softmax / log_softmax over the last dim of x[rows, cols]
 * (see kb/ops.h), dispatched the way eager PyTorch's host_softmax (ATen/native/cuda/SoftMax.cu)
 * dispatches a contiguous fp32 input:
 *
 *   cols <= 2048   softmax_warp_forward (PersistentSoftmax.cuh): one warp per row (two rows per
 *                  warp up to 128 columns), the row held in registers, warp-shuffle max and sum;
 *                  128 threads per block; rows launched in chunks of 2^30 / cols.
 *   otherwise      one block per row, block = min(cols, 1024) rounded up to whole warps, and
 *     ceil(cols / block) < 10:  cunn_SoftMaxForwardReg -- the row read once into registers;
 *     row fits shared memory (and 16-byte aligned, cols % 4 == 0): cunn_SoftMaxForwardSmem --
 *                  read once into shared memory with float4 loads;
 *     else:        cunn_SoftMaxForward -- three float4 passes over global memory (max, sum of
 *                  exp, write), as in PyTorch.
 * A softmax over a middle dim (inner > 1: softmax(dim=1) of NCHW / NCDHW) is host_softmax's other
 * branch, cunn_SpatialSoftMaxForward: block (dim threads, inner threads), dim threads only when
 * inner <= 64 and dim >= 64 (a shared-memory tree over threadIdx.x), else one thread per (outer,
 * inner) position looping over dim three times (max, sum of exp, write); the grid from the
 * kernel's occupancy, inner over grid.y first, then outer over grid.x; int indices when the input
 * is 32-bit indexable, else int64.
 * Math in float, as PyTorch: max, then sum of expf(x - max), then expf(x - max) / sum, or
 * x - max - logf(sum) for log_softmax. The block reductions are warp shuffles, then the first
 * warp over the per-warp partials (cuda_utils::BlockReduce).
 *
 * Napkin math, L1/23 (softmax, x (4096, 393216) fp32 = 6.44 GB): a 1.5 MB row fits neither
 * registers nor shared memory, so cunn_SoftMaxForward reads it three times (max, sum, write pass)
 * and writes it once; 264 resident rows (2 blocks of 1024 threads per SM) are ~400 MB, far above
 * the 50 MB L2, so all three reads come from HBM: 4 x 6.44 = 25.8 GB at ~4.2 TB/s = ~6.1 ms, as
 * eager PyTorch on the H200 (6.17 ms). Measured with this file: 6.20 ms.
 * L1/95's log_softmax (32768 x 4096): Reg<4> path, 0.54 GB read + 0.54 GB written: ~0.26 ms of
 * traffic; measured 0.36 ms (32768 short blocks, each with two block-wide reductions).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "kb/ops.h"
#include "kb/ref.h"

namespace {

constexpr int kWarp = 32;
constexpr int kMaxBlock = 1024;
constexpr int kILP = 4; /* sizeof(float4) / sizeof(float) */

/* ---------------------------------------------------------------------------------------- */
/* Block reductions (cuda_utils::BlockReduce + blockReduceWarp).                              */

struct MaxOp {
    __device__ __forceinline__ float operator()(float a, float b) const { return a < b ? b : a; }
};
struct AddOp {
    __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

template <class R>
__device__ __forceinline__ float warp_reduce(float val, const R &r)
{
#pragma unroll
    for (int offset = kWarp / 2; offset > 0; offset >>= 1)
        val = r(val, __shfl_down_sync(0xffffffffu, val, offset));
    return val;
}

/* Every thread gets the block's result. blockDim.x is a multiple of 32; smem holds one float
 * per warp. The first barrier keeps consecutive calls from racing on smem. */
template <class R>
__device__ __forceinline__ float block_reduce(float val, const R &r, float ident, float *smem)
{
    const int tid = (int)threadIdx.x;
    const int lid = tid % kWarp;
    const int wid = tid / kWarp;
    const int nwarps = (int)blockDim.x / kWarp;
    val = warp_reduce(val, r);
    __syncthreads();
    if (lid == 0)
        smem[wid] = val;
    __syncthreads();
    val = (tid < nwarps) ? smem[lid] : ident;
    if (wid == 0)
        val = warp_reduce(val, r);
    if (tid == 0)
        smem[0] = val;
    __syncthreads();
    return smem[0];
}

/* Epilogues (SoftMaxForwardEpilogue / LogSoftMaxForwardEpilogue). */
template <bool LOG>
struct Epilogue {
    float max_input, sum_or_logsum;
    __device__ __forceinline__ Epilogue(float max_in, float sum) : max_input(max_in), sum_or_logsum(LOG ? logf(sum) : sum) {}
    __device__ __forceinline__ float operator()(float x) const
    {
        return LOG ? x - max_input - sum_or_logsum : expf(x - max_input) / sum_or_logsum;
    }
};

/* ---------------------------------------------------------------------------------------- */
/* cols <= 2048: persistent warp softmax.                                                      */

template <int LOG2, bool LOG>
__global__ void softmax_warp_forward(float *dst, const float *src, int batch_size, int element_count)
{
    constexpr int next_pow2 = 1 << LOG2;
    constexpr int WARP_SIZE = next_pow2 < kWarp ? next_pow2 : kWarp;
    constexpr int WARP_ITERATIONS = next_pow2 / WARP_SIZE;
    constexpr int WARP_BATCH = next_pow2 <= 128 ? 2 : 1;

    const int first_batch = ((int)blockDim.y * (int)blockIdx.x + (int)threadIdx.y) * WARP_BATCH;
    int local_batches = batch_size - first_batch;
    if (local_batches > WARP_BATCH)
        local_batches = WARP_BATCH;
    const int local_idx = (int)threadIdx.x;
    src += (int64_t)first_batch * element_count + local_idx;
    dst += (int64_t)first_batch * element_count + local_idx;

    float elements[WARP_BATCH][WARP_ITERATIONS];
#pragma unroll
    for (int i = 0; i < WARP_BATCH; i++) {
        const int batch_element_count = (i >= local_batches) ? 0 : element_count;
#pragma unroll
        for (int it = 0; it < WARP_ITERATIONS; it++) {
            const int element_index = local_idx + it * WARP_SIZE;
            elements[i][it] = -INFINITY;
            if (element_index < batch_element_count)
                elements[i][it] = src[(int64_t)i * element_count + it * WARP_SIZE];
        }
    }

    float max_value[WARP_BATCH];
#pragma unroll
    for (int i = 0; i < WARP_BATCH; i++) {
        max_value[i] = elements[i][0];
#pragma unroll
        for (int it = 1; it < WARP_ITERATIONS; it++)
            max_value[i] = (max_value[i] > elements[i][it]) ? max_value[i] : elements[i][it];
    }
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
#pragma unroll
        for (int i = 0; i < WARP_BATCH; i++) {
            const float v = __shfl_xor_sync(0xffffffffu, max_value[i], offset, WARP_SIZE);
            max_value[i] = max_value[i] > v ? max_value[i] : v;
        }
    }

    float sum[WARP_BATCH];
#pragma unroll
    for (int i = 0; i < WARP_BATCH; i++) {
        sum[i] = 0.0f;
#pragma unroll
        for (int it = 0; it < WARP_ITERATIONS; it++) {
            if (LOG) {
                sum[i] += expf(elements[i][it] - max_value[i]);
            } else {
                elements[i][it] = expf(elements[i][it] - max_value[i]);
                sum[i] += elements[i][it];
            }
        }
    }
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
#pragma unroll
        for (int i = 0; i < WARP_BATCH; i++)
            sum[i] += __shfl_xor_sync(0xffffffffu, sum[i], offset, WARP_SIZE);
    }

#pragma unroll
    for (int i = 0; i < WARP_BATCH; i++) {
        if (i >= local_batches)
            break;
        if (LOG)
            sum[i] = logf(sum[i]);
#pragma unroll
        for (int it = 0; it < WARP_ITERATIONS; it++) {
            const int element_index = local_idx + it * WARP_SIZE;
            if (element_index >= element_count)
                break;
            dst[(int64_t)i * element_count + it * WARP_SIZE] =
                LOG ? elements[i][it] - max_value[i] - sum[i] : elements[i][it] / sum[i];
        }
    }
}

template <bool LOG>
static void launch_warp_softmax(int log2, float *dst, const float *src, int batch, int cols, cudaStream_t s)
{
    const int next_pow2 = 1 << log2;
    const int warp_size = next_pow2 < kWarp ? next_pow2 : kWarp;
    const int batches_per_warp = next_pow2 <= 128 ? 2 : 1;
    const int threads_per_block = 128;
    const int warps_per_block = threads_per_block / warp_size;
    const int batches_per_block = warps_per_block * batches_per_warp;
    const unsigned blocks = (unsigned)((batch + batches_per_block - 1) / batches_per_block);
    const dim3 threads((unsigned)warp_size, (unsigned)warps_per_block);
    switch (log2) {
#define KB_WARP_CASE(L) \
    case L: softmax_warp_forward<L, LOG><<<blocks, threads, 0, s>>>(dst, src, batch, cols); break;
        KB_WARP_CASE(0) KB_WARP_CASE(1) KB_WARP_CASE(2) KB_WARP_CASE(3) KB_WARP_CASE(4) KB_WARP_CASE(5)
        KB_WARP_CASE(6) KB_WARP_CASE(7) KB_WARP_CASE(8) KB_WARP_CASE(9) KB_WARP_CASE(10) KB_WARP_CASE(11)
#undef KB_WARP_CASE
    default: break;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* One block per row.                                                                         */

/* Row held in registers: REG values per thread at stride blockDim.x (coalesced scalar loads). */
template <int REG, bool LOG>
__global__ void softmax_forward_reg(float *out, const float *in, int classes)
{
    extern __shared__ float sdata[];
    in += (int64_t)blockIdx.x * classes;
    out += (int64_t)blockIdx.x * classes;
    float reg[REG];
    float thread_max = -FLT_MAX;
#pragma unroll
    for (int r = 0; r < REG; r++) {
        const int offset = (int)threadIdx.x + r * (int)blockDim.x;
        if (offset < classes) {
            reg[r] = in[offset];
            thread_max = fmaxf(thread_max, reg[r]);
        }
    }
    const float max_k = block_reduce(thread_max, MaxOp(), -FLT_MAX, sdata);
    float thread_exp = 0.0f;
#pragma unroll
    for (int r = 0; r < REG; r++) {
        const int offset = (int)threadIdx.x + r * (int)blockDim.x;
        if (offset < classes)
            thread_exp += expf(reg[r] - max_k);
    }
    const float sum_all = block_reduce(thread_exp, AddOp(), 0.0f, sdata);
    const Epilogue<LOG> epi(max_k, sum_all);
#pragma unroll
    for (int r = 0; r < REG; r++) {
        const int offset = (int)threadIdx.x + r * (int)blockDim.x;
        if (offset < classes)
            out[offset] = epi(reg[r]);
    }
}

/* Row cached in shared memory (16-byte aligned rows, classes % 4 == 0). */
template <bool LOG>
__global__ void softmax_forward_smem(float *out, const float *in, int classes)
{
    extern __shared__ float smem[];
    float *cache = smem;
    float *red = smem + classes;
    in += (int64_t)blockIdx.x * classes;
    out += (int64_t)blockIdx.x * classes;
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    float4 *cache4 = reinterpret_cast<float4 *>(cache);
    float4 *out4 = reinterpret_cast<float4 *>(out);
    const int nvec = classes / kILP;

    float thread_max = -FLT_MAX;
    for (int i = (int)threadIdx.x; i < nvec; i += (int)blockDim.x) {
        const float4 v = in4[i];
        cache4[i] = v;
        thread_max = fmaxf(thread_max, v.x);
        thread_max = fmaxf(thread_max, v.y);
        thread_max = fmaxf(thread_max, v.z);
        thread_max = fmaxf(thread_max, v.w);
    }
    /* block_reduce's barriers also publish the cache to the whole block. */
    const float max_k = block_reduce(thread_max, MaxOp(), -FLT_MAX, red);
    float thread_exp = 0.0f;
    for (int i = (int)threadIdx.x; i < nvec; i += (int)blockDim.x) {
        const float4 v = cache4[i];
        thread_exp += expf(v.x - max_k);
        thread_exp += expf(v.y - max_k);
        thread_exp += expf(v.z - max_k);
        thread_exp += expf(v.w - max_k);
    }
    const float sum_all = block_reduce(thread_exp, AddOp(), 0.0f, red);
    const Epilogue<LOG> epi(max_k, sum_all);
    for (int i = (int)threadIdx.x; i < nvec; i += (int)blockDim.x) {
        float4 v = cache4[i];
        v.x = epi(v.x);
        v.y = epi(v.y);
        v.z = epi(v.z);
        v.w = epi(v.w);
        out4[i] = v;
    }
}

/* ilpReduce: a pass over the row with float4 loads after peeling the unaligned head (`shift`
 * elements before the 16-byte boundary, one per thread) and a scalar tail. */
template <class F>
__device__ __forceinline__ float ilp_reduce(int shift, const float *data, int size, const F &f, float init)
{
    float val = init;
    int offset = (int)threadIdx.x;
    if (shift > 0) {
        data -= shift;
        size += shift;
        if ((int)threadIdx.x >= shift && offset < size)
            val = f(val, data[offset]);
        size -= (int)blockDim.x;
        data += blockDim.x;
    }
    if (size <= 0)
        return val;
    const int last = size % (kILP * (int)blockDim.x);
    const float4 *data4 = reinterpret_cast<const float4 *>(data);
    for (; offset * kILP < size - last; offset += (int)blockDim.x) {
        const float4 v = data4[offset];
        val = f(val, v.x);
        val = f(val, v.y);
        val = f(val, v.z);
        val = f(val, v.w);
    }
    for (offset = size - last + (int)threadIdx.x; offset < size; offset += (int)blockDim.x)
        val = f(val, data[offset]);
    return val;
}

struct MaxFloat {
    __device__ __forceinline__ float operator()(float m, float v) const { return fmaxf(m, v); }
};
struct SumExpFloat {
    float max_k;
    __device__ __forceinline__ float operator()(float s, float v) const { return s + expf(v - max_k); }
};

/* Three passes over global memory: max, sum of exp, write (WriteFpropResultsVectorized when
 * input and output share their 16-byte phase, else a scalar loop). */
template <bool LOG>
__global__ void softmax_forward_gmem(float *out, const float *in, int classes)
{
    extern __shared__ float sdata[];
    in += (int64_t)blockIdx.x * classes;
    out += (int64_t)blockIdx.x * classes;
    const int shift = (int)(((uintptr_t)in % 16) / sizeof(float));
    const int out_shift = (int)(((uintptr_t)out % 16) / sizeof(float));

    const float thread_max = ilp_reduce(shift, in, classes, MaxFloat(), -FLT_MAX);
    const float max_k = block_reduce(thread_max, MaxOp(), -FLT_MAX, sdata);
    const float thread_exp = ilp_reduce(shift, in, classes, SumExpFloat{max_k}, 0.0f);
    const float sum_all = block_reduce(thread_exp, AddOp(), 0.0f, sdata);
    const Epilogue<LOG> epi(max_k, sum_all);

    if (shift == out_shift) {
        int size = classes;
        int offset = (int)threadIdx.x;
        const float *src = in;
        float *dst = out;
        if (shift > 0) {
            src -= shift;
            dst -= shift;
            size += shift;
            if ((int)threadIdx.x >= shift && offset < size)
                dst[offset] = epi(src[offset]);
            size -= (int)blockDim.x;
            src += blockDim.x;
            dst += blockDim.x;
        }
        if (size <= 0)
            return;
        const int last = size % (kILP * (int)blockDim.x);
        const float4 *src4 = reinterpret_cast<const float4 *>(src);
        float4 *dst4 = reinterpret_cast<float4 *>(dst);
        for (; offset * kILP < size - last; offset += (int)blockDim.x) {
            float4 v = src4[offset];
            v.x = epi(v.x);
            v.y = epi(v.y);
            v.z = epi(v.z);
            v.w = epi(v.w);
            dst4[offset] = v;
        }
        for (offset = size - last + (int)threadIdx.x; offset < size; offset += (int)blockDim.x)
            dst[offset] = epi(src[offset]);
    } else {
        for (int offset = (int)threadIdx.x; offset < classes; offset += (int)blockDim.x)
            out[offset] = epi(in[offset]);
    }
}

template <bool LOG>
static int softmax_impl(kb_ctx *ctx, const float *x, float *y, int64_t rows, int64_t cols)
{
    cudaStream_t stream = kb_ctx_stream(ctx);

    if (cols <= 2048) {
        int log2 = 0;
        while ((1 << log2) < cols)
            log2++;
        const int64_t chunk = ((int64_t)1 << 30) / cols;
        for (int64_t done = 0; done < rows; done += chunk) {
            const int64_t batch = rows - done < chunk ? rows - done : chunk;
            launch_warp_softmax<LOG>(log2, y + done * cols, x + done * cols, (int)batch, (int)cols, stream);
            KB_OP_LAUNCHED(ctx);
        }
        return 0;
    }

    if (cols > INT32_MAX)
        return kb_ctx_fail(ctx, "kb_op_softmax: %lld columns exceed the 32-bit row index", (long long)cols);
    if (rows > INT32_MAX)
        return kb_ctx_fail(ctx, "kb_op_softmax: %lld rows exceed the grid limit", (long long)rows);
    const int classes = (int)cols;

    /* SoftMaxForward_getBlockSize: min(cols, 1024) rounded up to a multiple of the warp. */
    int block = classes < kMaxBlock ? classes : kMaxBlock;
    if (block % kWarp)
        block = (block / kWarp + 1) * kWarp;
    const size_t smem_reduction = (size_t)(block / kWarp) * sizeof(float);

    int dev = 0, smem_per_block = 0;
    KB_OP_CUDA(ctx, cudaGetDevice(&dev));
    KB_OP_CUDA(ctx, cudaDeviceGetAttribute(&smem_per_block, cudaDevAttrMaxSharedMemoryPerBlock, dev));
    const size_t max_elements_per_smem = ((size_t)smem_per_block - smem_reduction) / sizeof(float);
    const bool can_use_smem = (size_t)classes < max_elements_per_smem && ((uintptr_t)x % 16) == 0 &&
                              ((uintptr_t)y % 16) == 0 && classes % kILP == 0;

    const int reg_cnt = (classes + block - 1) / block;
    const dim3 grid((unsigned)rows);
    if (reg_cnt < 10) {
        switch (reg_cnt) {
#define KB_REG_CASE(R) \
    case R: softmax_forward_reg<R, LOG><<<grid, block, smem_reduction, stream>>>(y, x, classes); break;
            KB_REG_CASE(1) KB_REG_CASE(2) KB_REG_CASE(3) KB_REG_CASE(4) KB_REG_CASE(5)
            KB_REG_CASE(6) KB_REG_CASE(7) KB_REG_CASE(8) KB_REG_CASE(9)
#undef KB_REG_CASE
        default: break;
        }
    } else if (can_use_smem) {
        const size_t smem = (size_t)classes * sizeof(float) + smem_reduction;
        softmax_forward_smem<LOG><<<grid, block, smem, stream>>>(y, x, classes);
    } else {
        softmax_forward_gmem<LOG><<<grid, block, smem_reduction, stream>>>(y, x, classes);
    }
    KB_OP_LAUNCHED(ctx);
    return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* inner > 1: cunn_SpatialSoftMaxForward (SoftMax.cu's "spatial kernel").                     */

/* The spatial kernel is written the way SoftMax.cu writes it, down to the integer types: nvcc
 * then compiles it (13.0, sm_90) to the SASS of PyTorch 2.11's cunn_SpatialSoftMaxForward<float,
 * float, float, index_t, Epilogue> in libtorch_cuda, instruction for instruction, and with its
 * register count: 34 (int index) / 37 (int64) for softmax, 30 / 29 for log_softmax. The count
 * matters beyond the code: SpatialSoftMax_getLaunchSizes sizes the grid from the kernel's
 * occupancy, and at 34 registers a block of 1024 threads allows ONE resident block per SM (40
 * registers per thread after allocation rounding, 40960 per block), at 32 it allows two. An
 * earlier version of this kernel (a signed `(int)blockDim.x / 2` in the reduction, a one-member
 * epilogue) compiled to 32 registers and so launched twice eager's grid.x, with twice its
 * resident threads: 10-17% faster than eager on L2/6, 49 and 91. */
template <typename T> struct SpatialAdd {
    __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
template <typename T> struct SpatialMax {
    __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? b : a; }
};

/* spatialBlockReduceX: a shared-memory tree over threadIdx.x only (the threads of one
 * threadIdx.y row reduce together); blockDim.x is a power of two. The offset starts as the
 * unsigned blockDim.x / 2 converted to int, as in PyTorch (a signed division compiles
 * differently). */
template <typename T, template <typename> class ReduceOp>
__forceinline__ __device__ T spatialBlockReduceX(T *shared, T val)
{
    ReduceOp<T> r;
    shared += threadIdx.y * blockDim.x;
    __syncthreads();
    shared[threadIdx.x] = val;
    /* the loop starts with __syncthreads() */
    int offset = blockDim.x / 2;
    while (offset > 0) {
        __syncthreads();
        if (threadIdx.x < offset)
            shared[threadIdx.x] = r(shared[threadIdx.x], shared[threadIdx.x + offset]);
        offset /= 2;
    }
    __syncthreads();
    return shared[0];
}

/* SoftMaxForwardEpilogue (exp(x - max) / sum) and LogSoftMaxForwardEpilogue (x - max -
 * log(sum)), each keeping the members PyTorch's keeps. */
template <bool LOG> struct SpatialEpilogue;
template <> struct SpatialEpilogue<false> {
    __device__ __forceinline__ SpatialEpilogue(float max_input_, float sum_) : max_input(max_input_), sum(sum_) {}
    __device__ __forceinline__ float operator()(float input) const { return expf(input - max_input) / sum; }
    const float max_input;
    const float sum;
};
template <> struct SpatialEpilogue<true> {
    __device__ __forceinline__ SpatialEpilogue(float max_input_, float sum) : max_input(max_input_), logsum(logf(sum)) {}
    __device__ __forceinline__ float operator()(float input) const { return input - max_input - logsum; }
    const float max_input;
    const float logsum;
};

/* cunn_SpatialSoftMaxForward<float, float, float, index_t, Epilogue>: x as [outer, dim, inner];
 * blockIdx.x strides over outer, (blockIdx.y, threadIdx.y) over inner, threadIdx.x over dim
 * (with a shared-memory reduction when blockDim.x > 1); max from numeric_limits<float>::lowest()
 * with Max's a < b ? b : a, then the sum of expf(x - max), then the epilogue: each element is
 * read three times and written once, input[data_offset + d * inner] for d = threadIdx.x,
 * threadIdx.x + blockDim.x, ... No launch bounds, as PyTorch's. index_t is int when the input
 * is 32-bit indexable, else int64_t. */
template <typename index_t, bool LOG>
__global__ void spatial_softmax_forward(float *output, const float *input, index_t outer_size, index_t dim_size,
                                        index_t inner_size)
{
    extern __shared__ unsigned char smem_spatial[];
    auto sdata = reinterpret_cast<float *>(smem_spatial);
    const index_t outer_stride = inner_size * dim_size;
    const index_t dim_stride = inner_size;

    for (index_t outer_index = blockIdx.x; outer_index < outer_size; outer_index += gridDim.x) {
        const index_t outer_offset = outer_index * outer_stride;
        for (index_t inner_index = blockIdx.y * blockDim.y + threadIdx.y; inner_index < inner_size;
             inner_index += blockDim.y * gridDim.y) {
            const index_t data_offset = outer_offset + inner_index;
            /* the two branches are PyTorch's: equivalent, the second without the reductions */
            if (blockDim.x > 1) {
                float max_input = -FLT_MAX;
                for (index_t d = threadIdx.x; d < dim_size; d += blockDim.x) {
                    const float value = input[data_offset + d * dim_stride];
                    max_input = SpatialMax<float>()(max_input, value);
                }
                max_input = spatialBlockReduceX<float, SpatialMax>(sdata, max_input);

                float sum = 0;
                for (index_t d = threadIdx.x; d < dim_size; d += blockDim.x)
                    sum += expf(input[data_offset + d * dim_stride] - max_input);
                sum = spatialBlockReduceX<float, SpatialAdd>(sdata, sum);

                const SpatialEpilogue<LOG> epilogue(max_input, sum);
                for (index_t d = threadIdx.x; d < dim_size; d += blockDim.x)
                    output[data_offset + d * dim_stride] = epilogue(input[data_offset + d * dim_stride]);
            } else {
                float max_input = -FLT_MAX;
                for (index_t d = threadIdx.x; d < dim_size; d += blockDim.x) {
                    const float value = input[data_offset + d * dim_stride];
                    max_input = SpatialMax<float>()(max_input, value);
                }
                float sum = 0;
                for (index_t d = threadIdx.x; d < dim_size; d += blockDim.x)
                    sum += expf(input[data_offset + d * dim_stride] - max_input);
                const SpatialEpilogue<LOG> epilogue(max_input, sum);
                for (index_t d = threadIdx.x; d < dim_size; d += blockDim.x)
                    output[data_offset + d * dim_stride] = epilogue(input[data_offset + d * dim_stride]);
            }
        }
    }
}

/* SpatialSoftMax_getLaunchSizes: block (dim_threads, inner_threads) with inner_threads =
 * min(inner, 1024) and dim_threads the largest power of two with dim_threads * inner_threads <=
 * 1024 and dim_threads <= dim when inner_threads <= 64 and dim >= 64 (else 1); shared memory
 * block_threads floats when block.x > 1; the grid from the kernel's occupancy
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs): inner tiled over grid.y first (at most
 * that many blocks), then grid.x = ceil(active / grid.y), at most outer. */
template <typename index_t, bool LOG>
static int spatial_softmax_launch(kb_ctx *ctx, const float *x, float *y, int64_t outer, int64_t dim, int64_t inner)
{
    const unsigned max_threads = (unsigned)kMaxBlock;
    uint32_t inner_threads = (uint32_t)inner;
    inner_threads = inner_threads < max_threads ? inner_threads : max_threads;
    uint32_t dim_threads = 1;
    if (inner_threads <= 64 && dim >= 64) {
        while (inner_threads * dim_threads <= max_threads && dim_threads <= (uint64_t)dim)
            dim_threads *= 2;
        dim_threads /= 2;
    }
    const dim3 block(dim_threads, inner_threads);
    const uint32_t block_threads = block.x * block.y;
    const size_t smem = block.x == 1 ? 0 : block_threads * sizeof(float);
    int max_active_blocks = 0, dev = 0, sms = 0;
    KB_OP_CUDA(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&max_active_blocks,
                                                                  spatial_softmax_forward<index_t, LOG>,
                                                                  (int)block_threads, smem));
    KB_OP_CUDA(ctx, cudaGetDevice(&dev));
    KB_OP_CUDA(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const uint32_t active = (uint32_t)max_active_blocks * (uint32_t)sms;
    if (active == 0)
        return kb_ctx_fail(ctx, "kb_softmax: the spatial kernel fits no block of %u threads on an SM", block_threads);
    /* SpatialSoftMax_getGridSize */
    uint32_t inner_blocks = (uint32_t)(((uint64_t)inner + block.y - 1) / block.y);
    if (inner_blocks > active)
        inner_blocks = active;
    uint32_t outer_blocks = (active + inner_blocks - 1) / inner_blocks;
    if (outer_blocks > (uint64_t)outer)
        outer_blocks = (uint32_t)outer;
    const dim3 grid(outer_blocks, inner_blocks);
    spatial_softmax_forward<index_t, LOG><<<grid, block, smem, kb_ctx_stream(ctx)>>>(y, x, (index_t)outer,
                                                                                     (index_t)dim, (index_t)inner);
    KB_OP_LAUNCHED(ctx);
    return 0;
}

/* host_softmax's inner_size > 1 branch: index_t from canUse32BitIndexMath(input, INT_MAX). */
static int spatial_softmax(kb_ctx *ctx, const float *x, float *y, int64_t outer, int64_t dim, int64_t inner, int log)
{
    const int narrow = outer * dim * inner < INT32_MAX; /* numel < max_elem: contiguous */
    if (narrow)
        return log ? spatial_softmax_launch<int, true>(ctx, x, y, outer, dim, inner)
                   : spatial_softmax_launch<int, false>(ctx, x, y, outer, dim, inner);
    return log ? spatial_softmax_launch<int64_t, true>(ctx, x, y, outer, dim, inner)
               : spatial_softmax_launch<int64_t, false>(ctx, x, y, outer, dim, inner);
}

} /* namespace */

extern "C" int kb_op_softmax(kb_ctx *ctx, const float *x, float *y, int64_t rows, int64_t cols, int log)
{
    if (rows < 0 || cols < 0)
        return kb_ctx_fail(ctx, "kb_op_softmax: negative extent [%lld, %lld]", (long long)rows, (long long)cols);
    if (rows == 0 || cols == 0)
        return 0;
    if (!x || !y)
        return kb_ctx_fail(ctx, "kb_op_softmax: NULL tensor pointer");
    return log ? softmax_impl<true>(ctx, x, y, rows, cols) : softmax_impl<false>(ctx, x, y, rows, cols);
}

/* ---- tensor level (kb/ref/norm.h) ------------------------------------------------------------
 * host_softmax over dim of a contiguous tensor viewed as [outer, len, inner]: inner == 1 is the
 * path above (rows = outer, cols = len); inner > 1 is cunn_SpatialSoftMaxForward (softmax(dim=1)
 * of an NCHW / NCDHW tensor). */
static kb_tensor softmax_tensor(kb_ref *r, kb_tensor out, kb_tensor x, int dim, int log, const char *op)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (x.dtype != KB_F32 || !kb_is_contiguous(x)) {
        kb_ref_fail(r, "%s: x must be a contiguous fp32 tensor (got dtype %d%s)", op, (int)x.dtype,
                    kb_is_contiguous(x) ? "" : ", strided");
        return kb_ref_none();
    }
    const int d = kb_norm_dim(r, x, dim);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    int64_t outer = 1, len = 1, inner = 1;
    if (x.ndim > 0)
        kb_split_dim(x, d, &outer, &len, &inner);
    kb_tensor y = kb_result(r, out, KB_F32, x.ndim, x.shape, op);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (inner == 1)
        kb_ref_check(r, kb_op_softmax(kb_ref_ctx(r), kb_f32(r, x), kb_f32(r, y), outer, len, log));
    else if (outer * len * inner > 0)
        kb_ref_check(r, spatial_softmax(kb_ref_ctx(r), kb_f32(r, x), kb_f32(r, y), outer, len, inner, log));
    return kb_ref_ok(r) ? y : kb_ref_none();
}

extern "C" kb_tensor kb_softmax(kb_ref *r, kb_tensor out, kb_tensor x, int dim)
{
    return softmax_tensor(r, out, x, dim, 0, "kb_softmax");
}

extern "C" kb_tensor kb_log_softmax(kb_ref *r, kb_tensor out, kb_tensor x, int dim)
{
    return softmax_tensor(r, out, x, dim, 1, "kb_log_softmax");
}
