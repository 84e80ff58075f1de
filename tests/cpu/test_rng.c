/*
 * test_rng.c -- lib/core/kb_rng.h: Philox4x32-10, the tensor generators, draws, fp16/bf16 rounding.
 *
 * What is pinned, and why it matters:
 *   - Philox4x32-10 against Random123's known-answer vectors (kat_vectors), and the counter/key
 *     layout (element lo, element hi, tensor, stream; key = seed lo, hi): the GPU generator and
 *     every stored artifact depend on it bit for bit.
 *   - A few literal generator values at seed 42: a change of which word feeds which transform
 *     silently changes every input the paper protocol draws.
 *   - Each generator's range and moments over 1e6 draws (fixed seeds, so deterministic; the
 *     limits are ~5 sigma, so a correct change of seeds would still pass).
 *   - kb_u01: a multiple of 2^-24, never 1.0 (checked for all 2^24 grid points).
 *   - kb_draw_value: scale applied after rounding to the dtype, as an fp32 multiply (x * s in
 *     PyTorch); zero_fraction; integer tensors never scaled, sparsified or overridden.
 *   - fp16: all 65536 halves decode exactly and round-trip; every tie and its neighbours round
 *     to nearest-even; subnormals; overflow to inf from 65520; NaN stays NaN. bf16: 1e7 random
 *     floats plus every tie and its neighbours against an independent reference rounding.
 */
#include "kbt.h"

#include <float.h>
#include <math.h>

#include "core/kb_rng.h"

/* ---- Philox known answers ---------------------------------------------------------------------- */

typedef struct kat {
    uint32_t ctr[4], key[2], out[4];
} kat;

