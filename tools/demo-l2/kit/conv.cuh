/*
 * tools/demo-l2/kit/conv.cuh -- the naive kit's convolutions: nn.Conv1d/2d/3d and
 * nn.ConvTranspose1d/2d/3d (stride, padding, dilation, groups, output_padding, bias), on one
 * implicit-GEMM kernel (the scheme of demo-naive's Level-1 convolution samples,
 * tools/demo-conv/sample.cu.in, with the layer's geometry a kernel argument instead of constants).
 *
 * Every convolution here is a gather: an output position o of one launch sums x[i] * w[tap] over
 * (input channel, tap) pairs with, per spatial dimension, i = istep * j + toff[tap], where j is
 * the position's index in the launch's output sub-grid (o = o0 + ostep * j).
 *   forward:     one launch, j = o, istep = stride, toff[k] = k * dilation - padding.
 *   transposed:  y[o] gets x[i] w[k] where o = i * s - p + k * d, i.e. i = (o + p - k * d) / s
 *                where that divides exactly, which depends only on o mod s. So the output is
 *                split by residue (o0 = r, ostep = s: s^dims launches) and each launch gathers
 *                only the taps with (r + p - k * d) divisible by s, toff[k] = (r + p - k * d) / s,
 *                istep = 1. The plain gather form instead multiplies zeros for (s-1)/s of the
 *                taps in every dimension: 7/8 of the work of a stride-2 ConvTranspose3d.
 * The GEMM: rows = (n, j) positions, columns = the output channels of one group (blockIdx.z =
 * group), reduction = (input channel, tap). A 64x64 output tile per 256-thread block, 4x4 outputs
 * per thread (positions tx + 16 i: a warp stores 16 consecutive positions of two channels), the
 * reduction in slices of 16 staged in shared memory; a slice's (channel, tap) decode is done once
 * per block. Every gathered x value is reused 64 times from shared memory, every weight 64 times.
 * Exact FP32 (fmaf; no TF32, no tensor cores), no atomics: deterministic; 64-bit offsets.
 * Accuracy: each output sums C_in/groups x taps products in a fixed order in one thread (<= 1728
 * for the Level-2 layers: error ~ sqrt(K) 2^-24 typical); against cuDNN with TF32 the difference
 * is PyTorch's TF32 rounding.
 * Napkin math: ~5 TFLOP/s of useful FP32 work (gather-limited, the Level-1 samples' estimate),
 * e.g. a 3x3 Conv2d 64 -> 128 over 128 x 126 x 126 outputs (3.0e11 FLOP) in ~60 ms; eager
 * PyTorch (cuDNN, TF32) takes a few ms: this is the careful first version, not a fast one.
 */

/*@section conv provides=nk_conv_params*/
#define NK_CONV_BM 64     /* output positions per block */
#define NK_CONV_BN 64     /* output channels (of one group) per block */
#define NK_CONV_BK 16     /* reduction slice: (input channel, tap) pairs */
#define NK_CONV_MAXTAP 16 /* kernel extent per dimension */

/* nn.ConvNd's arguments, per spatial dimension in PyTorch's order (D, H, W); zero fields are
 * PyTorch's defaults (stride 0 and dilation 0 mean 1, groups 0 means 1). */
struct nk_conv_params {
    int stride[3];
    int padding[3];
    int dilation[3];
    int output_padding[3]; /* transposed convolutions only */
    int groups;
};

/* One launch's geometry, as 3-D: missing leading spatial dims have extent 1. */
struct nk_conv_geo {
    int64_t cin, cout, groups;
    int64_t in[3], out[3]; /* x and y extents */
    int64_t jn[3];         /* the launch's output sub-grid: y position o0 + ostep * j, j < jn */
    int64_t o0[3], ostep[3];
    int istep[3];          /* x position istep * j + toff[tap] */
    int ntap[3];           /* taps per dimension in this launch */
    int toff[3][NK_CONV_MAXTAP];
    int tk[3][NK_CONV_MAXTAP]; /* the kernel index of each tap */
    int kext[3];               /* kernel extents (the weight's layout) */
};

