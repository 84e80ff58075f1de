/*
 * ops/scan.cu -- torch.cumsum / torch.cumprod (kb/ref/scan.h): the raw kb_op_scan and the
 * tensor-level kb_cumsum / kb_cumprod.
 *
 * Eager PyTorch (ATen/native/cuda/ScanKernels.cpp -> ScanUtils.cuh scan_dim) makes the input
 * contiguous (expect_contiguous) and picks one of three kernels:
 *   - numel == size(dim) (one non-trivial dim): CUB's device-wide inclusive scan
 *     (cuda::cub::inclusive_scan, decoupled look-back); used here as well, from the toolkit's CUB.
 *   - dim is the last dim: tensor_kernel_scan_innermost_dim. Block (num_threads_x, 512 /
 *     num_threads_x) with num_threads_x = 2^clamp((9 + log2ceil(row) - log2ceil(rows)) / 2, 4, 9);
 *     each threadIdx.y row walks its row in chunks of 2 * num_threads_x elements: the chunk is
 *     staged in shared memory (two elements per thread), the running total of the previous
 *     chunks is folded into its first element, a Sklansky scan (log2(2 * num_threads_x) steps,
 *     one __syncthreads each) scans it in place, the chunk is written back and its last element
 *     becomes the running total. Grid: min(65535-ish maxGridSize.x, ceil(rows / blockDim.y))
 *     blocks looping over rows. Mirrored exactly here (same association order, so the same
 *     rounding), with 64-bit offsets where ATen uses uint32 (it checks the sizes fit).
 *   - otherwise: tensor_kernel_scan_outer_dim: one thread per (outer row, inner column), a
 *     sequential scan down the strided dim; block min(512, inner), grid (min(65535, outer),
 *     min(65535, ceil(inner / 512))).
 *
 * Napkin math, L1/89 (x (32768, 32768) fp32, cumsum dim 1): 4.29 GB read + 4.29 GB written =
 * 8.6 GB, 2.0 ms at ~4.3 TB/s if bandwidth-bound. The innermost kernel is not: num_threads_x = 16,
 * block (16, 32), 1024 blocks, each row moves 32 floats (128 B) per chunk with 5 barriers per
 * chunk and a dependent running total, so latency sets the pace: eager takes 4.55 ms on the H200
 * (reference/pytorch-eager-h200.csv), which is the time this mirror should take.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include <cub/device/device_scan.cuh>

#include "kb/ref.h"

namespace {

struct AddF {
    __host__ __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};
struct MulF {
    __host__ __device__ __forceinline__ float operator()(float a, float b) const { return a * b; }
};

/* tensor_kernel_scan_innermost_dim_impl: see the header comment. Idx is PyTorch's index_t:
 * uint32 for all the arithmetic, row offsets included, when rows * row_size fits in 32 bits,
 * else 64-bit. The Sklansky step count is a counted loop over m (s = 2^m) as in PyTorch 2.11,
 * which nvcc unrolls; the earlier `for (s = 1; s <= ntx; s <<= 1)` it did not (3 barriers in
 * the SASS against PyTorch's 18), and with 64-bit row offsets that cost 1.42x eager's time on
 * the H200. */
template <class Op, typename Idx>
__device__ __forceinline__ void scan_innermost_rows(float *row_buf, float *__restrict__ tgt, const float *__restrict__ src,
                                                    uint32_t num_rows, uint32_t row_size, uint32_t log_ntx, float init)
{
    const Op op;
    const Idx ntx = (Idx)1 << log_ntx;
    for (Idx block_row = (Idx)blockIdx.x * blockDim.y; block_row < num_rows; block_row += (Idx)blockDim.y * gridDim.x) {
        const Idx row = block_row + threadIdx.y;
        float block_total = init;
        const float *row_src = src + row * row_size;
        float *row_tgt = tgt + row * row_size;
        const bool row_exists = row < num_rows;

        for (Idx block_col = 0; block_col < row_size; block_col += 2 * ntx) {
            const Idx col1 = block_col + threadIdx.x;
            const Idx col2 = block_col + ntx + threadIdx.x;
            if (row_exists) {
                row_buf[threadIdx.x] = col1 < row_size ? row_src[col1] : init;
                row_buf[ntx + threadIdx.x] = col2 < row_size ? row_src[col2] : init;
                /* The total of the previous chunks joins the chunk's first element. */
                if (threadIdx.x == 0)
                    row_buf[0] = op(row_buf[0], block_total);
            }
            __syncthreads();

            /* Sklansky: at step m (s = 2^m) every element of the upper half of each 2s-group
             * takes the last element of its lower half. */
            for (int m = 0; m <= (int)log_ntx; ++m) {
                if (row_exists) {
                    const Idx sz = (Idx)1 << m;
                    const Idx a = (Idx)((threadIdx.x >> m) << (m + 1)) | sz;
                    const Idx ti = a + (threadIdx.x % sz);
                    const Idx si = a - 1;
                    row_buf[ti] = op(row_buf[ti], row_buf[si]);
                }
                __syncthreads();
            }

            if (row_exists) {
                if (col1 < row_size)
                    row_tgt[col1] = row_buf[threadIdx.x];
                if (col2 < row_size)
                    row_tgt[col2] = row_buf[ntx + threadIdx.x];
            }
            block_total = row_buf[2 * ntx - 1];
            __syncthreads();
        }
    }
}