/* Random123 1.14, examples/kat_vectors, "philox4x32 10" lines. */
static const kat philox_kats[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
    {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
     {0xffffffffu, 0xffffffffu},
     {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
    {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
     {0xa4093822u, 0x299f31d0u},
     {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
};

static void test_philox_kat(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof philox_kats / sizeof philox_kats[0]; i++) {
        const kat *k = &philox_kats[i];
        kb_u32x4 c = {{k->ctr[0], k->ctr[1], k->ctr[2], k->ctr[3]}};
        kb_u32x4 o = kb_philox4x32(c, k->key[0], k->key[1], 10);
        for (int j = 0; j < 4; j++)
            KBT_CHECK(o.v[j] == k->out[j], "KAT %zu word %d: got %08x, want %08x", i, j, o.v[j], k->out[j]);
        /* The same vector through the element addressing: counter = (i lo, i hi, tensor, stream),
         * key = (seed lo, seed hi). */
        uint64_t seed = ((uint64_t)k->key[1] << 32) | k->key[0];
        uint64_t idx = ((uint64_t)k->ctr[1] << 32) | k->ctr[0];
        kb_u32x4 w = kb_rng_words(seed, k->ctr[2], k->ctr[3], idx);
        for (int j = 0; j < 4; j++)
            KBT_CHECK(w.v[j] == k->out[j], "kb_rng_words layout, KAT %zu word %d: got %08x, want %08x", i, j, w.v[j],
                      k->out[j]);
    }
    /* Fewer rounds is a different function (guards against a loop that ignores `rounds`). */
    kb_u32x4 z = {{0, 0, 0, 0}};
    kb_u32x4 o7 = kb_philox4x32(z, 0, 0, 7);
    KBT_CHECK(o7.v[0] != 0x6627e8d5u, "philox with 7 rounds equals the 10-round answer");
    print_message("Philox4x32-10: %zu Random123 known-answer vectors, direct and through kb_rng_words\n",
                  sizeof philox_kats / sizeof philox_kats[0]);
}

/* ---- pinned generator values ------------------------------------------------------------------- */

typedef struct pinned {
    kb_gen g;
    double v[4]; /* at seed 42, tensor 3, elements 0, 1, 12345, 2^33 + 7 */
    double rel;  /* tolerance: 0 = exact; libm-dependent transforms get 1e-14 */
} pinned;

static const pinned pins[] = {
    {{KB_GEN_RAND, 0, 0}, {0x1.4a34cp-5, 0x1.0b51bep-1, 0x1.cb5598p-3, 0x1.0ba75ap-1}, 0},
    {{KB_GEN_RANDN, 0, 0}, {-0x1.31a2b990342fcp+1, 0x1.b4a0694a75f4cp-1, -0x1.b165e9448f642p+0, -0x1.3c46565939089p-1}, 1e-14},
    {{KB_GEN_UNIFORM, -2, 3}, {-0x1.cc67c2p+0, 0x1.3898b6p-1, -0x1.c1d502p-1, 0x1.3a44c2p-1}, 0},
    {{KB_GEN_KAIMING_UNIFORM, 1024, 0}, {-0x1.d6b968p-6, 0x1.6a37cp-10, -0x1.1a5534p-6, 0x1.74eb4p-10}, 0},
    {{KB_GEN_RANDINT, -5, 5}, {-5, 0, -3, 0}, 0},
    {{KB_GEN_BERNOULLI, 0.3, 0}, {1, 0, 1, 0}, 0},
    {{KB_GEN_SIGN, 0, 0}, {-1, -1, -1, -1}, 0},
    {{KB_GEN_LOGUNIFORM_SIGNED, -3, 3}, {0x1.c97fb849ac1cfp-10, 0x1.5b7254e09634ap+0, -0x1.6b2ef649fc08cp-6, -0x1.5e9893b8d646cp+0}, 1e-14},
    {{KB_GEN_ONES, 0, 0}, {1, 1, 1, 1}, 0},
    {{KB_GEN_ZEROS, 0, 0}, {0, 0, 0, 0}, 0},
    {{KB_GEN_CONST, 2.5, 0}, {2.5, 2.5, 2.5, 2.5}, 0},
};

static void test_pinned_values(void **state)
{
    (void)state;
    const uint64_t idx[4] = {0, 1, 12345, (1ull << 33) + 7};
    for (size_t p = 0; p < sizeof pins / sizeof pins[0]; p++)
        for (int k = 0; k < 4; k++) {
            double v = kb_gen_value(pins[p].g, 42, 3, idx[k]);
            double want = pins[p].v[k];
            int ok = pins[p].rel == 0 ? v == want : fabs(v - want) <= pins[p].rel * fabs(want);
            KBT_CHECK(ok, "generator kind %d element %llu: got %a, pinned %a", (int)pins[p].g.kind,
                      (unsigned long long)idx[k], v, want);
        }
    /* Which words feed which transform. */
    for (uint64_t i = 0; i < 1000; i++) {
        kb_u32x4 w = kb_rng_words(7, 1, KB_STREAM_VALUE, i);
        double r = kb_gen_value((kb_gen){KB_GEN_RAND, 0, 0}, 7, 1, i);
        KBT_CHECK(r == (double)(w.v[0] >> 8) * 0x1p-24, "rand element %llu is not the top 24 bits of word 0",
                  (unsigned long long)i);
        double s = kb_gen_value((kb_gen){KB_GEN_SIGN, 0, 0}, 7, 1, i);
        KBT_CHECK(s == ((w.v[0] & 1u) ? 1.0 : -1.0), "sign element %llu is not bit 0 of word 0", (unsigned long long)i);
    }
    print_message("pinned: %zu generator kinds x 4 elements at seed 42 (incl. element 2^33+7); word usage of rand/sign\n",
                  sizeof pins / sizeof pins[0]);
}

/* ---- determinism and independence ----------------------------------------------------------------- */

static double correlation(const double *a, const double *b, size_t n)
{
    double ma = 0, mb = 0;
    for (size_t i = 0; i < n; i++) {
        ma += a[i];
        mb += b[i];
    }
    ma /= (double)n;
    mb /= (double)n;
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / sqrt(saa * sbb);
}

static void test_determinism_independence(void **state)
{
    (void)state;
    enum { N = 200000 };
    kb_gen g = {KB_GEN_RAND, 0, 0};
    double *base = malloc(N * sizeof *base), *other = malloc(N * sizeof *other);
    assert_non_null(base);
    assert_non_null(other);
    for (size_t i = 0; i < N; i++)
        base[i] = kb_gen_value(g, 42, 5, i);
    for (size_t i = 0; i < N; i++)
        KBT_CHECK(kb_gen_value(g, 42, 5, i) == base[i], "element %zu not reproducible", i);

    /* Each coordinate of (seed, tensor, element) gives an unrelated stream: equal values only by
     * chance (P = 2^-24 per element) and no correlation (|r| < 5 / sqrt(N)). */
    struct {
        const char *what;
        uint64_t seed;
        uint32_t tensor;
        uint64_t offset;
    } variants[] = {
        {"seed + 1", 43, 5, 0},
        {"seed + 2^32 (high key word)", 42 + (1ull << 32), 5, 0},
        {"tensor + 1", 42, 6, 0},
        {"element + 1", 42, 5, 1},
        {"element + 2^32 (high counter word)", 42, 5, 1ull << 32},
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        size_t equal = 0;
        for (size_t i = 0; i < N; i++) {
            other[i] = kb_gen_value(g, variants[v].seed, variants[v].tensor, i + variants[v].offset);
            equal += other[i] == base[i];
        }
        double r = correlation(base, other, N);
        KBT_CHECK(equal <= 5, "%s: %zu of %d elements equal the base stream", variants[v].what, equal, N);
        KBT_CHECK(fabs(r) < 5.0 / sqrt((double)N), "%s: correlation %g with the base stream", variants[v].what, r);
        print_message("independence, %-36s equal %zu / %d, r = %+.5f\n", variants[v].what, equal, N, r);
    }
    /* The sparsity stream is not the value stream. */
    size_t same = 0;
    for (size_t i = 0; i < N; i++)
        same += kb_rng_words(42, 5, KB_STREAM_VALUE, i).v[0] == kb_rng_words(42, 5, KB_STREAM_SPARSITY, i).v[0];
    KBT_CHECK(same <= 2, "value and sparsity streams agree on %zu words", same);
    free(base);
    free(other);
}

/* ---- generators: range and moments ------------------------------------------------------------- */

typedef struct moments {
    double mean, var, min, max, m4; /* m4: fourth central moment / var^2 (kurtosis) */
    size_t n_nonfinite;
} moments;

static moments draw_moments(kb_gen g, uint64_t seed, uint32_t tensor, size_t n)
{
    moments m = {0, 0, INFINITY, -INFINITY, 0, 0};
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++) {
        x[i] = kb_gen_value(g, seed, tensor, i);
        if (!isfinite(x[i]))
            m.n_nonfinite++;
        m.mean += x[i];
        if (x[i] < m.min)
            m.min = x[i];
        if (x[i] > m.max)
            m.max = x[i];
    }
    m.mean /= (double)n;
    double s2 = 0, s4 = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - m.mean;
        s2 += d * d;
        s4 += d * d * d * d;
    }
    m.var = s2 / (double)(n - 1);
    m.m4 = (s4 / (double)n) / (m.var * m.var);
    free(x);
    return m;
}

#define NDRAW 1000000

static void test_gen_rand_uniform(void **state)
{
    (void)state;
    moments m = draw_moments((kb_gen){KB_GEN_RAND, 0, 0}, 1, 0, NDRAW);
    KBT_CHECK(m.min >= 0.0 && m.max < 1.0, "rand range [%g, %g]", m.min, m.max);
    KBT_CHECK(fabs(m.mean - 0.5) < 1.5e-3, "rand mean %g (want 0.5)", m.mean);
    KBT_CHECK(fabs(m.var - 1.0 / 12) < 4e-4, "rand var %g (want %g)", m.var, 1.0 / 12);
    print_message("rand:    mean %.5f var %.5f range [%g, %g]\n", m.mean, m.var, m.min, m.max);

    m = draw_moments((kb_gen){KB_GEN_UNIFORM, -2, 3}, 1, 1, NDRAW);
    KBT_CHECK(m.min >= -2.0 && m.max < 3.0, "uniform(-2,3) range [%g, %g]", m.min, m.max);
    KBT_CHECK(m.min < -1.99 && m.max > 2.99, "uniform(-2,3) does not fill its range: [%g, %g]", m.min, m.max);
    KBT_CHECK(fabs(m.mean - 0.5) < 8e-3, "uniform(-2,3) mean %g (want 0.5)", m.mean);
    KBT_CHECK(fabs(m.var - 25.0 / 12) < 1e-2, "uniform(-2,3) var %g (want %g)", m.var, 25.0 / 12);
    print_message("uniform(-2,3): mean %.4f var %.4f\n", m.mean, m.var);
}

static void test_gen_randn(void **state)
{
    (void)state;
    moments m = draw_moments((kb_gen){KB_GEN_RANDN, 0, 0}, 2, 0, NDRAW);
    KBT_CHECK(m.n_nonfinite == 0, "randn gave %zu non-finite values", m.n_nonfinite);
    KBT_CHECK(fabs(m.mean) < 5e-3, "randn mean %g (want 0)", m.mean);
    KBT_CHECK(fabs(m.var - 1.0) < 7e-3, "randn var %g (want 1)", m.var);
    KBT_CHECK(fabs(m.m4 - 3.0) < 0.05, "randn kurtosis %g (want 3)", m.m4);
    /* Box-Muller with u1 >= 2^-24 bounds |x| by sqrt(2 * 24 ln 2) = 5.77. */
    KBT_CHECK(m.max <= 5.77 && m.min >= -5.77, "randn range [%g, %g]", m.min, m.max);
    size_t within = 0;
    for (size_t i = 0; i < NDRAW; i++)
        within += fabs(kb_gen_value((kb_gen){KB_GEN_RANDN, 0, 0}, 2, 0, i)) < 1.0;
    double frac = (double)within / NDRAW;
    KBT_CHECK(fabs(frac - 0.682689) < 2.5e-3, "randn P(|x|<1) = %g (want 0.6827)", frac);
    print_message("randn:   mean %+.5f var %.5f kurtosis %.4f P(|x|<1) %.5f range [%.3f, %.3f]\n", m.mean, m.var, m.m4,
                  frac, m.min, m.max);
}

static void test_gen_kaiming(void **state)
{
    (void)state;
    const double fans[] = {1, 3, 1024, 4096 * 9};
    for (size_t f = 0; f < sizeof fans / sizeof fans[0]; f++) {
        double bound = 1.0 / sqrt(fans[f]);
        moments m = draw_moments((kb_gen){KB_GEN_KAIMING_UNIFORM, fans[f], 0}, 3, (uint32_t)f, NDRAW);
        KBT_CHECK(m.min >= -bound && m.max < bound, "kaiming(fan_in %g) range [%g, %g], bound %g", fans[f], m.min, m.max,
                  bound);
        KBT_CHECK(m.min < -0.999 * bound && m.max > 0.999 * bound, "kaiming(fan_in %g) does not reach its bound %g",
                  fans[f], bound);
        KBT_CHECK(fabs(m.mean) < 3e-3 * bound, "kaiming(fan_in %g) mean %g", fans[f], m.mean);
        KBT_CHECK(fabs(m.var / (bound * bound / 3.0) - 1.0) < 5e-3, "kaiming(fan_in %g) var %g, want %g", fans[f], m.var,
                  bound * bound / 3.0);
        print_message("kaiming(fan_in %6g): bound %.6f range [%.6f, %.6f] var/(b^2/3) %.4f\n", fans[f], bound, m.min,
                      m.max, m.var / (bound * bound / 3.0));
    }
}

static void test_gen_randint(void **state)
{
    (void)state;
    const struct {
        double a, b, chi2_max; /* chi2_max: about p = 1e-6 for range - 1 degrees of freedom */
    } cases[] = {{0, 10, 45}, {-5, 5, 45}, {0, 2, 25}, {0, 1000, 1300}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kb_gen g = {KB_GEN_RANDINT, cases[c].a, cases[c].b};
        size_t range = (size_t)(cases[c].b - cases[c].a);
        size_t *count = calloc(range, sizeof *count);
        assert_non_null(count);
        for (size_t i = 0; i < NDRAW; i++) {
            double v = kb_gen_value(g, 4, (uint32_t)c, i);
            KBT_CHECK(v == floor(v) && v >= cases[c].a && v < cases[c].b, "randint[%g,%g) gave %g", cases[c].a,
                      cases[c].b, v);
            count[(size_t)(v - cases[c].a)]++;
        }
        double expect = (double)NDRAW / (double)range, chi2 = 0;
        for (size_t k = 0; k < range; k++) {
            KBT_CHECK(count[k] > 0, "randint[%g,%g) never drew %g", cases[c].a, cases[c].b, cases[c].a + (double)k);
            chi2 += ((double)count[k] - expect) * ((double)count[k] - expect) / expect;
        }
        KBT_CHECK(chi2 < cases[c].chi2_max, "randint[%g,%g) chi-square %g over %zu bins (limit %g)", cases[c].a,
                  cases[c].b, chi2, range, cases[c].chi2_max);
        print_message("randint[%g,%g): chi-square %.1f, df %zu (limit %g)\n", cases[c].a, cases[c].b, chi2, range - 1,
                      cases[c].chi2_max);
        free(count);
    }
}

static void test_gen_bernoulli_sign_logunif(void **state)
{
    (void)state;
    const double ps[] = {0.0, 0.3, 0.5, 1.0};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        size_t ones = 0;
        for (size_t i = 0; i < NDRAW; i++) {
            double v = kb_gen_value((kb_gen){KB_GEN_BERNOULLI, ps[k], 0}, 5, (uint32_t)k, i);
            KBT_CHECK(v == 0.0 || v == 1.0, "bernoulli gave %g", v);
            ones += v == 1.0;
        }
        double rate = (double)ones / NDRAW;
        KBT_CHECK(fabs(rate - ps[k]) < 2.5e-3, "bernoulli(%g) rate %g", ps[k], rate);
        print_message("bernoulli(%.1f): rate %.5f\n", ps[k], rate);
    }
    size_t pos = 0;
    for (size_t i = 0; i < NDRAW; i++) {
        double v = kb_gen_value((kb_gen){KB_GEN_SIGN, 0, 0}, 6, 0, i);
        KBT_CHECK(v == 1.0 || v == -1.0, "sign gave %g", v);
        pos += v > 0;
    }
    double share = (double)pos / NDRAW;
    KBT_CHECK(fabs(share - 0.5) < 2.5e-3, "sign: %g positive", share);
    print_message("sign: %.5f positive\n", share);

    /* +-10^U[-3,3): |x| in [1e-3, 1e3), log10|x| uniform (mean 0, var 3), signs balanced. */
    double s = 0, ss = 0, lo = INFINITY, hi = 0;
    pos = 0;
    for (size_t i = 0; i < NDRAW; i++) {
        double v = kb_gen_value((kb_gen){KB_GEN_LOGUNIFORM_SIGNED, -3, 3}, 7, 0, i);
        double l = log10(fabs(v));
        s += l;
        ss += l * l;
        lo = fmin(lo, fabs(v));
        hi = fmax(hi, fabs(v));
        pos += v > 0;
    }
    double mean = s / NDRAW, var = ss / NDRAW - mean * mean;
    KBT_CHECK(lo >= 1e-3 * (1 - 1e-12) && hi < 1e3, "logunif |x| range [%g, %g]", lo, hi);
    KBT_CHECK(lo < 1.01e-3 && hi > 0.99e3, "logunif does not fill [1e-3, 1e3): [%g, %g]", lo, hi);
    KBT_CHECK(fabs(mean) < 9e-3 && fabs(var - 3.0) < 0.02, "logunif log10|x| mean %g var %g (want 0, 3)", mean, var);
    KBT_CHECK(fabs((double)pos / NDRAW - 0.5) < 2.5e-3, "logunif: %g positive", (double)pos / NDRAW);
    print_message("logunif(-3,3): |x| in [%g, %g], log10 mean %+.4f var %.4f, %.4f positive\n", lo, hi, mean, var,
                  (double)pos / NDRAW);

    for (size_t i = 0; i < 1000; i++) {
        KBT_CHECK(kb_gen_value((kb_gen){KB_GEN_ONES, 0, 0}, 8, 0, i) == 1.0, "ones");
        KBT_CHECK(kb_gen_value((kb_gen){KB_GEN_ZEROS, 0, 0}, 8, 0, i) == 0.0, "zeros");
        KBT_CHECK(kb_gen_value((kb_gen){KB_GEN_CONST, -0.75, 0}, 8, 0, i) == -0.75, "const");
    }
}

