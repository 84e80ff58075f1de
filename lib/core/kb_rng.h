/*
 * kb_rng.h -- counter-based random numbers and the tensor generators, identical on host and
 * device.
 *
 * Every element of every generated tensor is a pure function of (seed, tensor index, element
 * index): Philox4x32-10 (Salmon et al., SC'11) with counter = (element lo, element hi, tensor,
 * stream) and key = seed. So a tensor of 2^32 elements is generated in parallel on the GPU, any
 * element can be recomputed on the host to check it, and two runs with the same seed see the
 * same data bit for bit. The code is plain C with KB_HD markers so that gpu/tensor.cu and the
 * host tests compile the same functions.
 *
 * Exactness: uniform values are multiples of 2^-24 (exact in fp32); every transform is computed
 * in double and rounded once to the target dtype, so host and device agree bit for bit except
 * for randn, whose log/cos may differ in the last double bit between libm and CUDA (after
 * rounding to fp32 they agree except in rare ties; the GPU suite measures it).
 */
#ifndef KB_RNG_H
#define KB_RNG_H

#include <math.h>
#include <stdint.h>

#include "kb/problem.h"

#include "core/kb_hd.h"

typedef struct kb_u32x4 {
    uint32_t v[4];
} kb_u32x4;

KB_HD uint32_t kb_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* Philox4x32 with R rounds (R = 10 is the standard, known-answer-tested variant). */
KB_HD kb_u32x4 kb_philox4x32(kb_u32x4 ctr, uint32_t k0, uint32_t k1, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        if (r > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint32_t hi0, hi1;
        uint32_t lo0 = kb_mulhilo32(0xD2511F53u, ctr.v[0], &hi0);
        uint32_t lo1 = kb_mulhilo32(0xCD9E8D57u, ctr.v[2], &hi1);
        kb_u32x4 n;
        n.v[0] = hi1 ^ ctr.v[1] ^ k0;
        n.v[1] = lo1;
        n.v[2] = hi0 ^ ctr.v[3] ^ k1;
        n.v[3] = lo0;
        ctr = n;
    }
    return ctr;
}

/* Four random words for element `i` of tensor `tensor` in draw `stream` under `seed`. */
KB_HD kb_u32x4 kb_rng_words(uint64_t seed, uint32_t tensor, uint32_t stream, uint64_t i)
{
    kb_u32x4 c;
    c.v[0] = (uint32_t)i;
    c.v[1] = (uint32_t)(i >> 32);
    c.v[2] = tensor;
    c.v[3] = stream;
    return kb_philox4x32(c, (uint32_t)seed, (uint32_t)(seed >> 32), 10);
}

/* U[0,1) on a 2^-24 grid: exact in fp32, never 1. */
KB_HD double kb_u01(uint32_t w) { return (double)(w >> 8) * (1.0 / 16777216.0); }

/* U(0,1] on the same grid: safe for log(). */
KB_HD double kb_u01_open0(uint32_t w) { return ((double)(w >> 8) + 1.0) * (1.0 / 16777216.0); }

/* Stream numbers: which draw of an element a value comes from. */
enum { KB_STREAM_VALUE = 0, KB_STREAM_SPARSITY = 1, KB_STREAM_TENSOR_SCALE = 2 };

/* The structured generators (kb/problem.h: RAND_SYMMETRIC ... RAND_SCALED) are U[0,1) values (or a
 * distribution's override) with what get_inputs() does to them applied on top. */
KB_HD int kb_gen_is_structured(kb_gen_kind k) { return k >= KB_GEN_RAND_SYMMETRIC && k <= KB_GEN_RAND_SCALED; }

/* A spec's generator as the generation functions take it: the structured kinds carry the last
 * dimension's size in `a` (the problem file writes only the kind). */
KB_HD kb_gen kb_gen_resolve(const kb_tensor_spec *s)
{
    kb_gen g = s->gen;
    if (kb_gen_is_structured(g.kind))
        g.a = s->ndim > 0 ? (double)s->shape[s->ndim - 1] : 1.0;
    return g;
}

