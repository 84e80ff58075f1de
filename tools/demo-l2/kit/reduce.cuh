/*
 * tools/demo-l2/kit/reduce.cuh -- the naive kit's reductions: sum / mean over one dim or a set of
 * neighbouring dims, torch.max / torch.min over a dim (values and int64 indices), logsumexp; and
 * the partial-sum machinery the normalisations (norm.cuh) share.
 *
 * A reduction sees a contiguous x as [outer, len, inner] and reduces len:
 *   inner == 1  (rows)     a group of threads per row: a warp for rows up to 2048 elements, a
 *                          block of 256 for longer ones, and a long row split into chunks
 *                          (blocks) so that a few rows still fill the GPU;
 *   inner > 1   (columns)  a block of 32 columns x 8 row groups: a warp reads 32 consecutive
 *                          floats of one row (coalesced), the 8 row groups are combined in
 *                          shared memory; long columns are split into chunks as well.
 * Sums accumulate in double (each thread's strided partial, then a fixed-order tree, then the
 * chunks in order), so they are deterministic and their error is ~1e-16 relative, far inside the
 * strict bound of 2^-24 sqrt(terms) sum|terms| (a serial FP32 sum of 10^8 terms would not be).
 * Max / min propagate NaN and keep the first index of the extreme (ties: the lowest index; the
 * first NaN wins), as torch.max(x, dim). logsumexp is PyTorch's: m = amax (NaN propagates), m = 0
 * where |m| = inf, log(sum exp(x - m)) + m.
 * Napkin math: each pass reads x once: ~0.25 ms per GiB at ~4.3 TB/s.
 */

/*@section sums*/
#define NK_RED_THREADS 256

/* Partial sums of rows of length len (row `row` at x + row * len), one per (row, chunk) unit of
 * TPR threads; CENTERED: of (x - mean[row % stat_mod])^2 instead of x. */
template <int TPR, bool CENTERED>
static __global__ void __launch_bounds__(NK_RED_THREADS)
nk_row_sums(const float *__restrict__ x, int64_t units, int chunks, int64_t len, int64_t chunk,
            const double *__restrict__ mean, int64_t stat_mod, double *__restrict__ partial)
{
    __shared__ double warp_sum[NK_RED_THREADS / 32];
    const int lane = threadIdx.x % TPR;
    const int64_t u = (int64_t)blockIdx.x * (NK_RED_THREADS / TPR) + threadIdx.x / TPR;
    double s = 0.0;
    if (u < units) {
        const int64_t row = u / chunks, lo = (u - row * chunks) * chunk;
        const int64_t hi = lo + chunk < len ? lo + chunk : len;
        const float *xr = x + row * len;
        const double mu = CENTERED ? mean[row % stat_mod] : 0.0;
        for (int64_t i = lo + lane; i < hi; i += TPR) {
            const double v = (double)xr[i];
            s += CENTERED ? (v - mu) * (v - mu) : v;
        }
    }
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if (TPR == 32) {
        if (lane == 0 && u < units)
            partial[u] = s;
    } else {
        if (threadIdx.x % 32 == 0)
            warp_sum[threadIdx.x / 32] = s;
        __syncthreads();
        if (threadIdx.x == 0 && u < units) {
            double t = 0.0;
            for (int w = 0; w < NK_RED_THREADS / 32; w++)
                t += warp_sum[w];
            partial[u] = t;
        }
    }
}

/* Partial sums of the columns of each [len, inner] slab: partial[(o * inner + col) * chunks + k];
 * CENTERED: of (x - mean[o * inner + col])^2. */