/* ---- kb_u01 ------------------------------------------------------------------------------------ */

static void test_u01_grid(void **state)
{
    (void)state;
    /* Every 24-bit grid point, with varying low bits (which must be ignored). */
    for (uint32_t k = 0; k < (1u << 24); k++) {
        uint32_t w = (k << 8) | (k & 0xffu);
        double u = kb_u01(w);
        if (u != (double)k * 0x1p-24 || u >= 1.0 || (double)(float)u != u) {
            fail_msg("kb_u01(%08x) = %a, want %a (< 1, exact in fp32)", w, u, (double)k * 0x1p-24);
        }
        double o = kb_u01_open0(w);
        if (o != (double)(k + 1) * 0x1p-24 || o <= 0.0 || o > 1.0)
            fail_msg("kb_u01_open0(%08x) = %a, want %a in (0, 1]", w, o, (double)(k + 1) * 0x1p-24);
    }
    KBT_CHECK(kb_u01(0xffffffffu) == 1.0 - 0x1p-24, "kb_u01(max) = %a", kb_u01(0xffffffffu));
    KBT_CHECK(kb_u01(0xffu) == 0.0, "kb_u01(0xff) = %a", kb_u01(0xffu));
    KBT_CHECK(kb_u01_open0(0) == 0x1p-24, "kb_u01_open0(0) = %a", kb_u01_open0(0));
    KBT_CHECK(kb_u01_open0(0xffffffffu) == 1.0, "kb_u01_open0(max) = %a", kb_u01_open0(0xffffffffu));
    print_message("kb_u01: all 2^24 grid points are k * 2^-24 < 1; kb_u01_open0 in (0, 1]\n");
}

