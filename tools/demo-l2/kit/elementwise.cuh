/*
 * tools/demo-l2/kit/elementwise.cuh -- the naive kit's elementwise ops: unary activations,
 * tensor (op) tensor with PyTorch's broadcasting, tensor (op) scalar, copies, fills, dropout.
 *
 * One launch per op, as one eager op is one kernel. Two kernels do all of it:
 *   nk_ew_flat     every operand contiguous with the result's shape: one flat index, four
 *                  elements per thread per step, float4 loads and stores when every pointer is
 *                  16-byte aligned (a stream of independent 16-byte accesses: bandwidth-bound).
 *   nk_ew_strided  broadcasting or strided operands: the result's shape collapsed first (size-1
 *                  dims dropped, neighbours merged where every operand's strides allow: a bias
 *                  (C, 1, 1) over (N, C, H, W) becomes [N, C, H*W] with strides [0, 1, 0]), then
 *                  one index decomposition per element, in 32-bit arithmetic when the result has
 *                  fewer than 2^31 elements (64-bit division costs ~4x more and would make a
 *                  broadcast add compute-bound), 64-bit otherwise.
 * Formulas are PyTorch's for float (ATen's CUDA functors, opmath = float): NaN propagates through
 * relu, clamp, hardtanh, minimum and hardswish as in torch; GELU is the erf form; mish is
 * x * tanh(log1p(exp(x))) (torch's mish has no threshold: exp overflowing to inf gives x);
 * softplus switches to x above its threshold; a division by a Python scalar is a multiply by
 * its float reciprocal (div_true_kernel_cuda with a CPU scalar).
 * Napkin math: a 1 GiB float tensor read and written once costs ~0.5 ms at ~4.3 TB/s.
 */

/*@section ew*/
#define NK_EW_THREADS 256

/* The operands of one launch: pointers and strides over the (collapsed) result shape. */
template <int NIN> struct nk_ew_geom {
    const float *in[NIN];
    int64_t stride[NIN][NK_MAX_DIMS];
    int64_t shape[NK_MAX_DIMS];
    int nd;
};

template <int NIN, class F> static __device__ __forceinline__ float nk_ew_apply(const F &f, const float *v)
{
    if constexpr (NIN == 1)
        return f(v[0]);
    else
        return f(v[0], v[1]);
}

/* No __restrict__: an op may write in place into an operand of the result's shape. */
template <int NIN, bool VEC4, class F>
static __global__ void __launch_bounds__(NK_EW_THREADS) nk_ew_flat(float *y, nk_ew_geom<NIN> g, int64_t n, F f)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x * 4;
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * 4; i < n; i += step) {
        if (VEC4 && i + 3 < n) {
            float a[NIN][4];
#pragma unroll
            for (int k = 0; k < NIN; k++) {
                const float4 t = *reinterpret_cast<const float4 *>(g.in[k] + i);
                a[k][0] = t.x;
                a[k][1] = t.y;
                a[k][2] = t.z;
                a[k][3] = t.w;
            }
            float o[4];
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float v[NIN];
#pragma unroll
                for (int k = 0; k < NIN; k++)
                    v[k] = a[k][e];
                o[e] = nk_ew_apply<NIN>(f, v);
            }
            *reinterpret_cast<float4 *>(y + i) = make_float4(o[0], o[1], o[2], o[3]);
        } else {
            for (int64_t j = i; j < i + 4 && j < n; j++) {
                float v[NIN];
#pragma unroll
                for (int k = 0; k < NIN; k++)
                    v[k] = g.in[k][j];
                y[j] = nk_ew_apply<NIN>(f, v);
            }
        }
    }
}

template <int NIN, class IDX, class F>
static __global__ void __launch_bounds__(NK_EW_THREADS) nk_ew_strided(float *y, nk_ew_geom<NIN> g, IDX n, F f)
{
    const IDX step = (IDX)gridDim.x * blockDim.x;
    for (IDX i = (IDX)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        IDX rem = i, off[NIN];
#pragma unroll
        for (int k = 0; k < NIN; k++)
            off[k] = 0;
        for (int d = g.nd - 1; d > 0; d--) {
            const IDX s = (IDX)g.shape[d], c = rem % s;
            rem /= s;
#pragma unroll
            for (int k = 0; k < NIN; k++)
                off[k] += c * (IDX)g.stride[k][d];
        }
        float v[NIN];
#pragma unroll
        for (int k = 0; k < NIN; k++)
            v[k] = g.in[k][off[k] + rem * (IDX)g.stride[k][0]];
        y[i] = nk_ew_apply<NIN>(f, v);
    }
}