template <bool TRANSPOSED>
static __global__ void __launch_bounds__(256)
nk_conv_igemm(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ bias,
              float *__restrict__ y, int64_t nbatch, nk_conv_geo g)
{
    __shared__ __align__(16) float As[NK_CONV_BK][NK_CONV_BM];
    __shared__ __align__(16) float Bs[NK_CONV_BK][NK_CONV_BN + 4]; /* +4: the transposing stores spread over banks */
    __shared__ int tci[NK_CONV_BK];     /* per slice entry: input channel of the group (-1: past the end) */
    __shared__ int toffs[NK_CONV_BK][3]; /* x offsets per dimension */
    __shared__ int tkf[NK_CONV_BK];     /* flat kernel tap (weight offset) */

    const int tid = threadIdx.x;
    const int64_t cin_g = g.cin / g.groups, cout_g = g.cout / g.groups;
    const int nt12 = g.ntap[1] * g.ntap[2], ntv = g.ntap[0] * nt12;
    const int kdim = (int)cin_g * ntv;
    const int kvol = g.kext[0] * g.kext[1] * g.kext[2];
    const int64_t j12 = g.jn[1] * g.jn[2], jsp = g.jn[0] * j12;
    const int64_t isp = g.in[0] * g.in[1] * g.in[2], osp = g.out[0] * g.out[1] * g.out[2];
    const int64_t M = nbatch * jsp;
    const int64_t grp = blockIdx.z;
    const int64_t m0 = (int64_t)blockIdx.x * NK_CONV_BM, n0 = (int64_t)blockIdx.y * NK_CONV_BN;

    /* the A row this thread gathers for the whole reduction: position m */
    const int a_m = tid % NK_CONV_BM, a_k = tid / NK_CONV_BM; /* slice rows a_k, a_k + 4, a_k + 8, a_k + 12 */
    const int64_t m = m0 + a_m;
    const bool m_ok = m < M;
    int64_t nb = 0, b0 = 0, b1 = 0, b2 = 0;
    if (m_ok) {
        nb = m / jsp;
        int64_t rest = m - nb * jsp;
        const int64_t q0 = rest / j12;
        rest -= q0 * j12;
        const int64_t q1 = rest / g.jn[2], q2 = rest - q1 * g.jn[2];
        b0 = q0 * g.istep[0];
        b1 = q1 * g.istep[1];
        b2 = q2 * g.istep[2];
    }
    const float *xb = x + (nb * g.cin + grp * cin_g) * isp;
    const int b_k = tid % NK_CONV_BK, b_n = tid / NK_CONV_BK; /* B: slice row b_k, channels b_n + 16 j */
    const int tx = tid % 16, ty = tid / 16; /* outputs: positions tx + 16 i, channels ty * 4 + j */

    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < kdim; k0 += NK_CONV_BK) {
        if (tid < NK_CONV_BK) {
            const int kg = k0 + tid;
            if (kg < kdim) {
                const int ci = kg / ntv;
                int t = kg - ci * ntv;
                const int t0 = t / nt12;
                t -= t0 * nt12;
                const int t1 = t / g.ntap[2], t2 = t - t1 * g.ntap[2];
                tci[tid] = ci;
                toffs[tid][0] = g.toff[0][t0];
                toffs[tid][1] = g.toff[1][t1];
                toffs[tid][2] = g.toff[2][t2];
                tkf[tid] = (g.tk[0][t0] * g.kext[1] + g.tk[1][t1]) * g.kext[2] + g.tk[2][t2];
            } else {
                tci[tid] = -1;
            }
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int kk = a_k + 4 * j;
            const int ci = tci[kk];
            float v = 0.0f;
            if (m_ok && ci >= 0) {
                const int64_t i0 = b0 + toffs[kk][0], i1 = b1 + toffs[kk][1], i2 = b2 + toffs[kk][2];
                if (i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2])
                    v = __ldg(xb + (int64_t)ci * isp + (i0 * g.in[1] + i1) * g.in[2] + i2);
            }
            As[kk][a_m] = v;
        }
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int nn = b_n + 16 * j;
            const int64_t co = n0 + nn;
            const int ci = tci[b_k];
            float v = 0.0f;
            if (co < cout_g && ci >= 0) {
                if (TRANSPOSED) /* w [C_in, C_out / groups, k...] */
                    v = __ldg(w + ((grp * cin_g + ci) * cout_g + co) * kvol + tkf[b_k]);
                else /* w [C_out, C_in / groups, k...] */
                    v = __ldg(w + ((grp * cout_g + co) * cin_g + ci) * kvol + tkf[b_k]);
            }
            Bs[b_k][nn] = v;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < NK_CONV_BK; kk++) {
            float a[4];
#pragma unroll
            for (int i = 0; i < 4; i++)
                a[i] = As[kk][tx + 16 * i];
            const float4 b4 = *reinterpret_cast<const float4 *>(&Bs[kk][ty * 4]);
            const float b[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads(); /* the next slice overwrites the tiles and the tap table */
    }

#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int64_t mm = m0 + tx + 16 * i;
        if (mm >= M)
            continue;
        const int64_t n = mm / jsp;
        int64_t rest = mm - n * jsp;
        const int64_t q0 = rest / j12;
        rest -= q0 * j12;
        const int64_t q1 = rest / g.jn[2], q2 = rest - q1 * g.jn[2];
        const int64_t opos = ((g.o0[0] + g.ostep[0] * q0) * g.out[1] + (g.o0[1] + g.ostep[1] * q1)) * g.out[2] +
                             (g.o0[2] + g.ostep[2] * q2);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int64_t co = n0 + ty * 4 + j;
            if (co >= cout_g)
                continue;
            const int64_t c = grp * cout_g + co;
            y[(n * g.cout + c) * osp + opos] = acc[i][j] + (bias ? __ldg(bias + c) : 0.0f);
        }
    }
}