/* ---- reference roundings (independent of kb_rng.h: double arithmetic, nearbyint = RNE) -------- */

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Value of a half. */
static double ref_f16_value(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, -24);
    else
        v = ldexp(1024.0 + m, e - 25);
    return s ? -v : v;
}

/* Correctly rounded (RNE) half of a finite or infinite float; NaN handled by the caller. */
static uint16_t ref_f32_to_f16(float xf)
{
    double x = xf;
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isinf(a))
        return sign | 0x7c00;
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e); /* a in [2^(e-1), 2^e) */
    int ulp = (e - 1) - 10;
    if (ulp < -24)
        ulp = -24;
    double r = ldexp(nearbyint(ldexp(a, -ulp)), ulp);
    if (r > 65504.0)
        return sign | 0x7c00;
    if (r < 0x1p-14)
        return sign | (uint16_t)ldexp(r, 24);
    frexp(r, &e);
    int E = e - 1;
    return sign | (uint16_t)((E + 15) << 10) | (uint16_t)(ldexp(r, 10 - E) - 1024.0);
}

/* Correctly rounded (RNE) bf16 of a finite or infinite float. */
static uint16_t ref_f32_to_bf16(float xf)
{
    double x = xf;
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isinf(a))
        return sign | 0x7f80;
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);
    int ulp = (e - 1) - 7;
    if (ulp < -133)
        ulp = -133;
    double r = ldexp(nearbyint(ldexp(a, -ulp)), ulp);
    if (r > 0x1.fep127)
        return sign | 0x7f80;
    uint32_t bits = f2u((float)r);
    if (bits & 0xffffu)
        fail_msg("reference bf16 rounding of %a left low bits %08x", x, bits);
    return sign | (uint16_t)(bits >> 16);
}