/* y = f(x...) with broadcasting: the result has the broadcast shape (trailing dims aligned). */
template <int NIN, class F>
static nk_tensor nk_ew(nk_ref *r, nk_tensor out, const nk_tensor *x, F f, const char *op)
{
    if (r->status != NK_OK)
        return NK_NEW;
    int nd = 0;
    for (int k = 0; k < NIN; k++) {
        if (x[k].dtype != KB_F32 || x[k].data == NULL)
            return nk_fail(r, NK_BAD_ARGS, op);
        nd = x[k].ndim > nd ? x[k].ndim : nd;
    }
    int64_t shape[NK_MAX_DIMS], st[NIN][NK_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        int64_t s = 1;
        for (int k = 0; k < NIN; k++) {
            const int dk = d - (nd - x[k].ndim);
            const int64_t e = dk >= 0 ? x[k].shape[dk] : 1;
            if (e != 1) {
                if (s != 1 && s != e)
                    return nk_fail(r, NK_BAD_ARGS, op); /* shapes do not broadcast */
                s = e;
            }
        }
        shape[d] = s;
        for (int k = 0; k < NIN; k++) {
            const int dk = d - (nd - x[k].ndim);
            st[k][d] = dk >= 0 && x[k].shape[dk] != 1 ? x[k].stride[dk] : 0;
        }
    }
    nk_tensor y = nk_result(r, out, KB_F32, nd, shape, op);
    if (r->status != NK_OK)
        return NK_NEW;
    const int64_t n = nk_numel(y);
    if (n == 0)
        return y;

    nk_ew_geom<NIN> g = {};
    bool flat = true, aligned = ((uintptr_t)y.data & 15) == 0;
    for (int k = 0; k < NIN; k++) {
        g.in[k] = (const float *)x[k].data;
        flat = flat && nk_numel(x[k]) == n && nk_is_contiguous(x[k]);
        aligned = aligned && ((uintptr_t)x[k].data & 15) == 0;
    }
    if (flat) {
        const int64_t blocks = (n + 4 * NK_EW_THREADS - 1) / (4 * NK_EW_THREADS);
        const unsigned grid = (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
        if (aligned)
            nk_ew_flat<NIN, true><<<grid, NK_EW_THREADS, 0, r->stream>>>((float *)y.data, g, n, f);
        else
            nk_ew_flat<NIN, false><<<grid, NK_EW_THREADS, 0, r->stream>>>((float *)y.data, g, n, f);
        nk_launched(r, op);
        return y;
    }
    /* collapse: drop size-1 dims, merge an outer dim into its inner neighbour where every
     * operand's offset is linear across the pair (stride_outer == stride_inner * size_inner) */
    int m = 0;
    for (int d = 0; d < nd; d++) {
        if (shape[d] == 1)
            continue;
        bool merge = m > 0;
        for (int k = 0; k < NIN && merge; k++)
            merge = g.stride[k][m - 1] == st[k][d] * shape[d];
        if (merge) {
            g.shape[m - 1] *= shape[d];
            for (int k = 0; k < NIN; k++)
                g.stride[k][m - 1] = st[k][d];
        } else {
            g.shape[m] = shape[d];
            for (int k = 0; k < NIN; k++)
                g.stride[k][m] = st[k][d];
            m++;
        }
    }
    if (m == 0) {
        g.shape[0] = 1;
        for (int k = 0; k < NIN; k++)
            g.stride[k][0] = 0;
        m = 1;
    }
    g.nd = m;
    const int64_t blocks = (n + NK_EW_THREADS - 1) / NK_EW_THREADS;
    const unsigned grid = (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
    if (n < ((int64_t)1 << 31)) /* every operand offset is then below 2^31 too */
        nk_ew_strided<NIN, uint32_t><<<grid, NK_EW_THREADS, 0, r->stream>>>((float *)y.data, g, (uint32_t)n, f);
    else
        nk_ew_strided<NIN, uint64_t><<<grid, NK_EW_THREADS, 0, r->stream>>>((float *)y.data, g, (uint64_t)n, f);
    nk_launched(r, op);
    return y;
}

template <class F> static nk_tensor nk_ew1(nk_ref *r, nk_tensor out, nk_tensor x, F f, const char *op)
{
    const nk_tensor in[1] = {x};
    return nk_ew<1>(r, out, in, f, op);
}

template <class F> static nk_tensor nk_ew2(nk_ref *r, nk_tensor out, nk_tensor a, nk_tensor b, F f, const char *op)
{
    const nk_tensor in[2] = {a, b};
    return nk_ew<2>(r, out, in, f, op);
}

/*@section nk_copy needs=ew*/
struct nk_f_copy {
    __device__ float operator()(float x) const { return x; }
};
/* x.clone() / x.contiguous(): a contiguous copy of any strided view. */
static nk_tensor nk_copy(nk_ref *r, nk_tensor out, nk_tensor x) { return nk_ew1(r, out, x, nk_f_copy{}, "nk_copy"); }

/*@section nk_fill*/
static __global__ void __launch_bounds__(256) nk_fill_kernel(float *y, int64_t n, float v)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = v;
}
/* out[:] = v (out must exist: a temporary or an output), returns out. */
static nk_tensor nk_fill(nk_ref *r, nk_tensor out, double v)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (out.data == NULL || out.dtype != KB_F32 || !nk_is_contiguous(out))
        return nk_fail(r, NK_BAD_ARGS, "nk_fill");
    const int64_t n = nk_numel(out), blocks = (n + 255) / 256;
    nk_fill_kernel<<<(unsigned)(blocks < (1 << 20) ? blocks : (1 << 20)), 256, 0, r->stream>>>((float *)out.data, n,
                                                                                                (float)v);
    nk_launched(r, "nk_fill");
    return out;
}