template <bool CENTERED>
static __global__ void __launch_bounds__(NK_RED_THREADS)
nk_col_sums(const float *__restrict__ x, int64_t len, int64_t inner, int64_t tiles, int64_t chunk,
            const double *__restrict__ mean, double *__restrict__ partial)
{
    __shared__ double part[8][33];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    const int64_t o = blockIdx.x / tiles, col = (blockIdx.x % tiles) * 32 + tx;
    const int64_t k = blockIdx.y, chunks = gridDim.y;
    double s = 0.0;
    if (col < inner) {
        const int64_t lo = k * chunk, hi = lo + chunk < len ? lo + chunk : len;
        const float *xc = x + o * len * inner + col;
        const double mu = CENTERED ? mean[o * inner + col] : 0.0;
        for (int64_t l = lo + ty; l < hi; l += 8) {
            const double v = (double)xc[l * inner];
            s += CENTERED ? (v - mu) * (v - mu) : v;
        }
    }
    part[ty][tx] = s;
    __syncthreads();
    if (ty == 0 && col < inner) {
        double t = 0.0;
        for (int g = 0; g < 8; g++)
            t += part[g][tx];
        partial[(o * inner + col) * chunks + k] = t;
    }
}

/* out[j] = scale * S_j (rstd: 1 / sqrt(scale * S_j + eps)) with S_j the sum, in order, of
 * partial[(a * a_stride + j) * chunks + k] over a < A, k < chunks. */
template <class T>
static __global__ void __launch_bounds__(256)
nk_sums_finish(const double *__restrict__ partial, int64_t nstat, int64_t A, int64_t a_stride, int chunks,
               double scale, bool rstd, double eps, T *__restrict__ out)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nstat)
        return;
    double s = 0.0;
    for (int64_t a = 0; a < A; a++)
        for (int k = 0; k < chunks; k++)
            s += partial[(a * a_stride + j) * chunks + k];
    double v = s * scale;
    if (rstd)
        v = 1.0 / sqrt(v + eps);
    out[j] = (T)v;
}

/* Partial sums of x as [outer, len, inner] over len (CENTERED with mean: of squared deviations;
 * the mean of row o is mean[o % stat_mod] for inner == 1, of column (o, i) mean[o * inner + i]).
 * Returns the partials (scratch, [outer * inner, chunks]) and their chunk count. */
template <bool CENTERED>
static double *nk_partial_sums(nk_ref *r, const float *x, int64_t outer, int64_t len, int64_t inner,
                               const double *mean, int64_t stat_mod, int *chunks_out)
{
    if (r->status != NK_OK)
        return NULL;
    int64_t chunks = 1;
    const int64_t target = 1024; /* blocks: ~8 per SM of an H200 */
    if (inner == 1) {
        const bool wide = len > 2048;
        if (wide) {
            const int64_t want = (target + outer - 1) / outer, most = (len + 8191) / 8192; /* >= 32 per thread */
            chunks = want < most ? want : most;
            chunks = chunks < 1 ? 1 : chunks;
        }
        const int64_t chunk = (len + chunks - 1) / chunks, units = outer * chunks;
        double *partial = (double *)nk_alloc(r, (size_t)units * sizeof(double));
        if (!partial)
            return NULL;
        if (wide) {
            if (units > 0x7fffffff) {
                nk_fail(r, NK_BAD_ARGS, "nk_partial_sums: grid");
                return NULL;
            }
            nk_row_sums<256, CENTERED><<<(unsigned)units, NK_RED_THREADS, 0, r->stream>>>(
                x, units, (int)chunks, len, chunk, mean, stat_mod, partial);
        } else {
            const int64_t blocks = (units + 7) / 8;
            if (blocks > 0x7fffffff) {
                nk_fail(r, NK_BAD_ARGS, "nk_partial_sums: grid");
                return NULL;
            }
            nk_row_sums<32, CENTERED><<<(unsigned)blocks, NK_RED_THREADS, 0, r->stream>>>(
                x, units, (int)chunks, len, chunk, mean, stat_mod, partial);
        }
        nk_launched(r, "nk_row_sums");
        *chunks_out = (int)chunks;
        return partial;
    }
    const int64_t tiles = (inner + 31) / 32, blocks = outer * tiles;
    const int64_t want = (target + blocks - 1) / blocks, most = (len + 255) / 256; /* >= 32 per thread */
    chunks = want < most ? want : most;
    chunks = chunks < 1 ? 1 : (chunks > 65535 ? 65535 : chunks);
    const int64_t chunk = (len + chunks - 1) / chunks;
    double *partial = (double *)nk_alloc(r, (size_t)(outer * inner * chunks) * sizeof(double));
    if (!partial)
        return NULL;
    if (blocks > 0x7fffffff) {
        nk_fail(r, NK_BAD_ARGS, "nk_partial_sums: grid");
        return NULL;
    }
    nk_col_sums<CENTERED><<<dim3((unsigned)blocks, (unsigned)chunks), NK_RED_THREADS, 0, r->stream>>>(
        x, len, inner, tiles, chunk, mean, partial);
    nk_launched(r, "nk_col_sums");
    *chunks_out = (int)chunks;
    return partial;
}