static int f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
static int bf16_is_nan(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f); }

/* One float through kb_f32_to_f16 against the reference; returns 1 on a mismatch (printed). */
static int check_f16(float x, int *printed)
{
    uint16_t got = kb_f32_to_f16(x);
    if (isnan(x)) {
        if (f16_is_nan(got) && (got >> 15) == (f2u(x) >> 31))
            return 0;
    } else if (got == ref_f32_to_f16(x)) {
        return 0;
    }
    if ((*printed)++ < 10)
        print_error("f16(%a = %08x): got %04x, want %04x\n", (double)x, f2u(x), got,
                    isnan(x) ? 0x7e00 : ref_f32_to_f16(x));
    return 1;
}

static int check_bf16(float x, int *printed)
{
    uint16_t got = kb_f32_to_bf16(x);
    if (isnan(x)) {
        if (bf16_is_nan(got) && (got >> 15) == (f2u(x) >> 31))
            return 0;
    } else if (got == ref_f32_to_bf16(x)) {
        return 0;
    }
    if ((*printed)++ < 10)
        print_error("bf16(%a = %08x): got %04x, want %04x\n", (double)x, f2u(x), got,
                    isnan(x) ? 0x7fc0 : ref_f32_to_bf16(x));
    return 1;
}

static void test_f16_all_values_round_trip(void **state)
{
    (void)state;
    int bad = 0, printed = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = kb_f16_to_f32((uint16_t)h);
        double want = ref_f16_value((uint16_t)h);
        if (f16_is_nan((uint16_t)h)) {
            if (!isnan(f) && printed++ < 10)
                print_error("f16 %04x decodes to %a, not NaN\n", h, (double)f);
            bad += !isnan(f);
            uint16_t back = kb_f32_to_f16(f);
            if (!f16_is_nan(back) || (back & 0x8000) != (h & 0x8000)) {
                bad++;
                if (printed++ < 10)
                    print_error("f16 NaN %04x re-encodes as %04x\n", h, back);
            }
            continue;
        }
        if ((double)f != want || !!signbit(f) != !!signbit(want)) {
            bad++;
            if (printed++ < 10)
                print_error("f16 %04x decodes to %a, want %a\n", h, (double)f, want);
        }
        uint16_t back = kb_f32_to_f16(f);
        if (back != h) {
            bad++;
            if (printed++ < 10)
                print_error("f16 %04x -> %a -> %04x\n", h, (double)f, back);
        }
    }
    KBT_CHECK(bad == 0, "%d of 65536 half values do not decode exactly / round-trip", bad);
    print_message("fp16: all 65536 values decode exactly (ldexp reference) and round-trip; NaN stays NaN\n");
}