/*@section nk_relu needs=ew*/
struct nk_f_relu {
    __device__ float operator()(float x) const { return x < 0.0f ? 0.0f : x; } /* NaN < 0 is false: NaN stays */
};
static nk_tensor nk_relu(nk_ref *r, nk_tensor out, nk_tensor x) { return nk_ew1(r, out, x, nk_f_relu{}, "nk_relu"); }

/*@section nk_leaky_relu needs=ew*/
struct nk_f_leaky_relu {
    float slope;
    __device__ float operator()(float x) const { return x > 0.0f ? x : x * slope; }
};
static nk_tensor nk_leaky_relu(nk_ref *r, nk_tensor out, nk_tensor x, double negative_slope)
{
    return nk_ew1(r, out, x, nk_f_leaky_relu{(float)negative_slope}, "nk_leaky_relu");
}

/*@section nk_sigmoid needs=ew*/
struct nk_f_sigmoid {
    __device__ float operator()(float x) const { return 1.0f / (1.0f + expf(-x)); }
};
static nk_tensor nk_sigmoid(nk_ref *r, nk_tensor out, nk_tensor x)
{
    return nk_ew1(r, out, x, nk_f_sigmoid{}, "nk_sigmoid");
}

/*@section nk_tanh needs=ew*/
struct nk_f_tanh {
    __device__ float operator()(float x) const { return tanhf(x); }
};
static nk_tensor nk_tanh(nk_ref *r, nk_tensor out, nk_tensor x) { return nk_ew1(r, out, x, nk_f_tanh{}, "nk_tanh"); }

/*@section nk_gelu needs=ew*/
struct nk_f_gelu { /* approximate='none': x * Phi(x) through erf */
    __device__ float operator()(float x) const { return x * 0.5f * (1.0f + erff(x * 0.70710678118654752f)); }
};
static nk_tensor nk_gelu(nk_ref *r, nk_tensor out, nk_tensor x) { return nk_ew1(r, out, x, nk_f_gelu{}, "nk_gelu"); }

/*@section nk_mish needs=ew*/
struct nk_f_mish {
    __device__ float operator()(float x) const { return x * tanhf(log1pf(expf(x))); }
};
static nk_tensor nk_mish(nk_ref *r, nk_tensor out, nk_tensor x) { return nk_ew1(r, out, x, nk_f_mish{}, "nk_mish"); }

