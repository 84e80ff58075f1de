/*
 * tools/demo-l2/kit/pool.cuh -- the naive kit's pooling: nn.MaxPool1d/2d/3d, nn.AvgPool1d/2d/3d
 * and nn.AdaptiveAvgPoolNd to size 1 (a mean over the spatial dims).
 *
 * One thread per output element, the window walked in (d, h, w) order; every pool is 3-D
 * underneath (missing leading spatial dims have extent 1, kernel 1). PyTorch's output size
 * (pooling_output_shape): floor((in + 2p - d(k-1) - 1 + (ceil_mode ? s-1 : 0)) / s) + 1, less one
 * when ceil_mode's last window would start in the right padding. Max: padding never wins (the
 * window starts at -inf), a NaN does (as torch). Average: the float sum of the window clipped to
 * the input, divided by the window clipped to the padded input (count_include_pad), by the
 * clipped window's size, or by divisor_override.
 * Napkin math: x read once (a window's overlap comes from L1/L2), y written once.
 */

/*@section pool*/
struct nk_pool_geo {
    int64_t in[3], out[3];
    int k[3], s[3], p[3], d[3];
};

template <bool MAX>
static __global__ void __launch_bounds__(256)
nk_pool_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t n, nk_pool_geo g, int count_include_pad,
               int divisor_override)
{
    const int64_t isp = g.in[0] * g.in[1] * g.in[2];
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t t = i;
        const int64_t o2 = t % g.out[2];
        t /= g.out[2];
        const int64_t o1 = t % g.out[1];
        t /= g.out[1];
        const int64_t o0 = t % g.out[0], plane = t / g.out[0];
        const float *xp = x + plane * isp;
        if (MAX) {
            float m = -INFINITY;
            for (int a = 0; a < g.k[0]; a++) {
                const int64_t i0 = o0 * g.s[0] - g.p[0] + (int64_t)a * g.d[0];
                if (i0 < 0 || i0 >= g.in[0])
                    continue;
                for (int b = 0; b < g.k[1]; b++) {
                    const int64_t i1 = o1 * g.s[1] - g.p[1] + (int64_t)b * g.d[1];
                    if (i1 < 0 || i1 >= g.in[1])
                        continue;
                    for (int c = 0; c < g.k[2]; c++) {
                        const int64_t i2 = o2 * g.s[2] - g.p[2] + (int64_t)c * g.d[2];
                        if (i2 < 0 || i2 >= g.in[2])
                            continue;
                        const float v = xp[(i0 * g.in[1] + i1) * g.in[2] + i2];
                        if (v > m || v != v)
                            m = v;
                    }
                }
            }
            y[i] = m;
        } else {
            int64_t lo[3], hi[3];
            const int64_t o[3] = {o0, o1, o2};
            int64_t pool_size = 1, valid = 1;
            for (int e = 0; e < 3; e++) {
                lo[e] = o[e] * g.s[e] - g.p[e];
                hi[e] = lo[e] + g.k[e] < g.in[e] + g.p[e] ? lo[e] + g.k[e] : g.in[e] + g.p[e];
                pool_size *= hi[e] - lo[e];
                lo[e] = lo[e] < 0 ? 0 : lo[e];
                hi[e] = hi[e] < g.in[e] ? hi[e] : g.in[e];
                valid *= hi[e] - lo[e];
            }
            float sum = 0.0f;
            for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
                for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
                    for (int64_t i2 = lo[2]; i2 < hi[2]; i2++)
                        sum += xp[(i0 * g.in[1] + i1) * g.in[2] + i2];
            const int64_t div = divisor_override ? divisor_override : (count_include_pad ? pool_size : valid);
            y[i] = sum / (float)div;
        }
    }
}

static int64_t nk_pool_out(int64_t in, int k, int s, int p, int d, int ceil_mode)
{
    const int64_t num = in + 2 * (int64_t)p - (int64_t)d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1; /* floor division */
    if (ceil_mode && (out - 1) * s >= in + p)
        out--;
    return out;
}

/* nd spatial dims, one int per dim (D, H, W order); stride 0 = the kernel size. */
static nk_tensor nk_pool_nd(nk_ref *r, nk_tensor out, nk_tensor x, int nd, const int *k, const int *s, const int *p,
                            const int *d, int ceil_mode, bool max, int count_include_pad, int divisor_override,
                            const char *op)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (x.dtype != KB_F32 || !nk_is_contiguous(x) || nd < 1 || nd > 3 || x.ndim < nd + 1)
        return nk_fail(r, NK_BAD_ARGS, op);
    nk_pool_geo g;
    int64_t shape[NK_MAX_DIMS];
    for (int e = 0; e < x.ndim; e++)
        shape[e] = x.shape[e];
    for (int e = 0; e < 3; e++) {
        const int a = e - (3 - nd);
        g.in[e] = a >= 0 ? x.shape[x.ndim - nd + a] : 1;
        g.k[e] = a >= 0 ? k[a] : 1;
        g.s[e] = a >= 0 ? (s[a] > 0 ? s[a] : k[a]) : 1;
        g.p[e] = a >= 0 ? p[a] : 0;
        g.d[e] = a >= 0 ? d[a] : 1;
        if (g.k[e] < 1 || g.s[e] < 1 || g.d[e] < 1 || g.p[e] < 0 || 2 * g.p[e] > g.k[e])
            return nk_fail(r, NK_BAD_ARGS, op); /* PyTorch's argument checks */
        g.out[e] = nk_pool_out(g.in[e], g.k[e], g.s[e], g.p[e], g.d[e], ceil_mode);
        if (g.out[e] < 1)
            return nk_fail(r, NK_BAD_ARGS, op);
        if (a >= 0)
            shape[x.ndim - nd + a] = g.out[e];
    }
    nk_tensor y = nk_result(r, out, KB_F32, x.ndim, shape, op);
    if (r->status != NK_OK)
        return NK_NEW;
    const int64_t n = nk_numel(y), blocks = (n + 255) / 256;
    const unsigned grid = (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
    if (max)
        nk_pool_kernel<true><<<grid, 256, 0, r->stream>>>((const float *)x.data, (float *)y.data, n, g, 0, 0);
    else
        nk_pool_kernel<false><<<grid, 256, 0, r->stream>>>((const float *)x.data, (float *)y.data, n, g,
                                                           count_include_pad, divisor_override);
    nk_launched(r, op);
    return r->status == NK_OK ? y : NK_NEW;
}

