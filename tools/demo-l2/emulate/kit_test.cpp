/*
 * tools/demo-l2/emulate/kit_test.cpp -- the demo-l2 kit's ops, run under the CPU emulation of
 * include/cuda_runtime.h, against straightforward double-precision loops on small shapes that
 * reach every kernel path: flat and strided elementwise ops, broadcasting, NaN and inf
 * semantics, dropout's mask, the SGEMM with ragged tiles and more than 256 products, forward and
 * transposed convolutions (1-D to 3-D, stride, padding, dilation, groups, output_padding, a
 * residue class without taps), warp and block rows and chunked rows and columns of the sums,
 * max / min with ties and NaN, logsumexp and softmax with infinities, every normalisation at an
 * offset of 1000, the pools with padding, ceil_mode and count_include_pad.
 * Built and run by tools/demo-l2/emulate/check.py --kit (which writes kit.h: the kit files with
 * their launches rewritten for the emulation). Exit status 1 if any check fails.
 */
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>
#include <kb/submission.h>
#include "kit.h"

static std::mt19937_64 rng(42);
static int failures = 0, checks = 0;

static float U(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }

static nk_tensor mk(nk_ref *r, std::vector<int64_t> s, float lo = -1, float hi = 1)
{
    nk_tensor t = nk_empty(r, KB_F32, (int)s.size(), s.data());
    float *p = (float *)t.data;
    for (int64_t i = 0; i < nk_numel(t); i++)
        p[i] = U(lo, hi);
    return t;
}
static float *F(nk_tensor t) { return (float *)t.data; }

static void expect(bool ok, const char *what)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL: %s\n", what);
    }
}

/* |got - want| <= tol * (|want| + scale) elementwise */
static void close(const char *what, const float *got, const std::vector<double> &want, double tol, double scale = 1.0)
{
    double worst = 0;
    int64_t wi = -1;
    for (size_t i = 0; i < want.size(); i++) {
        double g = got[i], w = want[i];
        double e;
        if (std::isnan(w) || std::isnan(g))
            e = (std::isnan(w) && std::isnan(g)) ? 0 : INFINITY;
        else if (std::isinf(w) || std::isinf(g))
            e = (w == g) ? 0 : INFINITY;
        else
            e = fabs(g - w) / (fabs(w) + scale);
        if (e > worst) {
            worst = e;
            wi = (int64_t)i;
        }
    }
    checks++;
    if (!(worst <= tol)) {
        failures++;
        printf("FAIL: %s: worst %.3g at %ld (got %.9g want %.9g)\n", what, worst, (long)wi, wi >= 0 ? got[wi] : 0.0,
               wi >= 0 ? want[wi] : 0.0);
    } else {
        printf("ok   %s (worst %.2g)\n", what, worst);
    }
}

static nk_ref R()
{
    nk_ref r;
    memset(&r, 0, sizeof r);
    return r;
}