/*@section nk_hardswish needs=ew*/
struct nk_f_hardswish { /* x * min(max(x + 3, 0), 6) * (1/6), std::min/max's comparisons: NaN stays */
    __device__ float operator()(float x) const
    {
        float t = x + 3.0f;
        t = t < 0.0f ? 0.0f : t;
        t = 6.0f < t ? 6.0f : t;
        return x * t * (1.0f / 6.0f);
    }
};
static nk_tensor nk_hardswish(nk_ref *r, nk_tensor out, nk_tensor x)
{
    return nk_ew1(r, out, x, nk_f_hardswish{}, "nk_hardswish");
}

/*@section clamp needs=ew*/
/* torch.clamp with scalar bounds: NaN stays NaN; a missing bound (NAN) is not applied. */
struct nk_f_clamp {
    float lo, hi;
    bool has_lo, has_hi;
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
static nk_tensor nk_clamp_impl(nk_ref *r, nk_tensor out, nk_tensor x, double lo, double hi, const char *op)
{
    return nk_ew1(r, out, x, nk_f_clamp{(float)lo, (float)hi, !isnan(lo), !isnan(hi)}, op);
}

/*@section nk_clamp needs=clamp*/
static nk_tensor nk_clamp(nk_ref *r, nk_tensor out, nk_tensor x, double lo, double hi)
{
    return nk_clamp_impl(r, out, x, lo, hi, "nk_clamp");
}

/*@section nk_clamp_min needs=clamp*/
static nk_tensor nk_clamp_min(nk_ref *r, nk_tensor out, nk_tensor x, double lo)
{
    return nk_clamp_impl(r, out, x, lo, NAN, "nk_clamp_min");
}

/*@section nk_clamp_max needs=clamp*/
static nk_tensor nk_clamp_max(nk_ref *r, nk_tensor out, nk_tensor x, double hi)
{
    return nk_clamp_impl(r, out, x, NAN, hi, "nk_clamp_max");
}

/*@section nk_hardtanh needs=clamp*/
/* F.hardtanh is torch.clamp(x, min_val, max_val) */
static nk_tensor nk_hardtanh(nk_ref *r, nk_tensor out, nk_tensor x, double min_val, double max_val)
{
    return nk_clamp_impl(r, out, x, min_val, max_val, "nk_hardtanh");
}

/*@section nk_softplus needs=ew*/
struct nk_f_softplus {
    float beta, threshold;
    __device__ float operator()(float x) const
    {
        return x * beta > threshold ? x : log1pf(expf(x * beta)) / beta;
    }
};
static nk_tensor nk_softplus(nk_ref *r, nk_tensor out, nk_tensor x, double beta, double threshold)
{
    return nk_ew1(r, out, x, nk_f_softplus{(float)beta, (float)threshold}, "nk_softplus");
}

/*@section nk_adds needs=ew*/
struct nk_f_adds {
    float s;
    __device__ float operator()(float x) const { return x + s; }
};
static nk_tensor nk_adds(nk_ref *r, nk_tensor out, nk_tensor x, double s)
{
    return nk_ew1(r, out, x, nk_f_adds{(float)s}, "nk_adds");
}

/*@section nk_subs needs=ew*/
struct nk_f_subs {
    float s;
    __device__ float operator()(float x) const { return x - s; }
};
static nk_tensor nk_subs(nk_ref *r, nk_tensor out, nk_tensor x, double s)
{
    return nk_ew1(r, out, x, nk_f_subs{(float)s}, "nk_subs");
}

/*@section muls needs=ew*/
struct nk_f_muls {
    float s;
    __device__ float operator()(float x) const { return x * s; }
};

/*@section nk_muls needs=muls*/
static nk_tensor nk_muls(nk_ref *r, nk_tensor out, nk_tensor x, double s)
{
    return nk_ew1(r, out, x, nk_f_muls{(float)s}, "nk_muls");
}

/*@section nk_divs needs=muls*/
/* x / s for a Python scalar s: x * (1/s) with the reciprocal rounded to float, as PyTorch does */
static nk_tensor nk_divs(nk_ref *r, nk_tensor out, nk_tensor x, double s)
{
    return nk_ew1(r, out, x, nk_f_muls{1.0f / (float)s}, "nk_divs");
}

/*@section nk_add needs=ew*/
struct nk_f_add {
    __device__ float operator()(float a, float b) const { return a + b; }
};
static nk_tensor nk_add(nk_ref *r, nk_tensor out, nk_tensor a, nk_tensor b)
{
    return nk_ew2(r, out, a, b, nk_f_add{}, "nk_add");
}

/*@section nk_sub needs=ew*/
struct nk_f_sub {
    __device__ float operator()(float a, float b) const { return a - b; }
};
static nk_tensor nk_sub(nk_ref *r, nk_tensor out, nk_tensor a, nk_tensor b)
{
    return nk_ew2(r, out, a, b, nk_f_sub{}, "nk_sub");
}

/*@section nk_mul needs=ew*/
struct nk_f_mul {
    __device__ float operator()(float a, float b) const { return a * b; }
};
static nk_tensor nk_mul(nk_ref *r, nk_tensor out, nk_tensor a, nk_tensor b)
{
    return nk_ew2(r, out, a, b, nk_f_mul{}, "nk_mul");
}

/*@section nk_minimum needs=ew*/
struct nk_f_minimum { /* torch.minimum: a NaN operand wins */
    __device__ float operator()(float a, float b) const { return a != a ? a : (b != b ? b : fminf(a, b)); }
};
static nk_tensor nk_minimum(nk_ref *r, nk_tensor out, nk_tensor a, nk_tensor b)
{
    return nk_ew2(r, out, a, b, nk_f_minimum{}, "nk_minimum");
}

/*@section nk_dropout needs=nk_copy*/
/* Live dropout's keep mask, from a counter-based hash (splitmix64's finaliser of seed + i):
 * a uniform u in [0, 1) per element from 24 bits, kept where u < 1 - p. The seed changes with
 * every call (a call counter, nothing derived from the inputs), so, like PyTorch's Philox
 * stream, no two calls draw the same mask; no mask can be PyTorch's, which is why problems with
 * live dropout are flagged nondeterministic. */
static uint64_t nk_dropout_calls;

static __device__ __forceinline__ uint64_t nk_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* y = x * keep * scale, as fused_dropout_kernel's product (a dropped NaN or inf stays NaN) */
static __global__ void __launch_bounds__(256) nk_dropout_kernel(const float *__restrict__ x, float *__restrict__ y,
                                                                int64_t n, uint64_t seed, float keep_p, float scale)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const float u = (float)(nk_mix64(seed + 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1)) >> 40) * 0x1p-24f;
        y[i] = x[i] * (u < keep_p ? 1.0f : 0.0f) * scale;
    }
}