static void test_f16_rounding(void **state)
{
    (void)state;
    int bad = 0, printed = 0;
    size_t n = 0;
    /* Every finite positive half v, its successor v', the tie (v + v') / 2 and the float
     * neighbours of both (the tie is exact in fp32: 12 significant bits). */
    for (uint32_t h = 0; h < 0x7c00; h++) {
        double v = ref_f16_value((uint16_t)h);
        double next = h == 0x7bff ? 65536.0 : ref_f16_value((uint16_t)(h + 1));
        float tie = (float)((v + next) / 2);
        float pts[] = {(float)v, nextafterf((float)v, INFINITY), nextafterf((float)v, -INFINITY), tie,
                       nextafterf(tie, INFINITY), nextafterf(tie, -INFINITY)};
        for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
            bad += check_f16(pts[k], &printed) + check_f16(-pts[k], &printed);
            n += 2;
        }
    }
    /* 1e7 floats with exponents around the half range, and 1e7 arbitrary bit patterns. */
    uint64_t s = 12345;
    for (int i = 0; i < 10000000; i++) {
        uint64_t r = kbt_next(&s);
        uint32_t exp = 127 - 30 + (uint32_t)(r % 48); /* 2^-30 .. 2^17 */
        uint32_t u = ((uint32_t)(r >> 32) & 0x807fffffu) | (exp << 23);
        bad += check_f16(u2f(u), &printed);
        bad += check_f16(u2f((uint32_t)(r >> 8)), &printed);
        n += 2;
    }
    /* Named edge cases: (input, expected bits). */
    const struct {
        float x;
        uint16_t want;
    } edges[] = {
        {0.0f, 0x0000},         {-0.0f, 0x8000},         {1.0f, 0x3c00},
        {1.0f + 0x1p-11f, 0x3c00}, /* tie -> even */    {1.0f + 3 * 0x1p-11f, 0x3c02}, /* tie -> even (up) */
        {65504.0f, 0x7bff},     {65519.99f, 0x7bff},     {65520.0f, 0x7c00}, /* overflow threshold */
        {-65520.0f, 0xfc00},    {1e10f, 0x7c00},         {INFINITY, 0x7c00},
        {-INFINITY, 0xfc00},    {0x1p-14f, 0x0400},      /* smallest normal */
        {0x1p-24f, 0x0001},     /* smallest subnormal */ {0x1p-25f, 0x0000}, /* tie with 0 -> even (0) */
        {0x1.000002p-25f, 0x0001}, {3 * 0x1p-25f, 0x0002}, /* tie between 1 and 2 ulps -> 2 */
        {-0x1p-25f, 0x8000},    {0x1p-26f, 0x0000},      {0x1.ff4p-15f, 0x03fe}, /* tie between subnormals 1022, 1023 -> even */
        {0x1.ffcp-15f, 0x0400}, /* rounds up into the normals */
    };
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
        uint16_t got = kb_f32_to_f16(edges[k].x);
        KBT_CHECK(got == edges[k].want, "f16(%a) = %04x, want %04x", (double)edges[k].x, got, edges[k].want);
    }
    const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu};
    for (size_t k = 0; k < sizeof nans / sizeof nans[0]; k++) {
        uint16_t got = kb_f32_to_f16(u2f(nans[k]));
        KBT_CHECK(f16_is_nan(got) && (got >> 15) == (nans[k] >> 31), "f16 of NaN %08x = %04x", nans[k], got);
    }
    KBT_CHECK(bad == 0, "%d of %zu floats round to the wrong half", bad, n);
    print_message("fp16 rounding: %zu floats (all ties and neighbours, 2e7 random) + %zu named edge cases + NaNs\n", n,
                  sizeof edges / sizeof edges[0]);
}