template <class T>
static void nk_finish(nk_ref *r, const double *partial, int64_t nstat, int64_t A, int64_t a_stride, int chunks,
                      double scale, bool rstd, double eps, T *out)
{
    if (r->status != NK_OK)
        return;
    nk_sums_finish<T><<<(unsigned)((nstat + 255) / 256), 256, 0, r->stream>>>(partial, nstat, A, a_stride, chunks,
                                                                               scale, rstd, eps, out);
    nk_launched(r, "nk_sums_finish");
}

/*@section sum_impl needs=sums,dim_split,dim_shape*/
/* x.sum(dims) / x.mean(dims) over the flagged dims (neighbours) of a contiguous x. */
static nk_tensor nk_sum_impl(nk_ref *r, nk_tensor out, nk_tensor x, const bool *reduced, int keepdim, bool mean,
                             const char *op)
{
    if (r->status != NK_OK)
        return NK_NEW;
    int64_t outer, len, inner, shape[NK_MAX_DIMS];
    if (x.dtype != KB_F32 || !nk_is_contiguous(x) || !nk_split_reduced(x, reduced, &outer, &len, &inner))
        return nk_fail(r, NK_BAD_ARGS, op);
    const int nd = nk_reduced_shape(x, reduced, keepdim, shape);
    nk_tensor y = nk_result(r, out, KB_F32, nd, shape, op);
    int chunks = 1;
    double *partial = nk_partial_sums<false>(r, (const float *)x.data, outer, len, inner, NULL, 1, &chunks);
    nk_finish<float>(r, partial, outer * inner, 1, 0, chunks, mean ? 1.0 / (double)len : 1.0, false, 0.0,
                     (float *)y.data);
    nk_free(r, partial);
    return r->status == NK_OK ? y : NK_NEW;
}

/*@section flag_dims*/
/* the flags of dims[0..ndims) (Python style); ndims == 0 flags every dim, as dim=[] */
static bool nk_flag_dims(const nk_tensor &x, const int *dims, int ndims, bool *reduced)
{
    for (int d = 0; d < NK_MAX_DIMS; d++)
        reduced[d] = ndims == 0;
    for (int i = 0; i < ndims; i++) {
        const int d = dims[i] < 0 ? dims[i] + x.ndim : dims[i];
        if (d < 0 || d >= x.ndim)
            return false;
        reduced[d] = true;
    }
    return true;
}

/*@section nk_sum needs=sum_impl,flag_dims*/
/* x.sum(dim, keepdim) */
static nk_tensor nk_sum(nk_ref *r, nk_tensor out, nk_tensor x, int dim, int keepdim)
{
    bool reduced[NK_MAX_DIMS];
    if (!nk_flag_dims(x, &dim, 1, reduced))
        return nk_fail(r, NK_BAD_ARGS, "nk_sum: dim");
    return nk_sum_impl(r, out, x, reduced, keepdim, false, "nk_sum");
}