/* ---- elementwise ---- */
static void test_elementwise()
{
    nk_ref r = R();
    nk_tensor x = mk(&r, {3, 5, 7, 9});
    nk_tensor b = mk(&r, {5, 1, 1});
    nk_tensor y = nk_add(&r, NK_NEW, x, b);
    std::vector<double> w(3 * 5 * 7 * 9);
    for (int n = 0; n < 3; n++)
        for (int c = 0; c < 5; c++)
            for (int i = 0; i < 63; i++)
                w[(n * 5 + c) * 63 + i] = F(x)[(n * 5 + c) * 63 + i] + F(b)[c]; /* the float sum */
    close("add broadcast (C,1,1)", F(y), w, 0);
    // scalar 0-d operand
    nk_tensor s = nk_empty(&r, KB_F32, 0, NULL);
    F(s)[0] = 0.75f;
    y = nk_mul(&r, NK_NEW, x, s);
    for (size_t i = 0; i < w.size(); i++)
        w[i] = F(x)[i] * 0.75f;
    close("mul by 0-d", F(y), w, 0);
    // (1024,1) + (1, 8, 1, 1)-style broadcast to a new rank (075)
    nk_tensor m = mk(&r, {6, 1});
    nk_tensor bb = mk(&r, {1, 4, 1, 1});
    y = nk_add(&r, NK_NEW, m, bb);
    expect(y.ndim == 4 && y.shape[0] == 1 && y.shape[1] == 4 && y.shape[2] == 6 && y.shape[3] == 1, "075 shape");
    w.assign(24, 0);
    for (int c = 0; c < 4; c++)
        for (int n = 0; n < 6; n++)
            w[c * 6 + n] = F(m)[n] + F(bb)[c];
    close("add (6,1)+(1,4,1,1)", F(y), w, 0);
    // transposed view copy
    nk_tensor a = mk(&r, {37, 23});
    nk_tensor at = nk_transpose(&r, a, 0, 1);
    y = nk_copy(&r, NK_NEW, at);
    w.assign(37 * 23, 0);
    for (int i = 0; i < 23; i++)
        for (int j = 0; j < 37; j++)
            w[i * 37 + j] = F(a)[j * 23 + i];
    close("copy of a transposed view", F(y), w, 0);
    // unaligned flat (odd offset view) path
    nk_tensor v = x;
    v.data = F(x) + 1;
    v.ndim = 1;
    v.shape[0] = 101;
    v.stride[0] = 1;
    y = nk_relu(&r, NK_NEW, v);
    w.assign(101, 0);
    for (int i = 0; i < 101; i++)
        w[i] = F(x)[i + 1] < 0 ? 0 : F(x)[i + 1];
    close("relu, unaligned tail", F(y), w, 0);
    // NaN semantics
    nk_tensor z = mk(&r, {8});
    F(z)[0] = NAN;
    F(z)[1] = -INFINITY;
    F(z)[2] = INFINITY;
    F(z)[3] = -3.5f;
    F(z)[4] = 100.f;
    F(z)[5] = -100.f;
    F(z)[6] = 0.25f;
    F(z)[7] = -0.25f;
    struct {
        const char *name;
        nk_tensor (*f)(nk_ref *, nk_tensor, nk_tensor);
        double (*ref)(double);
    } un[] = {
        {"relu", nk_relu, [](double v) { return std::isnan(v) ? v : (v < 0 ? 0.0 : v); }},
        {"sigmoid", nk_sigmoid, [](double v) { return 1 / (1 + exp(-v)); }},
        {"tanh", nk_tanh, [](double v) { return tanh(v); }},
        /* at -inf: -inf * 0 = NaN, as torch's x * 0.5 * (1 + erf(x / sqrt(2))) */
        {"gelu", nk_gelu, [](double v) { return std::isinf(v) ? (v > 0 ? v : NAN) : v * 0.5 * (1 + erf(v / sqrt(2.0))); }},
        {"mish", nk_mish, [](double v) { return std::isinf(v) ? (v > 0 ? v : NAN) : v * tanh(log1p(exp(v))); }},
        {"hardswish", nk_hardswish, [](double v) { return std::isnan(v) ? v : v * std::min(std::max(v + 3, 0.0), 6.0) / 6; }},
    };
    for (auto &u : un) {
        y = u.f(&r, NK_NEW, z);
        w.assign(8, 0);
        for (int i = 0; i < 8; i++)
            w[i] = u.ref(F(z)[i]);
        if (!strcmp(u.name, "hardswish"))
            w[1] = NAN; /* -inf * 0: NaN, as torch */
        close(u.name, F(y), w, 2e-6);
    }
    y = nk_clamp(&r, NK_NEW, z, -1, 1);
    w.assign(8, 0);
    for (int i = 0; i < 8; i++)
        w[i] = std::isnan(F(z)[i]) ? NAN : std::min(std::max((double)F(z)[i], -1.0), 1.0);
    close("clamp keeps NaN", F(y), w, 0);
    y = nk_leaky_relu(&r, NK_NEW, z, 0.2);
    for (int i = 0; i < 8; i++)
        w[i] = F(z)[i] > 0 ? F(z)[i] : F(z)[i] * 0.2f;
    close("leaky_relu", F(y), w, 0);
    y = nk_softplus(&r, NK_NEW, z, 1.0, 20.0);
    for (int i = 0; i < 8; i++) {
        double v = F(z)[i];
        w[i] = v > 20 ? v : log1p(exp(v));
    }
    close("softplus", F(y), w, 2e-6);
    nk_tensor zero = nk_fill(&r, nk_empty(&r, KB_F32, 0, NULL), 0.0);
    y = nk_minimum(&r, NK_NEW, z, zero);
    for (int i = 0; i < 8; i++)
        w[i] = std::isnan(F(z)[i]) ? NAN : std::min((double)F(z)[i], 0.0);
    close("minimum with 0-d zero, NaN wins", F(y), w, 0);
    y = nk_divs(&r, NK_NEW, x, 6.0);
    w.assign(nk_numel(x), 0);
    for (size_t i = 0; i < w.size(); i++)
        w[i] = F(x)[i] * (1.0f / 6.0f);
    close("divs = mul by float reciprocal", F(y), w, 0);
    // dropout
    nk_tensor big = mk(&r, {100000}, 0.5, 1.5);
    nk_tensor d = nk_dropout(&r, NK_NEW, big, 0.2, 1);
    int64_t kept = 0, bad = 0;
    for (int i = 0; i < 100000; i++) {
        if (F(d)[i] != 0) {
            kept++;
            bad += F(d)[i] != F(big)[i] * 1.25f;
        }
    }
    printf("     dropout kept %.4f\n", kept / 1e5);
    expect(fabs(kept / 1e5 - 0.8) < 0.01 && bad == 0, "dropout keeps ~80%, scaled by 1.25");
    nk_tensor d2 = nk_dropout(&r, NK_NEW, big, 0.2, 1);
    expect(memcmp(d.data, d2.data, 400000) != 0, "dropout: a new mask per call");
    nk_tensor d0 = nk_dropout(&r, NK_NEW, big, 0.0, 1);
    expect(d0.data == big.data, "dropout p=0 is x");
    expect(r.status == 0, "elementwise: no failure");
    nk_end(&r);
}