/* The value of element i under generator g, before any distribution transform. */
KB_HD double kb_gen_value(kb_gen g, uint64_t seed, uint32_t tensor, uint64_t i)
{
    kb_u32x4 w = kb_rng_words(seed, tensor, KB_STREAM_VALUE, i);
    switch (g.kind) {
    case KB_GEN_RAND:
    case KB_GEN_RAND_SYMMETRIC: /* the structured kinds' base value; kb_draw_value applies the structure */
    case KB_GEN_RAND_TRIU:
    case KB_GEN_RAND_TRIL:
    case KB_GEN_RAND_SOFTMAX:
    case KB_GEN_RAND_SCALED:
        return kb_u01(w.v[0]);
    case KB_GEN_RANDN:
    case KB_GEN_NORMAL: {
        /* Box-Muller on two independent uniforms; NORMAL is a + b * N(0,1) */
        double u1 = kb_u01_open0(w.v[0]), u2 = kb_u01(w.v[1]);
        double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
        return g.kind == KB_GEN_NORMAL ? g.a + g.b * z : z;
    }
    case KB_GEN_UNIFORM:
        return g.a + (g.b - g.a) * kb_u01(w.v[0]);
    case KB_GEN_KAIMING_UNIFORM: {
        double bound = 1.0 / sqrt(g.a);
        return (2.0 * kb_u01(w.v[0]) - 1.0) * bound;
    }
    case KB_GEN_ONES:
        return 1.0;
    case KB_GEN_ZEROS:
        return 0.0;
    case KB_GEN_RANDINT: {
        /* Integers in [a, b): multiply-shift of a 32-bit word (bias < range / 2^32). */
        uint64_t range = (uint64_t)(g.b - g.a);
        return g.a + (double)(((uint64_t)w.v[0] * range) >> 32);
    }
    case KB_GEN_CONST:
        return g.a;
    case KB_GEN_BERNOULLI:
        return kb_u01(w.v[0]) < g.a ? 1.0 : 0.0;
    case KB_GEN_SIGN:
        return (w.v[0] & 1u) ? 1.0 : -1.0;
    case KB_GEN_LOGUNIFORM_SIGNED: {
        /* |v| = 10^U[a,b), sign random: wide dynamic range. */
        double e = g.a + (g.b - g.a) * kb_u01(w.v[0]);
        return ((w.v[1] & 1u) ? 1.0 : -1.0) * pow(10.0, e);
    }
    }
    return 0.0;
}

/* ---- dtype conversion, round-to-nearest-even, the same on host and device ------------------ */

KB_HD uint32_t kb_f32_bits(float f)
{
    union {
        float f;
        uint32_t u;
    } x;
    x.f = f;
    return x.u;
}

KB_HD float kb_bits_f32(uint32_t u)
{
    union {
        float f;
        uint32_t u;
    } x;
    x.u = u;
    return x.f;
}

KB_HD uint16_t kb_f32_to_bf16(float f)
{
    uint32_t u = kb_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

KB_HD float kb_bf16_to_f32(uint16_t h) { return kb_bits_f32((uint32_t)h << 16); }

KB_HD uint16_t kb_f32_to_f16(float f)
{
    uint32_t u = kb_f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u); /* NaN */
    if (a >= 0x477ff000u)               /* rounds to >= 65520: overflow to inf */
        return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) { /* subnormal half (or zero): value = m * 2^-24 */
        if (a < 0x33000000u)
            return (uint16_t)sign; /* below half of the smallest subnormal */
        uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14..24 */
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    uint32_t r = a + 0xfffu + ((a >> 13) & 1u); /* round mantissa to 10 bits */
    return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
}