static void test_bf16_rounding(void **state)
{
    (void)state;
    int bad = 0, printed = 0;
    size_t n = 0;
    /* Every bf16 pattern with low halves 0 (exact), the tie 0x8000 and its neighbours, and the
     * extremes: all ties of all binades, subnormals, overflow, and signalling NaNs (whose high
     * half alone would read as inf). */
    const uint32_t lows[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
    for (uint32_t h = 0; h < 65536; h++)
        for (size_t k = 0; k < sizeof lows / sizeof lows[0]; k++) {
            bad += check_bf16(u2f((h << 16) | lows[k]), &printed);
            n++;
        }
    uint64_t s = 777;
    for (int i = 0; i < 10000000; i++) {
        bad += check_bf16(u2f((uint32_t)kbt_next(&s)), &printed);
        n++;
    }
    for (uint32_t h = 0; h < 65536; h++) {
        float f = kb_bf16_to_f32((uint16_t)h);
        KBT_CHECK(f2u(f) == h << 16, "bf16 %04x decodes to %08x", h, f2u(f));
        if (!bf16_is_nan((uint16_t)h))
            KBT_CHECK(kb_f32_to_bf16(f) == h, "bf16 %04x does not round-trip", h);
    }
    KBT_CHECK(kb_f32_to_bf16(0x1.fefffep127f) == 0x7f7f, "just below the overflow tie");
    KBT_CHECK(kb_f32_to_bf16(0x1.ffp127f) == 0x7f80, "overflow tie rounds to inf (even)");
    KBT_CHECK(kb_f32_to_bf16(u2f(0x7f800001u)) != 0x7f80, "a signalling NaN became inf");
    KBT_CHECK(bad == 0, "%d of %zu floats round to the wrong bf16", bad, n);
    print_message("bf16 rounding: %zu floats (all 2^16 x {exact, tie, neighbours}, 1e7 random) vs reference; "
                  "all 65536 decode and round-trip\n",
                  n);
}

/* ---- draws ------------------------------------------------------------------------------------- */

/* fp32 product of two floats: the double product of two 24-bit significands is exact, so one
 * rounding to float is the IEEE single-precision multiply. */
static double f32_mul(float a, float b) { return (double)(float)((double)a * (double)b); }

static double ref_round16(double v, int bf)
{
    float f = (float)v;
    if (bf) {
        uint16_t h = ref_f32_to_bf16(f);
        return (double)u2f((uint32_t)h << 16);
    }
    return ref_f16_value(ref_f32_to_f16(f));
}

static void test_draw_scaling(void **state)
{
    (void)state;
    const double scales[] = {1.0, 3.0, 0.01, -1.0, 1e-6};
    const kb_gen gens[] = {{KB_GEN_RAND, 0, 0}, {KB_GEN_RANDN, 0, 0}, {KB_GEN_UNIFORM, -100, 100}};
    const kb_dtype types[] = {KB_F32, KB_F16, KB_BF16, KB_F64};
    const char *tname[] = {"f32", "f16", "bf16", "f64"};
    enum { N = 100000 };
    size_t differs_from_double_scale = 0;
    for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++)
        for (size_t gi = 0; gi < sizeof gens / sizeof gens[0]; gi++)
            for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
                kb_draw d = {1234, scales[si], 0, {KB_GEN_RAND, 0, 0}, 0.0};
                for (uint64_t i = 0; i < N; i++) {
                    double v = kb_gen_value(gens[gi], d.seed, 9, i);
                    double got = kb_draw_value(&d, gens[gi], types[ti], 9, i);
                    double want;
                    switch (types[ti]) {
                    case KB_F32:
                        want = f32_mul((float)v, (float)scales[si]);
                        differs_from_double_scale += want != (double)(float)(v * scales[si]);
                        break;
                    case KB_F16:
                    case KB_BF16: {
                        int bf = types[ti] == KB_BF16;
                        want = ref_round16(f32_mul((float)ref_round16(v, bf), (float)scales[si]), bf);
                        break;
                    }
                    default:
                        want = v * scales[si];
                        break;
                    }
                    if (!(got == want && !!signbit(got) == !!signbit(want)))
                        fail_msg("draw %s scale %g gen %d element %llu: got %a, want %a (value %a)", tname[ti],
                                 scales[si], (int)gens[gi].kind, (unsigned long long)i, got, want, v);
                }
            }
    /* The check above would also pass a kb_draw_value that scaled in double and rounded once if
     * the two never differed; they do, so the order of rounding is really pinned. */
    KBT_CHECK(differs_from_double_scale > 1000,
              "fp32 x*s and round(v*s) differ on only %zu draws: the scaling test cannot tell them apart",
              differs_from_double_scale);
    print_message("draw scaling: 5 scales x 3 generators x {f32, f16, bf16, f64} x %d elements match "
                  "round(round(v) * s) (%zu fp32 cases differ from rounding v*s once)\n",
                  N, differs_from_double_scale);
}

static void test_draw_zero_fraction(void **state)
{
    (void)state;
    const double fracs[] = {0.0, 0.1, 0.5, 1.0};
    for (size_t k = 0; k < sizeof fracs / sizeof fracs[0]; k++) {
        kb_draw d = {99, -3.0, 0, {KB_GEN_RAND, 0, 0}, fracs[k]};
        kb_draw dense = d;
        dense.zero_fraction = 0.0;
        kb_gen g = {KB_GEN_RANDN, 0, 0};
        size_t zeros = 0;
        for (uint64_t i = 0; i < NDRAW; i++) {
            double v = kb_draw_value(&d, g, KB_F32, 2, i);
            int should = kb_u01(kb_rng_words(99, 2, KB_STREAM_SPARSITY, i).v[0]) < fracs[k];
            if (should != (v == 0.0))
                fail_msg("zero_fraction %g element %llu: value %a, sparsity draw says %s", fracs[k],
                         (unsigned long long)i, v, should ? "zero" : "keep");
            if (v != 0.0 && v != kb_draw_value(&dense, g, KB_F32, 2, i))
                fail_msg("zero_fraction %g changed a kept value at %llu", fracs[k], (unsigned long long)i);
            zeros += v == 0.0;
        }
        double share = (double)zeros / NDRAW;
        KBT_CHECK(fabs(share - fracs[k]) < 2.5e-3, "zero_fraction %g gave %g zeros", fracs[k], share);
        print_message("zero_fraction %.1f: %.5f exact zeros (kept values unchanged)\n", fracs[k], share);
    }
}