/*@section nk_mean needs=sum_impl,flag_dims*/
/* x.mean(dim, keepdim) */
static nk_tensor nk_mean(nk_ref *r, nk_tensor out, nk_tensor x, int dim, int keepdim)
{
    bool reduced[NK_MAX_DIMS];
    if (!nk_flag_dims(x, &dim, 1, reduced))
        return nk_fail(r, NK_BAD_ARGS, "nk_mean: dim");
    return nk_sum_impl(r, out, x, reduced, keepdim, true, "nk_mean");
}

/*@section nk_sum_dims needs=sum_impl,flag_dims*/
/* x.sum(dims, keepdim) over neighbouring dims */
static nk_tensor nk_sum_dims(nk_ref *r, nk_tensor out, nk_tensor x, const int *dims, int ndims, int keepdim)
{
    bool reduced[NK_MAX_DIMS];
    if (!nk_flag_dims(x, dims, ndims, reduced))
        return nk_fail(r, NK_BAD_ARGS, "nk_sum_dims: dims");
    return nk_sum_impl(r, out, x, reduced, keepdim, false, "nk_sum_dims");
}

/*@section nk_mean_dims needs=sum_impl,flag_dims*/
/* x.mean(dims, keepdim) over neighbouring dims */
static nk_tensor nk_mean_dims(nk_ref *r, nk_tensor out, nk_tensor x, const int *dims, int ndims, int keepdim)
{
    bool reduced[NK_MAX_DIMS];
    if (!nk_flag_dims(x, dims, ndims, reduced))
        return nk_fail(r, NK_BAD_ARGS, "nk_mean_dims: dims");
    return nk_sum_impl(r, out, x, reduced, keepdim, true, "nk_mean_dims");
}

/*@section group_reduce*/
/* Reductions over a group of TPR threads (a warp, or a block of 256) that every thread of the
 * group ends with, in a fixed order (deterministic). sh: 8 slots of shared memory. */
static __device__ __forceinline__ float nk_max_nan(float a, float b) { return (a != a || b != b) ? NAN : fmaxf(a, b); }

template <int TPR> static __device__ float nk_group_max(float v, float *sh)
{
    for (int o = 16; o > 0; o >>= 1)
        v = nk_max_nan(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (TPR == 32)
        return v;
    if (threadIdx.x % 32 == 0)
        sh[threadIdx.x / 32] = v;
    __syncthreads();
    v = sh[0];
    for (int w = 1; w < TPR / 32; w++)
        v = nk_max_nan(v, sh[w]);
    __syncthreads();
    return v;
}

template <int TPR> static __device__ double nk_group_sum(double v, double *sh)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if (TPR == 32)
        return v;
    if (threadIdx.x % 32 == 0)
        sh[threadIdx.x / 32] = v;
    __syncthreads();
    v = sh[0];
    for (int w = 1; w < TPR / 32; w++)
        v += sh[w];
    __syncthreads();
    return v;
}

/*@section argext needs=dim_norm,dim_split,dim_shape*/
/* Is (v, i) preferred over the current (best, bi)? A NaN wins; equal values and two NaNs: the
 * lower index. */
template <bool MAX> static __device__ __forceinline__ bool nk_better(float v, int64_t i, float best, int64_t bi)
{
    if (best != best)
        return v != v && i < bi;
    if (v != v)
        return true;
    if (v == best)
        return i < bi;
    return MAX ? v > best : v < best;
}

/* inner > 1: a thread per (o, column), scanning len in order */
template <bool MAX>
static __global__ void __launch_bounds__(256)
nk_argext_cols(const float *__restrict__ x, int64_t outer, int64_t len, int64_t inner, float *__restrict__ values,
               int64_t *__restrict__ indices)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= outer * inner)
        return;
    const int64_t o = t / inner, col = t - o * inner;
    const float *xc = x + o * len * inner + col;
    float best = xc[0];
    int64_t bi = 0;
    for (int64_t l = 1; l < len; l++) {
        const float v = xc[l * inner];
        if (nk_better<MAX>(v, l, best, bi)) {
            best = v;
            bi = l;
        }
    }
    values[t] = best;
    if (indices)
        indices[t] = bi;
}