static void nk_conv_launch(nk_ref *r, bool transposed, const float *x, const float *w, const float *bias, float *y,
                           int64_t nbatch, const nk_conv_geo &g)
{
    if (r->status != NK_OK)
        return;
    const int64_t M = nbatch * g.jn[0] * g.jn[1] * g.jn[2];
    const int64_t gx = (M + NK_CONV_BM - 1) / NK_CONV_BM, gy = (g.cout / g.groups + NK_CONV_BN - 1) / NK_CONV_BN;
    if (M == 0)
        return;
    if (gx > 0x7fffffff || gy > 65535 || g.groups > 65535) {
        nk_fail(r, NK_BAD_ARGS, "nk_conv: grid");
        return;
    }
    const dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)g.groups);
    if (transposed)
        nk_conv_igemm<true><<<grid, 256, 0, r->stream>>>(x, w, bias, y, nbatch, g);
    else
        nk_conv_igemm<false><<<grid, 256, 0, r->stream>>>(x, w, bias, y, nbatch, g);
    nk_launched(r, "nk_conv_igemm");
}

/* y = conv(x, w) (+ bias) or conv_transpose(x, w) (+ bias); the geometry from the tensors and p. */
static nk_tensor nk_conv_any(nk_ref *r, nk_tensor out, nk_tensor x, nk_tensor w, nk_tensor bias,
                             const nk_conv_params *p, bool transposed, const char *op)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (x.dtype != KB_F32 || w.dtype != KB_F32 || x.ndim < 3 || x.ndim > 5 || w.ndim != x.ndim ||
        !nk_is_contiguous(x) || !nk_is_contiguous(w))
        return nk_fail(r, NK_BAD_ARGS, op);
    const int nsd = x.ndim - 2;
    const int64_t nbatch = x.shape[0], cin = x.shape[1];
    const int64_t groups = p && p->groups > 0 ? p->groups : 1;
    const int64_t cout = transposed ? w.shape[1] * groups : w.shape[0];
    if (cin % groups || cout % groups || (transposed ? w.shape[0] != cin : w.shape[1] != cin / groups))
        return nk_fail(r, NK_BAD_ARGS, op);
    if (bias.data && (bias.dtype != KB_F32 || bias.ndim != 1 || bias.shape[0] != cout))
        return nk_fail(r, NK_BAD_ARGS, op);

    nk_conv_geo g;
    memset(&g, 0, sizeof g);
    g.cin = cin;
    g.cout = cout;
    g.groups = groups;
    int s[3], pd[3], dl[3];
    int64_t yshape[5] = {nbatch, cout};
    for (int d = 0; d < 3; d++) {
        const int a = d - (3 - nsd); /* index into the module's per-dimension arguments */
        g.in[d] = a >= 0 ? x.shape[2 + a] : 1;
        g.kext[d] = a >= 0 ? (int)w.shape[2 + a] : 1;
        s[d] = a >= 0 && p && p->stride[a] > 0 ? p->stride[a] : 1;
        pd[d] = a >= 0 && p ? p->padding[a] : 0;
        dl[d] = a >= 0 && p && p->dilation[a] > 0 ? p->dilation[a] : 1;
        const int op_pad = a >= 0 && p ? p->output_padding[a] : 0;
        if (transposed)
            g.out[d] = (g.in[d] - 1) * s[d] - 2 * pd[d] + (int64_t)dl[d] * (g.kext[d] - 1) + op_pad + 1;
        else
            g.out[d] = (g.in[d] + 2 * pd[d] - (int64_t)dl[d] * (g.kext[d] - 1) - 1) / s[d] + 1;
        if (g.out[d] < 1 || g.kext[d] > NK_CONV_MAXTAP || pd[d] < 0 || (!transposed && op_pad != 0))
            return nk_fail(r, NK_BAD_ARGS, op);
        if (a >= 0)
            yshape[2 + a] = g.out[d];
    }
    nk_tensor y = nk_result(r, out, KB_F32, x.ndim, yshape, op);
    if (r->status != NK_OK)
        return NK_NEW;
    const float *xp = (const float *)x.data, *wp = (const float *)w.data, *bp = (const float *)bias.data;

    if (!transposed) {
        for (int d = 0; d < 3; d++) {
            g.jn[d] = g.out[d];
            g.o0[d] = 0;
            g.ostep[d] = 1;
            g.istep[d] = s[d];
            g.ntap[d] = g.kext[d];
            for (int k = 0; k < g.kext[d]; k++) {
                g.toff[d][k] = k * dl[d] - pd[d];
                g.tk[d][k] = k;
            }
        }
        nk_conv_launch(r, false, xp, wp, bp, (float *)y.data, nbatch, g);
        return r->status == NK_OK ? y : NK_NEW;
    }
    /* transposed: one launch per output residue class (r0, r1, r2) */
    for (int r0 = 0; r0 < s[0]; r0++)
        for (int r1 = 0; r1 < s[1]; r1++)
            for (int r2 = 0; r2 < s[2]; r2++) {
                const int res[3] = {r0, r1, r2};
                bool empty = false;
                for (int d = 0; d < 3; d++) {
                    g.o0[d] = res[d];
                    g.ostep[d] = s[d];
                    g.istep[d] = 1;
                    g.jn[d] = res[d] < g.out[d] ? (g.out[d] - res[d] + s[d] - 1) / s[d] : 0;
                    empty = empty || g.jn[d] == 0;
                    g.ntap[d] = 0;
                    for (int k = 0; k < g.kext[d]; k++) {
                        const int e = res[d] + pd[d] - k * dl[d];
                        if (((e % s[d]) + s[d]) % s[d] == 0) { /* exact, so C's truncating division is exact too */
                            g.toff[d][g.ntap[d]] = e / s[d];
                            g.tk[d][g.ntap[d]] = k;
                            g.ntap[d]++;
                        }
                    }
                }
                if (!empty) /* a class without taps still gets its bias (the kernel's empty reduction) */
                    nk_conv_launch(r, true, xp, wp, bp, (float *)y.data, nbatch, g);
            }
    return r->status == NK_OK ? y : NK_NEW;
}