static void test_draw_integers_untouched(void **state)
{
    (void)state;
    /* The most aggressive float transform: scale, sparsity and a generator override. */
    kb_draw d = {5, -3.0, 1, {KB_GEN_UNIFORM, -1, 1}, 0.5};
    const struct {
        kb_dtype t;
        kb_gen g;
    } cases[] = {
        {KB_I64, {KB_GEN_RANDINT, 0, 1000}},
        {KB_I32, {KB_GEN_RANDINT, -7, 7}},
        {KB_BOOL, {KB_GEN_BERNOULLI, 0.5, 0}},
        {KB_I64, {KB_GEN_SIGN, 0, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (uint64_t i = 0; i < 100000; i++) {
            double want = kb_gen_value(cases[c].g, 5, 4, i);
            double got = kb_draw_value(&d, cases[c].g, cases[c].t, 4, i);
            if (got != want)
                fail_msg("integer dtype %d gen %d element %llu: drawn %g, generator says %g", (int)cases[c].t,
                         (int)cases[c].g.kind, (unsigned long long)i, got, want);
        }
    /* Floats do take the override. */
    for (uint64_t i = 0; i < 100000; i++) {
        kb_draw o = {5, 1.0, 1, {KB_GEN_UNIFORM, -1, 1}, 0.0};
        double got = kb_draw_value(&o, (kb_gen){KB_GEN_RAND, 0, 0}, KB_F32, 4, i);
        double want = (double)(float)kb_gen_value(o.gen, 5, 4, i);
        if (got != want)
            fail_msg("float override element %llu: got %a, want %a", (unsigned long long)i, got, want);
    }
    KBT_CHECK(kb_dtype_is_float(KB_F32) && kb_dtype_is_float(KB_F16) && kb_dtype_is_float(KB_BF16) &&
                  kb_dtype_is_float(KB_F64) && !kb_dtype_is_float(KB_I64) && !kb_dtype_is_float(KB_I32) &&
                  !kb_dtype_is_float(KB_BOOL),
              "kb_dtype_is_float classification");
    print_message("draws: i64/i32/bool tensors ignore scale -3, zero_fraction 0.5 and the override; floats take it\n");
}

/* The structured generators: what a KernelBench get_inputs() does to torch.rand, element by
 * element (the softmax rows' normalisation is the device generator's second pass). */
static void test_structured(void **state)
{
    (void)state;
    kb_tensor_spec sp = {"A", KB_F32, KB_SHAPE(3, 8, 8), KB_ROLE_INPUT, {KB_GEN_RAND_SYMMETRIC, 0, 0}, 0};
    kb_draw d = {11, 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    kb_gen g = kb_gen_resolve(&sp);
    KBT_CHECK(g.a == 8, "resolved last dimension %g", g.a);
    int asym = 0, zeros_ok = 1, scaled_ok = 1;
    for (uint64_t b = 0; b < 3; b++)
        for (uint64_t r = 0; r < 8; r++)
            for (uint64_t c = 0; c < 8; c++) {
                uint64_t i = b * 64 + r * 8 + c, j = b * 64 + c * 8 + r;
                double v = kb_draw_value(&d, g, KB_F32, 2, i), w = kb_draw_value(&d, g, KB_F32, 2, j);
                asym += v != w || !(v >= 0 && v < 1);
            }
    KBT_CHECK(asym == 0, "%d elements of the symmetric draw break A == A.T or [0,1)", asym);
    kb_gen tu = {KB_GEN_RAND_TRIU, 8, 0}, tl = {KB_GEN_RAND_TRIL, 8, 0}, sc = {KB_GEN_RAND_SCALED, 8, 0};
    kb_gen plain = {KB_GEN_RAND, 0, 0};
    double ratio = -1;
    for (uint64_t r = 0; r < 8; r++)
        for (uint64_t c = 0; c < 8; c++) {
            uint64_t i = r * 8 + c;
            double u = kb_draw_value(&d, tu, KB_F32, 4, i), l = kb_draw_value(&d, tl, KB_F32, 4, i);
            double base = kb_draw_value(&d, plain, KB_F32, 4, i);
            zeros_ok &= (c < r ? u == 0 : u == base) && (c > r ? l == 0 : l == base);
            double s = kb_draw_value(&d, sc, KB_F32, 4, i) / base;
            if (ratio < 0)
                ratio = s;
            scaled_ok &= fabs(s - ratio) < 1e-6 && s >= 0 && s < 1;
        }
    KBT_CHECK(zeros_ok, "triu / tril: the other triangle is not zero or the kept one is not the plain draw");
    KBT_CHECK(scaled_ok, "scaled: not one common factor in [0,1) (first %g)", ratio);
    /* under a distribution that overrides the generator, the structure stays */
    kb_draw n = {11, 3.0, 1, {KB_GEN_RANDN, 0, 0}, 0.0};
    KBT_CHECK(kb_draw_value(&n, g, KB_F32, 2, 1) == kb_draw_value(&n, g, KB_F32, 2, 8), "symmetry lost under an override");
    KBT_CHECK(kb_draw_value(&n, tu, KB_F32, 4, 8) == 0, "triu lost under an override");
    print_message("structured: symmetric, triu, tril, scaled hold their structure, also under a distribution\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_kat),
        cmocka_unit_test(test_pinned_values),
        cmocka_unit_test(test_determinism_independence),
        cmocka_unit_test(test_gen_rand_uniform),
        cmocka_unit_test(test_gen_randn),
        cmocka_unit_test(test_gen_kaiming),
        cmocka_unit_test(test_gen_randint),
        cmocka_unit_test(test_gen_bernoulli_sign_logunif),
        cmocka_unit_test(test_u01_grid),
        cmocka_unit_test(test_f16_all_values_round_trip),
        cmocka_unit_test(test_f16_rounding),
        cmocka_unit_test(test_bf16_rounding),
        cmocka_unit_test(test_draw_scaling),
        cmocka_unit_test(test_draw_zero_fraction),
        cmocka_unit_test(test_draw_integers_untouched),
        cmocka_unit_test(test_structured),
    };
    return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