/* inner == 1: a warp per row, lanes strided, then a shuffle combine */
template <bool MAX>
static __global__ void __launch_bounds__(256)
nk_argext_rows(const float *__restrict__ x, int64_t rows, int64_t len, float *__restrict__ values,
               int64_t *__restrict__ indices)
{
    const int64_t row = (int64_t)blockIdx.x * 8 + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    float best = NAN;
    int64_t bi = -1; /* none yet */
    if (row < rows) {
        const float *xr = x + row * len;
        for (int64_t l = lane; l < len; l += 32) {
            const float v = xr[l];
            if (bi < 0 || nk_better<MAX>(v, l, best, bi)) {
                best = v;
                bi = l;
            }
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        const float v = __shfl_xor_sync(0xffffffffu, best, o);
        const int64_t i = __shfl_xor_sync(0xffffffffu, bi, o);
        if (i >= 0 && (bi < 0 || nk_better<MAX>(v, i, best, bi))) {
            best = v;
            bi = i;
        }
    }
    if (lane == 0 && row < rows) {
        values[row] = best;
        if (indices)
            indices[row] = bi;
    }
}

/* torch.max(x, dim) / torch.min(x, dim): values, and the int64 indices into `indices` unless it is
 * NK_NEW (then they are not computed: eager's are dropped unread in every such chain). */
template <bool MAX>
static nk_tensor nk_argext(nk_ref *r, nk_tensor values, nk_tensor indices, nk_tensor x, int dim, int keepdim,
                           const char *op)
{
    if (r->status != NK_OK)
        return NK_NEW;
    const int d = nk_norm_dim(dim, x.ndim);
    if (d < 0 || x.dtype != KB_F32 || !nk_is_contiguous(x) || x.shape[d] == 0)
        return nk_fail(r, NK_BAD_ARGS, op);
    bool reduced[NK_MAX_DIMS] = {};
    reduced[d] = true;
    int64_t outer, len, inner, shape[NK_MAX_DIMS];
    nk_split_reduced(x, reduced, &outer, &len, &inner);
    const int nd = nk_reduced_shape(x, reduced, keepdim, shape);
    nk_tensor v = nk_result(r, values, KB_F32, nd, shape, op);
    nk_tensor ix = indices.data ? nk_result(r, indices, KB_I64, nd, shape, op) : NK_NEW;
    if (r->status != NK_OK)
        return NK_NEW;
    if (inner > 1) {
        nk_argext_cols<MAX><<<(unsigned)((outer * inner + 255) / 256), 256, 0, r->stream>>>(
            (const float *)x.data, outer, len, inner, (float *)v.data, (int64_t *)ix.data);
    } else {
        nk_argext_rows<MAX><<<(unsigned)((outer + 7) / 8), 256, 0, r->stream>>>((const float *)x.data, outer, len,
                                                                              (float *)v.data, (int64_t *)ix.data);
    }
    nk_launched(r, op);
    return r->status == NK_OK ? v : NK_NEW;
}

/*@section nk_max_dim needs=argext*/
static nk_tensor nk_max_dim(nk_ref *r, nk_tensor values, nk_tensor indices, nk_tensor x, int dim, int keepdim)
{
    return nk_argext<true>(r, values, indices, x, dim, keepdim, "nk_max_dim");
}

/*@section nk_min_dim needs=argext*/
static nk_tensor nk_min_dim(nk_ref *r, nk_tensor values, nk_tensor indices, nk_tensor x, int dim, int keepdim)
{
    return nk_argext<false>(r, values, indices, x, dim, keepdim, "nk_min_dim");
}

/*@section nk_logsumexp needs=group_reduce,dim_split,dim_shape*/
/* rows (inner == 1): TPR threads per row */
template <int TPR>
static __global__ void __launch_bounds__(256)
nk_lse_rows(const float *__restrict__ x, int64_t rows, int64_t len, float *__restrict__ y)
{
    __shared__ float shf[8];
    __shared__ double shd[8];
    const int64_t row = (int64_t)blockIdx.x * (256 / TPR) + threadIdx.x / TPR;
    const int lane = threadIdx.x % TPR;
    const float *xr = x + (row < rows ? row : 0) * len; /* idle groups still take part in the shuffles */
    float m = -INFINITY;
    for (int64_t l = lane; l < len && row < rows; l += TPR)
        m = nk_max_nan(m, xr[l]);
    m = nk_group_max<TPR>(m, shf);
    const float mm = isinf(m) ? 0.0f : m;
    double s = 0.0;
    for (int64_t l = lane; l < len && row < rows; l += TPR)
        s += (double)expf(xr[l] - mm);
    s = nk_group_sum<TPR>(s, shd);
    if (lane == 0 && row < rows)
        y[row] = logf((float)s) + mm;
}

/* columns (inner > 1): a thread per (o, column) */
static __global__ void __launch_bounds__(256)
nk_lse_cols(const float *__restrict__ x, int64_t outer, int64_t len, int64_t inner, float *__restrict__ y)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= outer * inner)
        return;
    const int64_t o = t / inner, col = t - o * inner;
    const float *xc = x + o * len * inner + col;
    float m = -INFINITY;
    for (int64_t l = 0; l < len; l++)
        m = nk_max_nan(m, xc[l * inner]);
    const float mm = isinf(m) ? 0.0f : m;
    double s = 0.0;
    for (int64_t l = 0; l < len; l++)
        s += (double)expf(xc[l * inner] - mm);
    y[t] = logf((float)s) + mm;
}