/* tensor_kernel_scan_innermost_dim: row_buf is this row's 2 * ntx floats. The host checks that
 * rows and row_size fit in 32 bits (check_fits_in_unsigned). */
template <class Op>
__global__ void scan_innermost_dim(float *__restrict__ tgt, const float *__restrict__ src, uint32_t num_rows,
                                   uint32_t row_size, uint32_t log_num_threads_x, float init)
{
    extern __shared__ float sbuf[];
    float *row_buf = sbuf + ((uint32_t)1 << log_num_threads_x) * 2 * threadIdx.y;
    if ((uint64_t)num_rows * row_size <= UINT_MAX)
        scan_innermost_rows<Op, uint32_t>(row_buf, tgt, src, num_rows, row_size, log_num_threads_x, init);
    else
        scan_innermost_rows<Op, uint64_t>(row_buf, tgt, src, num_rows, row_size, log_num_threads_x, init);
}

/* tensor_kernel_scan_outer_dim: one thread per (orow, irow), sequential down the scanned dim. */
template <class Op>
__global__ void scan_outer_dim(float *__restrict__ tgt, const float *__restrict__ src, int64_t num_orows,
                               int64_t num_irows, int64_t row_size, float init)
{
    const Op op;
    for (int64_t orow = blockIdx.x; orow < num_orows; orow += gridDim.x) {
        for (int64_t irow = (int64_t)blockIdx.y * blockDim.x + threadIdx.x; irow < num_irows;
             irow += (int64_t)gridDim.y * blockDim.x) {
            const float *s = src + orow * row_size * num_irows + irow;
            float *t = tgt + orow * row_size * num_irows + irow;
            float acc = init;
            for (int64_t col = 0; col < row_size; ++col) {
                acc = op(acc, *s);
                *t = acc;
                s += num_irows;
                t += num_irows;
            }
        }
    }
}

/* get_log_num_threads_x_inner_scan */
static int log_num_threads_x_inner(int64_t num_rows, int64_t row_size)
{
    int lx = 0, ly = 0;
    while (((int64_t)1 << lx) < row_size)
        ++lx;
    while (((int64_t)1 << ly) < num_rows)
        ++ly;
    int l = (9 + (lx - ly)) / 2; /* keep x/y threads in the ratio of row_size/num_rows, 512 in all */
    if (l < 4)
        l = 4;
    if (l > 9)
        l = 9;
    return l;
}

template <class Op>
static int scan_impl(kb_ctx *ctx, const float *x, float *y, int64_t outer, int64_t len, int64_t inner, float init)
{
    cudaStream_t stream = kb_ctx_stream(ctx);
    int dev = 0;
    KB_OP_CUDA(ctx, cudaGetDevice(&dev));
    if (outer * inner == 1) {
        /* One row: CUB's device-wide scan, as cuda::cub::inclusive_scan (one call up to 2^30
         * items; ATen chunks longer scans, not supported here). */
        if (len > (int64_t)(INT_MAX / 2 + 1))
            return kb_ctx_fail(ctx, "kb_op_scan: a 1-d scan of %lld elements (> 2^30) is not supported",
                               (long long)len);
        size_t temp_bytes = 0;
        KB_OP_CUDA(ctx, cub::DeviceScan::InclusiveScan(NULL, temp_bytes, x, y, Op(), (int)len, stream));
        void *temp = kb_ctx_alloc(ctx, temp_bytes ? temp_bytes : 1);
        if (!temp)
            return -1;
        const cudaError_t e = cub::DeviceScan::InclusiveScan(temp, temp_bytes, x, y, Op(), (int)len, stream);
        kb_ctx_free(ctx, temp); /* stream-ordered reuse, like PyTorch's caching allocator */
        KB_OP_CUDA(ctx, e);
        return 0;
    }
    if (inner == 1) {
        const int64_t num_rows = outer, row_size = len;
        if (num_rows > UINT32_MAX || row_size > UINT32_MAX) /* ATen's check_fits_in_unsigned */
            return kb_ctx_fail(ctx, "kb_op_scan: %lld rows of %lld do not fit ATen's uint32 sizes",
                               (long long)num_rows, (long long)row_size);
        const int log_x = log_num_threads_x_inner(num_rows, row_size);
        const unsigned ntx = 1u << log_x, nty = 512u / ntx;
        int max_grid = 0;
        KB_OP_CUDA(ctx, cudaDeviceGetAttribute(&max_grid, cudaDevAttrMaxGridDimX, dev));
        int64_t grid = (num_rows + nty - 1) / nty;
        if (grid > max_grid)
            grid = max_grid;
        scan_innermost_dim<Op><<<(unsigned)grid, dim3(ntx, nty), 512 * 2 * sizeof(float), stream>>>(
            y, x, (uint32_t)num_rows, (uint32_t)row_size, (uint32_t)log_x, init);
        KB_OP_LAUNCHED(ctx);
        return 0;
    }
    if (outer > UINT32_MAX || inner > UINT32_MAX || len > UINT32_MAX)
        return kb_ctx_fail(ctx, "kb_op_scan: [%lld, %lld, %lld] does not fit ATen's uint32 sizes",
                           (long long)outer, (long long)len, (long long)inner);
    int max_grid_y = 0;
    KB_OP_CUDA(ctx, cudaDeviceGetAttribute(&max_grid_y, cudaDevAttrMaxGridDimY, dev));
    const unsigned threads = inner < 512 ? (unsigned)inner : 512u;
    const int64_t gx = outer < max_grid_y ? outer : max_grid_y;
    int64_t gy = (inner + threads - 1) / threads;
    if (gy > max_grid_y)
        gy = max_grid_y;
    scan_outer_dim<Op><<<dim3((unsigned)gx, (unsigned)gy), threads, 0, stream>>>(y, x, outer, inner, len, init);
    KB_OP_LAUNCHED(ctx);
    return 0;
}

} /* namespace */