/* ---- GEMM ---- */
static void test_gemm()
{
    nk_ref r = R();
    for (int trial = 0; trial < 3; trial++) {
        const int M = trial == 0 ? 70 : (trial == 1 ? 64 : 5), N = trial == 0 ? 130 : (trial == 1 ? 64 : 129),
                  K = trial == 0 ? 300 : (trial == 1 ? 1000 : 17);
        nk_tensor x = mk(&r, {M, K}), wt = mk(&r, {N, K}), b = mk(&r, {N});
        nk_tensor y = nk_linear(&r, NK_NEW, x, wt, b);
        std::vector<double> w(M * N);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double s = F(b)[j];
                for (int k = 0; k < K; k++)
                    s += (double)F(x)[i * K + k] * F(wt)[j * K + k];
                w[i * N + j] = s;
            }
        char name[64];
        snprintf(name, sizeof name, "linear %dx%dx%d", M, N, K);
        close(name, F(y), w, 1e-6 * sqrt(K));
        // matmul(x, wt.T): a transposed view, no copy; and matmul(x, B) with B [K, N] contiguous (copy path)
        y = nk_matmul(&r, NK_NEW, x, nk_transpose(&r, wt, 0, 1));
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                w[i * N + j] -= F(b)[j];
        close("matmul x @ W.t()", F(y), w, 1e-6 * sqrt(K));
        nk_tensor Bm = nk_copy(&r, NK_NEW, nk_transpose(&r, wt, 0, 1));
        y = nk_matmul(&r, NK_NEW, x, Bm);
        close("matmul x @ B (copied to B^T)", F(y), w, 1e-6 * sqrt(K));
    }
    nk_tensor x = mk(&r, {7, 33}), wt = mk(&r, {9, 33});
    nk_tensor y = nk_linear(&r, NK_NEW, x, wt, NK_NEW);
    std::vector<double> w(63);
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 9; j++) {
            double s = 0;
            for (int k = 0; k < 33; k++)
                s += (double)F(x)[i * 33 + k] * F(wt)[j * 33 + k];
            w[i * 9 + j] = s;
        }
    close("linear without bias", F(y), w, 1e-6);
    expect(r.status == 0, "gemm: no failure");
    nk_end(&r);
}