/*@section NK_CONV_PARAMS needs=conv*/
/* The op library's KB_CONV_PARAMS(.stride = {1, 1}) is a C compound literal whose address is
 * taken (&(const kb_conv_params){...}), which C++ refuses ("taking address of rvalue"). Here the
 * designated initialisers build a temporary that lives to the end of the full expression (the
 * conv call it is an argument of); nvcc's C++17 front end accepts the designators in declaration
 * order, as every chain writes them. */
static const nk_conv_params *nk_conv_params_ref(const nk_conv_params &p) { return &p; }
#define NK_CONV_PARAMS(...) nk_conv_params_ref(nk_conv_params{__VA_ARGS__})

/*@section nk_conv needs=conv*/
/* nn.ConvNd's forward: x [N, C_in, spatial...], w [C_out, C_in / groups, k...], bias [C_out] or NK_NEW. */
static nk_tensor nk_conv(nk_ref *r, nk_tensor out, nk_tensor x, nk_tensor w, nk_tensor bias, const nk_conv_params *p)
{
    return nk_conv_any(r, out, x, w, bias, p, false, "nk_conv");
}

/*@section nk_conv_transpose needs=conv*/
/* nn.ConvTransposeNd's forward: x [N, C_in, spatial...], w [C_in, C_out / groups, k...]. */
static nk_tensor nk_conv_transpose(nk_ref *r, nk_tensor out, nk_tensor x, nk_tensor w, nk_tensor bias,
                                   const nk_conv_params *p)
{
    return nk_conv_any(r, out, x, w, bias, p, true, "nk_conv_transpose");
}