KB_HD float kb_f16_to_f32(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16, e = ((uint32_t)h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        /* zero or subnormal: m * 2^-24, exact in fp32 */
        float v = (float)m * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    if (e == 31)
        return kb_bits_f32(sign | 0x7f800000u | (m << 13));
    return kb_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/* ---- what one draw of a problem's tensors looks like ----------------------------------------- */

/* A draw: the seed and the transform a distribution applies to each tensor it touches.
 * value = scale * (zero with probability zero_fraction, else generator value), rounded once
 * to the tensor's dtype. Integer and bool tensors are never scaled or sparsified. */
typedef struct kb_draw {
    uint64_t seed;
    double scale;        /* multiplies floating-point values (1 = none) */
    int override_gen;    /* use `gen` instead of the tensor's own generator (floats only) */
    kb_gen gen;
    double zero_fraction; /* this share of floating-point elements is set to exactly 0 */
} kb_draw;

/* The seed module state (KB_ROLE_STATE) is drawn with, in every run and every draw: state is the
 * module's own (zeros, ones, a mask, an RNN's h0), fixed like the problem's shapes. */
#define KB_STATE_SEED 0x6b622d7374617465ULL

KB_HD int kb_dtype_is_float(kb_dtype t) { return t == KB_F32 || t == KB_F16 || t == KB_BF16 || t == KB_F64; }

/* The value of element i of tensor number `tensor` (spec `g`, dtype `t`) under draw `d`, as a
 * double that is exactly representable in the dtype. */
/* A value without structure: the generator (or the draw's override), sparsity, scale. */
KB_HD double kb_draw_plain_value(const kb_draw *d, kb_gen g, kb_dtype t, uint32_t tensor, uint64_t i)
{
    int is_float = kb_dtype_is_float(t);
    double v = kb_gen_value(is_float && d->override_gen ? d->gen : g, d->seed, tensor, i);
    if (is_float) {
        if (d->zero_fraction > 0.0) {
            kb_u32x4 w = kb_rng_words(d->seed, tensor, KB_STREAM_SPARSITY, i);
            if (kb_u01(w.v[0]) < d->zero_fraction)
                v = 0.0;
        }
        /* Scale after rounding to the dtype, as x * s on a PyTorch tensor does. */
        switch (t) {
        case KB_F32: return (double)(float)((float)v * (float)d->scale);
        case KB_F16: return (double)kb_f16_to_f32(kb_f32_to_f16(kb_f16_to_f32(kb_f32_to_f16((float)v)) * (float)d->scale));
        case KB_BF16: return (double)kb_bf16_to_f32(kb_f32_to_bf16(kb_bf16_to_f32(kb_f32_to_bf16((float)v)) * (float)d->scale));
        default: return v * d->scale;
        }
    }
    return v;
}

KB_HD double kb_draw_value(const kb_draw *d, kb_gen g, kb_dtype t, uint32_t tensor, uint64_t i)
{
    if (kb_dtype_is_float(t) && kb_gen_is_structured(g.kind)) {
        kb_gen base = {KB_GEN_RAND, 0, 0};
        if (d->override_gen)
            base = d->gen;
        const uint64_t n = (uint64_t)g.a; /* the last dimension */
        const uint64_t c = i % n, r = (i / n) % n, mat = i - (i % (n * n));
        float v = (float)kb_draw_plain_value(d, base, t, tensor, i);
        switch (g.kind) {
        case KB_GEN_RAND_SYMMETRIC: /* (A + A.T) / 2 in float, as get_inputs computes it */
            return (double)((v + (float)kb_draw_plain_value(d, base, t, tensor, mat + c * n + r)) / 2.0f);
        case KB_GEN_RAND_TRIU:
            return c >= r ? (double)v : 0.0;
        case KB_GEN_RAND_TRIL:
            return c <= r ? (double)v : 0.0;
        case KB_GEN_RAND_SOFTMAX:
            /* exp of the (scaled) value; the device generator then divides each row by its sum */
            return (double)expf(v);
        case KB_GEN_RAND_SCALED: {
            /* one U[0,1) scale for the whole tensor (torch.rand(()) in get_inputs) */
            kb_u32x4 w = kb_rng_words(d->seed, tensor, KB_STREAM_TENSOR_SCALE, 0);
            return (double)(v * (float)kb_u01(w.v[0]));
        }
        default:
            return (double)v;
        }
    }
    return kb_draw_plain_value(d, g, t, tensor, i);
}

#endif /* KB_RNG_H */