/* ---- conv ---- */
static void conv_case(bool tr, int nsd, int N, int G, int cin, int cout, std::vector<int> I, std::vector<int> K,
                      std::vector<int> s, std::vector<int> p, std::vector<int> d, std::vector<int> op, bool bias)
{
    nk_ref r = R();
    std::vector<int64_t> xs = {N, cin}, ws = {tr ? cin : cout, tr ? cout / G : cin / G};
    for (int e = 0; e < nsd; e++) {
        xs.push_back(I[e]);
        ws.push_back(K[e]);
    }
    nk_tensor x = mk(&r, xs), w = mk(&r, ws), b = bias ? mk(&r, {cout}) : NK_NEW;
    nk_conv_params prm = {};
    for (int e = 0; e < nsd; e++) {
        prm.stride[e] = s[e];
        prm.padding[e] = p[e];
        prm.dilation[e] = d[e];
        prm.output_padding[e] = op[e];
    }
    prm.groups = G;
    nk_tensor y = tr ? nk_conv_transpose(&r, NK_NEW, x, w, b, &prm) : nk_conv(&r, NK_NEW, x, w, b, &prm);
    if (r.status) {
        expect(false, "conv failed");
        return;
    }
    // reference, 3-D padded
    int In[3] = {1, 1, 1}, Kn[3] = {1, 1, 1}, S[3] = {1, 1, 1}, P[3] = {0, 0, 0}, D[3] = {1, 1, 1}, O[3];
    for (int e = 0; e < nsd; e++) {
        In[3 - nsd + e] = I[e];
        Kn[3 - nsd + e] = K[e];
        S[3 - nsd + e] = s[e];
        P[3 - nsd + e] = p[e];
        D[3 - nsd + e] = d[e];
    }
    for (int e = 0; e < 3; e++)
        O[e] = (int)(e < 3 - nsd ? 1 : y.shape[2 + e - (3 - nsd)]);
    const int cin_g = cin / G, cout_g = cout / G;
    const int isp = In[0] * In[1] * In[2], osp = O[0] * O[1] * O[2], kv = Kn[0] * Kn[1] * Kn[2];
    std::vector<double> want((size_t)N * cout * osp, 0);
    for (int n = 0; n < N; n++)
        for (int c = 0; c < cout; c++)
            for (int o = 0; o < osp; o++)
                want[((size_t)n * cout + c) * osp + o] = bias ? F(b)[c] : 0;
    for (int n = 0; n < N; n++)
        for (int ci = 0; ci < cin; ci++) {
            const int g = ci / cin_g;
            for (int i0 = 0; i0 < In[0]; i0++)
                for (int i1 = 0; i1 < In[1]; i1++)
                    for (int i2 = 0; i2 < In[2]; i2++)
                        for (int k0 = 0; k0 < Kn[0]; k0++)
                            for (int k1 = 0; k1 < Kn[1]; k1++)
                                for (int k2 = 0; k2 < Kn[2]; k2++) {
                                    const double xv = F(x)[((size_t)n * cin + ci) * isp + (i0 * In[1] + i1) * In[2] + i2];
                                    const int kf = (k0 * Kn[1] + k1) * Kn[2] + k2;
                                    if (tr) {
                                        int o0 = i0 * S[0] - P[0] + k0 * D[0], o1 = i1 * S[1] - P[1] + k1 * D[1],
                                            o2 = i2 * S[2] - P[2] + k2 * D[2];
                                        if (o0 < 0 || o0 >= O[0] || o1 < 0 || o1 >= O[1] || o2 < 0 || o2 >= O[2])
                                            continue;
                                        for (int co = 0; co < cout_g; co++)
                                            want[((size_t)n * cout + g * cout_g + co) * osp + (o0 * O[1] + o1) * O[2] + o2] +=
                                                xv * F(w)[((size_t)ci * cout_g + co) * kv + kf];
                                    } else {
                                        // input position i = o*s - p + k*d  ->  o = (i + p - k*d) / s
                                        int e0 = i0 + P[0] - k0 * D[0], e1 = i1 + P[1] - k1 * D[1], e2 = i2 + P[2] - k2 * D[2];
                                        if (e0 < 0 || e1 < 0 || e2 < 0 || e0 % S[0] || e1 % S[1] || e2 % S[2])
                                            continue;
                                        int o0 = e0 / S[0], o1 = e1 / S[1], o2 = e2 / S[2];
                                        if (o0 >= O[0] || o1 >= O[1] || o2 >= O[2])
                                            continue;
                                        for (int co = 0; co < cout_g; co++) {
                                            const int cg = g * cout_g + co;
                                            want[((size_t)n * cout + cg) * osp + (o0 * O[1] + o1) * O[2] + o2] +=
                                                xv * F(w)[((size_t)cg * cin_g + (ci - g * cin_g)) * kv + kf];
                                        }
                                    }
                                }
        }
    char name[160];
    snprintf(name, sizeof name, "conv%s%dd N%d G%d %d->%d I%d,%d K%d s%d p%d d%d op%d bias%d -> %ld", tr ? "T" : "",
             nsd, N, G, cin, cout, I[0], nsd > 1 ? I[1] : 0, K[0], s[0], p[0], d[0], op[0], (int)bias,
             (long)nk_numel(y));
    close(name, F(y), want, 1e-5);
    nk_end(&r);
}