extern "C" int kb_op_scan(kb_ctx *ctx, kb_scan_op op, const float *x, float *y, int64_t outer, int64_t len,
                          int64_t inner)
{
    if (outer < 0 || len < 0 || inner < 0)
        return kb_ctx_fail(ctx, "kb_op_scan: negative extent [%lld, %lld, %lld]", (long long)outer, (long long)len,
                           (long long)inner);
    if (op != KB_SCAN_SUM && op != KB_SCAN_PROD)
        return kb_ctx_fail(ctx, "kb_op_scan: unknown op %d", (int)op);
    if (outer == 0 || len == 0 || inner == 0)
        return 0;
    if (!x || !y)
        return kb_ctx_fail(ctx, "kb_op_scan: NULL tensor pointer");
    if (x == y)
        return kb_ctx_fail(ctx, "kb_op_scan: y must not alias x");
    return op == KB_SCAN_SUM ? scan_impl<AddF>(ctx, x, y, outer, len, inner, 0.0f)
                             : scan_impl<MulF>(ctx, x, y, outer, len, inner, 1.0f);
}

static kb_tensor scan_tensor(kb_ref *r, kb_tensor out, kb_tensor x, int dim, kb_scan_op op, const char *name)
{
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (x.dtype != KB_F32) {
        kb_ref_fail(r, "%s: x must be float32 (dtype %d given)", name, (int)x.dtype);
        return kb_ref_none();
    }
    if (!x.data) {
        kb_ref_fail(r, "%s: x has no data", name);
        return kb_ref_none();
    }
    const int d = kb_norm_dim(r, x, dim);
    /* The structured op allocates the result first, then scan_dim makes x contiguous. */
    kb_tensor y = kb_result(r, out, KB_F32, x.ndim, x.shape, name);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (y.data == x.data) {
        kb_ref_fail(r, "%s: the result must not alias x", name);
        return kb_ref_none();
    }
    if (x.ndim == 0) /* impl_func_cum_ops: result.fill_(self) */
        return kb_copy(r, y, x);
    if (kb_numel(x) == 0)
        return y;
    kb_tensor src = x;
    const int copied = !kb_is_contiguous(x);
    if (copied) /* expect_contiguous(): a contiguous temporary, freed when the scan is done */
        src = kb_copy(r, kb_ref_none(), x); /* KB_NEW */
    if (!kb_ref_ok(r))
        return kb_ref_none();
    int64_t outer, len, inner;
    kb_split_dim(src, d, &outer, &len, &inner);
    kb_ref_check(r, kb_op_scan(kb_ref_ctx(r), op, (const float *)src.data, (float *)y.data, outer, len, inner));
    if (copied)
        kb_drop(r, src);
    return kb_ref_ok(r) ? y : kb_ref_none();
}

extern "C" kb_tensor kb_cumsum(kb_ref *r, kb_tensor out, kb_tensor x, int dim)
{
    return scan_tensor(r, out, x, dim, KB_SCAN_SUM, "kb_cumsum");
}

extern "C" kb_tensor kb_cumprod(kb_ref *r, kb_tensor out, kb_tensor x, int dim)
{
    return scan_tensor(r, out, x, dim, KB_SCAN_PROD, "kb_cumprod");
}