/* torch.logsumexp(x, dims, keepdim) over neighbouring dims of a contiguous x */
static nk_tensor nk_logsumexp(nk_ref *r, nk_tensor out, nk_tensor x, const int *dims, int ndims, int keepdim)
{
    if (r->status != NK_OK)
        return NK_NEW;
    bool reduced[NK_MAX_DIMS];
    for (int d = 0; d < NK_MAX_DIMS; d++)
        reduced[d] = ndims == 0;
    for (int i = 0; i < ndims; i++) {
        const int d = dims[i] < 0 ? dims[i] + x.ndim : dims[i];
        if (d < 0 || d >= x.ndim)
            return nk_fail(r, NK_BAD_ARGS, "nk_logsumexp: dims");
        reduced[d] = true;
    }
    int64_t outer, len, inner, shape[NK_MAX_DIMS];
    if (x.dtype != KB_F32 || !nk_is_contiguous(x) || !nk_split_reduced(x, reduced, &outer, &len, &inner))
        return nk_fail(r, NK_BAD_ARGS, "nk_logsumexp");
    const int nd = nk_reduced_shape(x, reduced, keepdim, shape);
    nk_tensor y = nk_result(r, out, KB_F32, nd, shape, "nk_logsumexp");
    if (r->status != NK_OK)
        return NK_NEW;
    const float *xp = (const float *)x.data;
    if (inner > 1)
        nk_lse_cols<<<(unsigned)((outer * inner + 255) / 256), 256, 0, r->stream>>>(xp, outer, len, inner,
                                                                                   (float *)y.data);
    else if (len > 2048)
        nk_lse_rows<256><<<(unsigned)outer, 256, 0, r->stream>>>(xp, outer, len, (float *)y.data);
    else
        nk_lse_rows<32><<<(unsigned)((outer + 7) / 8), 256, 0, r->stream>>>(xp, outer, len, (float *)y.data);
    nk_launched(r, "nk_logsumexp");
    return r->status == NK_OK ? y : NK_NEW;
}