/*@section nk_max_pool1d needs=pool*/
static nk_tensor nk_max_pool1d(nk_ref *r, nk_tensor out, nk_tensor x, int kernel_size, int stride, int padding,
                               int dilation, int ceil_mode)
{
    return nk_pool_nd(r, out, x, 1, &kernel_size, &stride, &padding, &dilation, ceil_mode, true, 0, 0, "nk_max_pool1d");
}

/*@section nk_max_pool2d needs=pool*/
static nk_tensor nk_max_pool2d(nk_ref *r, nk_tensor out, nk_tensor x, int kernel_size, int stride, int padding,
                               int dilation, int ceil_mode)
{
    const int k[2] = {kernel_size, kernel_size}, s[2] = {stride, stride}, p[2] = {padding, padding},
              d[2] = {dilation, dilation};
    return nk_pool_nd(r, out, x, 2, k, s, p, d, ceil_mode, true, 0, 0, "nk_max_pool2d");
}

/*@section nk_max_pool3d needs=pool*/
static nk_tensor nk_max_pool3d(nk_ref *r, nk_tensor out, nk_tensor x, int kernel_size, int stride, int padding,
                               int dilation, int ceil_mode)
{
    const int k[3] = {kernel_size, kernel_size, kernel_size}, s[3] = {stride, stride, stride},
              p[3] = {padding, padding, padding}, d[3] = {dilation, dilation, dilation};
    return nk_pool_nd(r, out, x, 3, k, s, p, d, ceil_mode, true, 0, 0, "nk_max_pool3d");
}

/*@section nk_avg_pool1d needs=pool*/
static nk_tensor nk_avg_pool1d(nk_ref *r, nk_tensor out, nk_tensor x, int kernel_size, int stride, int padding,
                               int ceil_mode, int count_include_pad)
{
    const int one = 1;
    return nk_pool_nd(r, out, x, 1, &kernel_size, &stride, &padding, &one, ceil_mode, false, count_include_pad, 0,
                      "nk_avg_pool1d");
}

/*@section nk_avg_pool2d needs=pool*/
static nk_tensor nk_avg_pool2d(nk_ref *r, nk_tensor out, nk_tensor x, int kernel_size, int stride, int padding,
                               int ceil_mode, int count_include_pad, int divisor_override)
{
    const int k[2] = {kernel_size, kernel_size}, s[2] = {stride, stride}, p[2] = {padding, padding}, d[2] = {1, 1};
    return nk_pool_nd(r, out, x, 2, k, s, p, d, ceil_mode, false, count_include_pad, divisor_override,
                      "nk_avg_pool2d");
}

/*@section nk_avg_pool3d needs=pool*/
static nk_tensor nk_avg_pool3d(nk_ref *r, nk_tensor out, nk_tensor x, int kernel_size, int stride, int padding,
                               int ceil_mode, int count_include_pad, int divisor_override)
{
    const int k[3] = {kernel_size, kernel_size, kernel_size}, s[3] = {stride, stride, stride},
              p[3] = {padding, padding, padding}, d[3] = {1, 1, 1};
    return nk_pool_nd(r, out, x, 3, k, s, p, d, ceil_mode, false, count_include_pad, divisor_override,
                      "nk_avg_pool3d");
}

/*@section nk_adaptive_avg_pool_nd needs=sum_impl*/
/* nn.AdaptiveAvgPoolNd(output_size) with every output size 1: the mean over the last nd dims,
 * kept as size 1 (x.mean(spatial, keepdim=True)). Other output sizes are not in any chain. */
static nk_tensor nk_adaptive_avg_pool_nd(nk_ref *r, nk_tensor out, nk_tensor x, int nd, const int64_t *output_size)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (nd < 1 || nd > 3 || x.ndim < nd + 1)
        return nk_fail(r, NK_BAD_ARGS, "nk_adaptive_avg_pool_nd");
    bool reduced[NK_MAX_DIMS] = {};
    for (int e = 0; e < nd; e++) {
        if (output_size[e] != 1)
            return nk_fail(r, NK_BAD_ARGS, "nk_adaptive_avg_pool_nd: only output size 1");
        reduced[x.ndim - nd + e] = true;
    }
    return nk_sum_impl(r, out, x, reduced, 1, true, "nk_adaptive_avg_pool_nd");
}