static void test_conv()
{
    // the Level-2 shapes in miniature, and odd ones
    conv_case(false, 2, 2, 1, 5, 7, {9, 8}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {0, 0}, true);
    conv_case(false, 2, 1, 1, 3, 70, {10, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, true); /* 2 column tiles */
    conv_case(false, 3, 2, 1, 3, 5, {5, 6, 7}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, false);
    conv_case(false, 1, 2, 2, 4, 6, {20}, {5}, {2}, {2}, {2}, {0}, true);
    conv_case(false, 2, 2, 2, 6, 4, {9, 7}, {3, 2}, {2, 1}, {1, 0}, {1, 2}, {0, 0}, true);
    conv_case(true, 2, 2, 1, 5, 6, {6, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true);   /* 002 */
    conv_case(true, 2, 2, 1, 4, 3, {6, 5}, {4, 4}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true);   /* 005 */
    conv_case(true, 2, 1, 1, 3, 4, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, true);   /* 010 */
    conv_case(true, 2, 1, 1, 3, 4, {6, 6}, {5, 5}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false);  /* 011 */
    conv_case(true, 3, 2, 1, 3, 4, {3, 4, 5}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, true); /* 020 */
    conv_case(true, 3, 1, 1, 2, 3, {4, 4, 4}, {4, 4, 4}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, true); /* 034 */
    conv_case(true, 3, 1, 1, 2, 3, {3, 3, 3}, {5, 5, 5}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, true); /* 078 */
    conv_case(true, 3, 1, 1, 2, 65, {3, 3, 2}, {3, 3, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, false); /* 061 */
    conv_case(true, 1, 2, 2, 4, 6, {7}, {3}, {3}, {1}, {2}, {2}, true);
    conv_case(true, 2, 1, 1, 2, 2, {4, 4}, {1, 1}, {2, 2}, {0, 0}, {1, 1}, {1, 1}, true); /* a class without taps */
}

/* ---- reductions ---- */
static std::vector<double> ref_reduce(const float *x, int64_t outer, int64_t len, int64_t inner, int op)
{
    // op 0 sum, 1 mean
    std::vector<double> w(outer * inner);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double s = 0;
            for (int64_t l = 0; l < len; l++)
                s += x[(o * len + l) * inner + i];
            w[o * inner + i] = op == 1 ? s / len : s;
        }
    return w;
}

static void test_reduce()
{
    nk_ref r = R();
    // rows short, rows long (chunked), columns (chunked)
    nk_tensor a = mk(&r, {5, 300});
    close("sum dim -1 (warp rows)", F(nk_sum(&r, NK_NEW, a, -1, 0)), ref_reduce(F(a), 5, 300, 1, 0), 1e-7);
    nk_tensor b = mk(&r, {2, 30000}, 1000, 1001);
    close("mean dim 1 (chunked rows)", F(nk_mean(&r, NK_NEW, b, 1, 1)), ref_reduce(F(b), 2, 30000, 1, 1), 1e-7);
    nk_tensor c = mk(&r, {3, 3000, 40});
    close("sum dim 1 (chunked columns)", F(nk_sum(&r, NK_NEW, c, 1, 1)), ref_reduce(F(c), 3, 3000, 40, 0), 1e-7);
    nk_tensor d = mk(&r, {4, 6, 5, 7});
    close("mean_dims {2,3}", F(nk_mean_dims(&r, NK_NEW, d, (const int[]){2, 3}, 2, 1)), ref_reduce(F(d), 24, 35, 1, 1),
          1e-7);
    close("sum_dims {1,2,3}", F(nk_sum_dims(&r, NK_NEW, d, (const int[]){1, 2, 3}, 3, 0)), ref_reduce(F(d), 4, 210, 1, 0),
          1e-7);
    nk_tensor y = nk_mean_dims(&r, NK_NEW, d, (const int[]){1, 2, 3}, 3, 0);
    expect(y.ndim == 1 && y.shape[0] == 4, "mean_dims keepdim 0 shape");
    nk_tensor e = mk(&r, {4, 1, 1, 1});
    y = nk_sum_dims(&r, NK_NEW, e, (const int[]){2, 3}, 2, 0);
    expect(y.ndim == 2 && y.shape[0] == 4 && y.shape[1] == 1, "sum_dims of size-1 dims: shape (4, 1)");
    close("sum_dims of size-1 dims", F(y), ref_reduce(F(e), 4, 1, 1, 0), 0);
    nk_tensor g = mk(&r, {2, 3, 4, 5});
    y = nk_adaptive_avg_pool_nd(&r, NK_NEW, g, 2, (const int64_t[]){1, 1});
    expect(y.ndim == 4 && y.shape[2] == 1 && y.shape[3] == 1, "adaptive pool shape");
    close("adaptive avg pool 1x1", F(y), ref_reduce(F(g), 6, 20, 1, 1), 1e-7);

    // max / min with indices: rows and columns, ties and NaN
    for (int pass = 0; pass < 2; pass++) {
        const int64_t outer = 3, len = pass ? 7 : 100, inner = pass ? 50 : 1;
        nk_tensor x = mk(&r, {outer, len, inner});
        for (int64_t i = 0; i < nk_numel(x); i++)
            F(x)[i] = (float)(int)(F(x)[i] * 4); /* many ties */
        F(x)[inner * 3 + 1 % inner] = NAN;         /* a NaN in row/col 0 (or col 1) */
        nk_tensor idx = NK_EMPTY(&r, KB_I64, outer, inner);
        nk_tensor mx = nk_max_dim(&r, NK_NEW, idx, nk_view_of(&r, x, outer, len, inner), 1, 0);
        nk_tensor idx2 = NK_EMPTY(&r, KB_I64, outer, inner);
        nk_tensor mn = nk_min_dim(&r, NK_NEW, idx2, x, 1, 0);
        bool ok = true;
        for (int64_t o = 0; o < outer; o++)
            for (int64_t i = 0; i < inner; i++) {
                for (int MAX = 0; MAX < 2; MAX++) {
                    float best = F(x)[(o * len) * inner + i];
                    int64_t bi = 0;
                    for (int64_t l = 1; l < len; l++) {
                        float v = F(x)[(o * len + l) * inner + i];
                        if (std::isnan(best))
                            break;
                        if (std::isnan(v) || (MAX ? v > best : v < best)) {
                            best = v;
                            bi = l;
                        }
                    }
                    float gv = (MAX ? F(mx) : F(mn))[o * inner + i];
                    int64_t gi = ((int64_t *)(MAX ? idx.data : idx2.data))[o * inner + i];
                    if (!((gv == best || (std::isnan(gv) && std::isnan(best))) && gi == bi)) {
                        if (ok)
                            printf("     %s o%ld i%ld: got %g@%ld want %g@%ld\n", MAX ? "max" : "min", (long)o, (long)i,
                                   gv, (long)gi, best, (long)bi);
                        ok = false;
                    }
                }
            }
        expect(ok, pass ? "max/min dim (columns): values, first index, NaN wins" : "max/min dim (rows)");
        printf("%s   max/min %s\n", ok ? "ok" : "  ", pass ? "columns" : "rows");
    }
    // logsumexp rows (short and long), columns, with -inf / +inf rows
    for (int pass = 0; pass < 3; pass++) {
        const int64_t outer = 4, len = pass == 1 ? 5000 : 37, inner = pass == 2 ? 45 : 1;
        nk_tensor x = mk(&r, {outer, len, inner}, -20, 20);
        for (int64_t l = 0; l < len; l++) {
            F(x)[(0 * len + l) * inner] = -INFINITY; /* row / column 0: all -inf */
        }
        F(x)[(1 * len + 3) * inner] = INFINITY; /* row 1: one +inf */
        nk_tensor y = nk_logsumexp(&r, NK_NEW, x, (const int[]){1}, 1, 1);
        std::vector<double> w(outer * inner);
        for (int64_t o = 0; o < outer; o++)
            for (int64_t i = 0; i < inner; i++) {
                double m = -INFINITY;
                for (int64_t l = 0; l < len; l++)
                    m = std::max(m, (double)F(x)[(o * len + l) * inner + i]);
                double mm = std::isinf(m) ? 0 : m, s = 0;
                for (int64_t l = 0; l < len; l++)
                    s += exp(F(x)[(o * len + l) * inner + i] - mm);
                w[o * inner + i] = log(s) + mm;
            }
        close(pass == 0 ? "logsumexp rows" : pass == 1 ? "logsumexp long rows" : "logsumexp columns", F(y), w, 1e-6);
    }
    // softmax rows short/long, columns
    for (int pass = 0; pass < 3; pass++) {
        const int64_t outer = 3, len = pass == 1 ? 4100 : 33, inner = pass == 2 ? 70 : 1;
        nk_tensor x = mk(&r, {outer, len, inner}, -50, 50);
        nk_tensor y = nk_softmax(&r, NK_NEW, x, 1);
        std::vector<double> w(outer * len * inner);
        for (int64_t o = 0; o < outer; o++)
            for (int64_t i = 0; i < inner; i++) {
                double m = -INFINITY, s = 0;
                for (int64_t l = 0; l < len; l++)
                    m = std::max(m, (double)F(x)[(o * len + l) * inner + i]);
                for (int64_t l = 0; l < len; l++)
                    s += exp(F(x)[(o * len + l) * inner + i] - m);
                for (int64_t l = 0; l < len; l++)
                    w[(o * len + l) * inner + i] = exp(F(x)[(o * len + l) * inner + i] - m) / s;
            }
        /* exp(x - max) of float x - max: relative error ~|x - max| 2^-24, here up to 100 2^-24 */
        close(pass == 0 ? "softmax rows" : pass == 1 ? "softmax long rows" : "softmax columns", F(y), w, 1e-5, 1e-30);
    }
    expect(r.status == 0, "reduce: no failure");
    nk_end(&r);
}

/* ---- norms ---- */
static void test_norm()
{
    nk_ref r = R();
    struct {
        const char *name;
        std::vector<int64_t> shape;
        int kind; // 0 bn, 1 in, 2 gn, 3 ln
        int G;
        float off;
    } cases[] = {{"batch norm planes", {3, 5, 4, 7}, 0, 0, 1000},
                 {"batch norm 2-d (columns)", {700, 40}, 0, 0, 1000},
                 {"instance norm", {3, 5, 40, 70}, 1, 0, 0},
                 {"instance norm (N,1,1,L)", {6, 1, 1, 3000}, 1, 0, 1000},
                 {"group norm 4-d", {2, 8, 9, 300}, 2, 4, 1000},
                 {"group norm 2-d, short groups", {33, 64}, 2, 16, 0},
                 {"layer norm last dim", {3, 4, 5, 64}, 3, 0, 1000}};
    for (auto &c : cases) {
        nk_tensor x = mk(&r, c.shape, c.off, c.off + 1);
        const int64_t N = c.shape[0], C = c.shape[1];
        int64_t S = 1;
        for (size_t d = 2; d < c.shape.size(); d++)
            S *= c.shape[d];
        const int64_t L = c.kind == 3 ? c.shape.back() : 0;
        nk_tensor w = mk(&r, {c.kind == 3 ? L : C}), b = mk(&r, {c.kind == 3 ? L : C});
        nk_tensor y = c.kind == 0   ? nk_batch_norm_train(&r, NK_NEW, x, w, b, NK_NEW, NK_NEW, 0.1, 1e-5)
                      : c.kind == 1 ? nk_instance_norm(&r, NK_NEW, x, w, b, 1e-5)
                      : c.kind == 2 ? nk_group_norm(&r, NK_NEW, x, c.G, w, b, 1e-5)
                                    : nk_layer_norm(&r, NK_NEW, x, 1, w, b, 1e-5);
        const int64_t n = nk_numel(x);
        std::vector<int64_t> stat(n), chan(n);
        for (int64_t i = 0; i < n; i++) {
            const int64_t ni = i / (C * S), ci = (i / S) % C;
            if (c.kind == 0)
                stat[i] = ci, chan[i] = ci;
            else if (c.kind == 1)
                stat[i] = ni * C + ci, chan[i] = ci;
            else if (c.kind == 2)
                stat[i] = ni * c.G + ci / (C / c.G), chan[i] = ci;
            else
                stat[i] = i / L, chan[i] = i % L;
        }
        const int64_t ns = *std::max_element(stat.begin(), stat.end()) + 1;
        std::vector<double> mean(ns, 0), var(ns, 0), cnt(ns, 0), want(n);
        for (int64_t i = 0; i < n; i++)
            mean[stat[i]] += F(x)[i], cnt[stat[i]]++;
        for (int64_t s = 0; s < ns; s++)
            mean[s] /= cnt[s];
        for (int64_t i = 0; i < n; i++)
            var[stat[i]] += (F(x)[i] - mean[stat[i]]) * (F(x)[i] - mean[stat[i]]);
        for (int64_t i = 0; i < n; i++)
            want[i] = (F(x)[i] - mean[stat[i]]) / sqrt(var[stat[i]] / cnt[stat[i]] + 1e-5) * F(w)[chan[i]] + F(b)[chan[i]];
        close(c.name, F(y), want, 2e-6);
        (void)N;
    }
    expect(r.status == 0, "norm: no failure");
    nk_end(&r);
}

/* ---- pools ---- */
static int64_t pout(int64_t in, int k, int s, int p, int d, int ceil_mode)
{
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    int64_t o = (int64_t)floor((double)num / s) + 1;
    if (ceil_mode && (o - 1) * s >= in + p)
        o--;
    return o;
}

static void pool_case(int nd, bool max, std::vector<int64_t> shape, int k, int s, int p, int d, int ceil_mode, int cip)
{
    nk_ref r = R();
    nk_tensor x = mk(&r, shape);
    F(x)[5] = NAN;
    nk_tensor y;
    if (max)
        y = nd == 1 ? nk_max_pool1d(&r, NK_NEW, x, k, s, p, d, ceil_mode)
            : nd == 2 ? nk_max_pool2d(&r, NK_NEW, x, k, s, p, d, ceil_mode)
                      : nk_max_pool3d(&r, NK_NEW, x, k, s, p, d, ceil_mode);
    else
        y = nd == 1 ? nk_avg_pool1d(&r, NK_NEW, x, k, s, p, ceil_mode, cip)
            : nd == 2 ? nk_avg_pool2d(&r, NK_NEW, x, k, s, p, ceil_mode, cip, 0)
                      : nk_avg_pool3d(&r, NK_NEW, x, k, s, p, ceil_mode, cip, 0);
    const int ss = s ? s : k;
    int64_t I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, planes = 1;
    for (size_t e = 0; e < shape.size() - nd; e++)
        planes *= shape[e];
    for (int e = 0; e < nd; e++) {
        I[3 - nd + e] = shape[shape.size() - nd + e];
        O[3 - nd + e] = pout(I[3 - nd + e], k, ss, p, max ? d : 1, ceil_mode);
    }
    int K[3] = {1, 1, 1}, S[3] = {1, 1, 1}, P[3] = {0, 0, 0}, D[3] = {1, 1, 1};
    for (int e = 3 - nd; e < 3; e++)
        K[e] = k, S[e] = ss, P[e] = p, D[e] = max ? d : 1;
    expect(nk_numel(y) == planes * O[0] * O[1] * O[2], "pool output size");
    std::vector<double> want(planes * O[0] * O[1] * O[2]);
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t o0 = 0; o0 < O[0]; o0++)
            for (int64_t o1 = 0; o1 < O[1]; o1++)
                for (int64_t o2 = 0; o2 < O[2]; o2++) {
                    const int64_t o[3] = {o0, o1, o2};
                    double m = -INFINITY, sum = 0;
                    int64_t cnt = 0, ps = 1;
                    bool nan = false;
                    for (int e = 0; e < 3; e++) {
                        int64_t lo = o[e] * S[e] - P[e], hi = std::min(lo + K[e], I[e] + P[e]);
                        ps *= hi - lo;
                    }
                    for (int a = 0; a < K[0]; a++)
                        for (int bb = 0; bb < K[1]; bb++)
                            for (int cc = 0; cc < K[2]; cc++) {
                                int64_t i0 = o0 * S[0] - P[0] + a * D[0], i1 = o1 * S[1] - P[1] + bb * D[1],
                                        i2 = o2 * S[2] - P[2] + cc * D[2];
                                if (i0 < 0 || i0 >= I[0] || i1 < 0 || i1 >= I[1] || i2 < 0 || i2 >= I[2])
                                    continue;
                                double v = F(x)[pl * I[0] * I[1] * I[2] + (i0 * I[1] + i1) * I[2] + i2];
                                nan |= std::isnan(v);
                                m = std::max(m, v);
                                sum += v;
                                cnt++;
                            }
                    want[((pl * O[0] + o0) * O[1] + o1) * O[2] + o2] = max ? (nan ? NAN : m) : sum / (cip ? ps : cnt);
                }
    char name[128];
    snprintf(name, sizeof name, "%s_pool%dd k%d s%d p%d d%d ceil%d cip%d", max ? "max" : "avg", nd, k, s, p, d,
             ceil_mode, cip);
    close(name, F(y), want, 1e-6);
    nk_end(&r);
}

static void test_pool()
{
    pool_case(2, true, {2, 3, 9, 10}, 2, 2, 0, 1, 0, 0);
    pool_case(2, true, {2, 3, 9, 10}, 3, 2, 1, 1, 1, 0);
    pool_case(3, true, {2, 2, 7, 6, 5}, 2, 0, 0, 1, 0, 0);
    pool_case(3, true, {1, 2, 9, 9, 9}, 3, 2, 1, 2, 1, 0);
    pool_case(1, true, {4, 1, 33}, 2, 0, 0, 1, 0, 0);
    pool_case(2, false, {2, 3, 9, 10}, 2, 0, 0, 1, 0, 1);
    pool_case(2, false, {2, 3, 9, 10}, 3, 2, 1, 1, 1, 1);
    pool_case(2, false, {2, 3, 9, 10}, 3, 2, 1, 1, 1, 0);
    pool_case(3, false, {2, 2, 7, 6, 5}, 2, 0, 0, 1, 0, 1);
    pool_case(1, false, {4, 1, 64}, 16, 0, 0, 1, 0, 1);
}

static void test_views()
{
    nk_ref r = R();
    nk_tensor x = mk(&r, {4, 6});
    nk_tensor u = nk_unsqueeze(&r, nk_unsqueeze(&r, x, 1), 1);
    expect(u.ndim == 4 && u.shape[1] == 1 && u.shape[2] == 1 && u.shape[3] == 6 && nk_is_contiguous(u), "unsqueeze twice");
    nk_tensor s = nk_squeeze(&r, nk_squeeze(&r, u, 1), 1);
    expect(s.ndim == 2 && s.shape[0] == 4 && s.shape[1] == 6, "squeeze back");
    expect(nk_squeeze(&r, x, 1).ndim == 2, "squeeze of a size-6 dim is a no-op");
    nk_tensor v = NK_VIEW(&r, x, 2, -1, 3);
    expect(v.ndim == 3 && v.shape[1] == 4, "view with -1");
    nk_tensor e = NK_EMPTY(&r, KB_I64, 4, 1);
    expect(e.dtype == KB_I64 && e.ndim == 2, "NK_EMPTY");
    nk_drop(&r, e);
    const nk_conv_params *p = NK_CONV_PARAMS(.stride = {2, 2}, .padding = {1, 1}, .output_padding = {1, 1});
    (void)p;
    expect(r.status == 0, "views: no failure");
    nk_end(&r);
}

int main()
{
    test_views();
    test_elementwise();
    test_gemm();
    test_conv();
    test_reduce();
    test_norm();
    test_pool();
    expect(emu_live_allocations == 0, "every scratch allocation freed by the scope's end");
    printf("kit_test: %d checks, %d failures, %ld launches, %ld allocations left\n", checks, failures, emu_launches,
           emu_live_allocations);
    return failures != 0;
}
