/*
 * tools/demo-l2/kit/softmax.cuh -- the naive kit's torch.softmax(x, dim), stable.
 *
 * x contiguous, seen as [outer, len, inner] around dim. Three passes over each softmax vector:
 * its max (NaN propagates: a NaN anywhere makes the whole vector NaN, as in torch), the sum of
 * exp(x - max) in double, then y = exp(x - max) / sum. A row (inner == 1) goes to a warp when it
 * has up to 2048 elements, to a block of 256 when longer; a middle dim (inner > 1: softmax over
 * the channels of NCDHW) to one thread per (outer, inner) position, whose loads along len are
 * strided by inner but coalesced across the warp (consecutive threads, consecutive positions).
 * Napkin math: x read three times (the second and third mostly from L2 for a row), y written
 * once.
 */

/*@section nk_softmax needs=group_reduce,dim_norm,dim_split*/
template <int TPR>
static __global__ void __launch_bounds__(256)
nk_softmax_rows(const float *__restrict__ x, float *__restrict__ y, int64_t rows, int64_t len)
{
    __shared__ float shf[8];
    __shared__ double shd[8];
    const int64_t row = (int64_t)blockIdx.x * (256 / TPR) + threadIdx.x / TPR;
    const int lane = threadIdx.x % TPR;
    const bool live = row < rows; /* idle groups still take part in the group reductions */
    const float *xr = x + (live ? row : 0) * len;
    float m = -INFINITY;
    for (int64_t l = lane; l < len && live; l += TPR)
        m = nk_max_nan(m, xr[l]);
    m = nk_group_max<TPR>(m, shf);
    double s = 0.0;
    for (int64_t l = lane; l < len && live; l += TPR)
        s += (double)expf(xr[l] - m);
    const float sum = (float)nk_group_sum<TPR>(s, shd);
    for (int64_t l = lane; l < len && live; l += TPR)
        y[row * len + l] = expf(xr[l] - m) / sum;
}

static __global__ void __launch_bounds__(256)
nk_softmax_cols(const float *__restrict__ x, float *__restrict__ y, int64_t outer, int64_t len, int64_t inner)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= outer * inner)
        return;
    const int64_t o = t / inner, col = t - o * inner, base = o * len * inner + col;
    float m = -INFINITY;
    for (int64_t l = 0; l < len; l++)
        m = nk_max_nan(m, x[base + l * inner]);
    double s = 0.0;
    for (int64_t l = 0; l < len; l++)
        s += (double)expf(x[base + l * inner] - m);
    const float sum = (float)s;
    for (int64_t l = 0; l < len; l++)
        y[base + l * inner] = expf(x[base + l * inner] - m) / sum;
}

static nk_tensor nk_softmax(nk_ref *r, nk_tensor out, nk_tensor x, int dim)
{
    if (r->status != NK_OK)
        return NK_NEW;
    const int d = nk_norm_dim(dim, x.ndim);
    if (d < 0 || x.dtype != KB_F32 || !nk_is_contiguous(x))
        return nk_fail(r, NK_BAD_ARGS, "nk_softmax");
    bool reduced[NK_MAX_DIMS] = {};
    reduced[d] = true;
    int64_t outer, len, inner;
    nk_split_reduced(x, reduced, &outer, &len, &inner);
    nk_tensor y = nk_result(r, out, KB_F32, x.ndim, x.shape, "nk_softmax");
    if (r->status != NK_OK)
        return NK_NEW;
    const float *xp = (const float *)x.data;
    float *yp = (float *)y.data;
    if (inner > 1)
        nk_softmax_cols<<<(unsigned)((outer * inner + 255) / 256), 256, 0, r->stream>>>(xp, yp, outer, len, inner);
    else if (len > 2048)
        nk_softmax_rows<256><<<(unsigned)outer, 256, 0, r->stream>>>(xp, yp, outer, len);
    else
        nk_softmax_rows<32><<<(unsigned)((outer + 7) / 8), 256, 0, r->stream>>>(xp, yp, outer, len);
    nk_launched(r, "nk_softmax");
    return r->status == NK_OK ? y : NK_NEW;
}