/* F.dropout(x, p, training): identity when not training or p == 0 (x itself for NK_NEW, as
 * PyTorch returns the input), x * 0 when p == 1, else the live mask. */
static nk_tensor nk_dropout(nk_ref *r, nk_tensor out, nk_tensor x, double p, int training)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (!training || p == 0.0)
        return out.data == NULL ? x : nk_copy(r, out, x);
    if (x.dtype != KB_F32 || !nk_is_contiguous(x) || p < 0.0 || p > 1.0)
        return nk_fail(r, NK_BAD_ARGS, "nk_dropout");
    nk_tensor y = nk_result(r, out, KB_F32, x.ndim, x.shape, "nk_dropout");
    if (r->status != NK_OK)
        return NK_NEW;
    if (y.data == x.data)
        return nk_fail(r, NK_BAD_ARGS, "nk_dropout: in place");
    const float keep_p = p >= 1.0 ? 0.0f : (float)(1.0 - p), scale = p >= 1.0 ? 1.0f : 1.0f / keep_p;
    const uint64_t seed = 0x2545f4914f6cdd1dull * ++nk_dropout_calls;
    const int64_t n = nk_numel(x), blocks = (n + 255) / 256;
    nk_dropout_kernel<<<(unsigned)(blocks < (1 << 20) ? blocks : (1 << 20)), 256, 0, r->stream>>>(
        (const float *)x.data, (float *)y.data, n, seed, keep_p, scale);
    nk_launched(r, "nk_dropout");
    return y;
}
