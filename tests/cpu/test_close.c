/*
 * test_close.c -- lib/core/kb_close.h: what "close" means.
 *
 * Pinned:
 *   - torch.isclose(input=ref, other=out, rtol, atol, equal_nan=False) semantics, case by case:
 *     |ref - out| <= atol + rtol * |out|, where rtol scales the OUTPUT (so the relation is not
 *     symmetric), NaN never close (not even to NaN), inf close only to the same inf.
 *   - kb_close_tau_req is the smallest passing tau: pass(tau) == (tau_req <= tau) for 10^6
 *     random pairs and taus (log-spaced and at tau_req itself +- a few ulps).
 *   - kb_close_scaled_excess: |ref - out| / (atol + rtol * |mag|), 0 for exact, inf for a NaN or
 *     inf mismatch or a zero bound with an error.
 */
#include "kbt.h"

#include <float.h>
#include <math.h>

#include "core/kb_close.h"

typedef struct close_case {
    double ref, out, atol, rtol;
    int close;
    const char *why;
} close_case;

static const close_case cases[] = {
    {1.0, 1.0, 0, 0, 1, "identical, zero tolerance"},
    {0.0, -0.0, 0, 0, 1, "+0 and -0 are equal"},
    {1.0, 1.0 + 1e-3, 1e-3, 0, 1, "difference exactly atol"},
    {1.0, 1.0 + 2e-3, 1e-3, 0, 0, "difference above atol"},
    /* rtol scales |out| (torch.isclose(input=ref, other=out)): the asymmetric cases. */
    {1.0, 2.0, 0, 0.5, 1, "|1-2| = 1 <= 0.5 * |out=2|"},
    {2.0, 1.0, 0, 0.5, 0, "|2-1| = 1 >  0.5 * |out=1| (ref does not scale)"},
    {0.0, 1.0, 0, 0.5, 0, "out 1 vs ref 0: 1 > 0.5"},
    {1.0, 0.0, 0, 0.5, 0, "out 0: only atol counts"},
    {1.0, 0.0, 1.0, 0.5, 1, "out 0: atol 1 covers it"},
    {-1.0, -2.0, 0, 0.5, 1, "negative values use |out|"},
    {100.0, 100.1, 1e-3, 1e-3, 1, "0.1 <= 1e-3 + 1e-3 * 100.1"},
    {100.0, 100.2, 1e-3, 1e-3, 0, "0.2 >  1e-3 + 1e-3 * 100.2"},
    {2.5e-6, 0.0, 1e-3, 1e-3, 1, "the all-zero softmax passes atol 1e-3 (the zero-output class)"},
    /* NaN: never close (equal_nan = False). */
    {NAN, NAN, 1e9, 1e9, 0, "NaN vs NaN"},
    {NAN, 1.0, 1e9, 1e9, 0, "NaN reference"},
    {1.0, NAN, 1e9, 1e9, 0, "NaN output"},
    /* inf: only the same inf. */
    {INFINITY, INFINITY, 0, 0, 1, "+inf vs +inf"},
    {-INFINITY, -INFINITY, 0, 0, 1, "-inf vs -inf"},
    {INFINITY, -INFINITY, 1e300, 1e300, 0, "+inf vs -inf"},
    {INFINITY, 1e308, 1e300, 1e300, 0, "+inf vs a huge finite output"},
    {1e308, INFINITY, 1e300, 1e300, 0, "huge finite vs +inf output (rtol * inf must not pass it)"},
    {-INFINITY, 0.0, INFINITY, 0, 0, "inf vs finite even with atol = inf"},
};

static void test_isclose_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const close_case *c = &cases[i];
        int got = kb_isclose(c->ref, c->out, c->atol, c->rtol);
        KBT_CHECK(got == c->close, "isclose(ref %g, out %g, atol %g, rtol %g) = %d, want %d: %s", c->ref, c->out, c->atol,
                  c->rtol, got, c->close, c->why);
        /* tau_req agrees where atol == rtol. */
        if (c->atol == c->rtol) {
            double t = kb_close_tau_req(c->ref, c->out);
            int pass = t <= c->atol;
            KBT_CHECK(pass == c->close, "tau_req(ref %g, out %g) = %g, but isclose at tau %g says %d: %s", c->ref, c->out,
                      t, c->atol, c->close, c->why);
        }
    }
    print_message("kb_isclose: %zu cases (rtol scales |out|, NaN never close, inf only to the same inf)\n",
                  sizeof cases / sizeof cases[0]);
}

static void test_tau_req_specials(void **state)
{
    (void)state;
    KBT_CHECK(kb_close_tau_req(1.0, 1.0) == 0.0, "equal values need tau 0");
    KBT_CHECK(kb_close_tau_req(INFINITY, INFINITY) == 0.0, "+inf vs +inf needs tau 0");
    KBT_CHECK(kb_close_tau_req(-INFINITY, -INFINITY) == 0.0, "-inf vs -inf needs tau 0");
    KBT_CHECK(isinf(kb_close_tau_req(INFINITY, -INFINITY)), "+inf vs -inf");
    KBT_CHECK(isinf(kb_close_tau_req(1.0, INFINITY)), "finite vs inf");
    KBT_CHECK(isinf(kb_close_tau_req(NAN, NAN)), "NaN vs NaN");
    KBT_CHECK(isinf(kb_close_tau_req(1.0, NAN)), "NaN output");
    KBT_CHECK(isinf(kb_close_tau_req(NAN, 1.0)), "NaN reference");
    /* |ref - out| / (1 + |out|): out, not ref, in the denominator. */
    KBT_CHECK(kb_close_tau_req(1.0, 3.0) == 0.5, "tau_req(1, 3) = %g, want 2/4", kb_close_tau_req(1.0, 3.0));
    KBT_CHECK(kb_close_tau_req(3.0, 1.0) == 1.0, "tau_req(3, 1) = %g, want 2/2", kb_close_tau_req(3.0, 1.0));
    KBT_CHECK(kb_close_tau_req(0.0, 2.5e-6) == 2.5e-6 / (1 + 2.5e-6), "tau_req(0, 2.5e-6)");
    print_message("tau_req: 0 for equal and same-sign inf, inf for NaN or inf mismatch, |d| / (1 + |out|)\n");
}

/* A value with a wide dynamic range and a random sign, sometimes special. */
static double random_value(uint64_t *s)
{
    uint64_t r = kbt_next(s);
    switch (r % 64) {
    case 0: return 0.0;
    case 1: return NAN;
    case 2: return INFINITY;
    case 3: return -INFINITY;
    default: break;
    }
    double mag = pow(10.0, -8.0 + 16.0 * kbt_unif(s));
    return (r & 64) ? mag : -mag;
}

static void test_tau_req_is_the_threshold(void **state)
{
    (void)state;
    uint64_t s = 2024;
    size_t n = 0, boundary = 0;
    int printed = 0, bad = 0;
    for (int i = 0; i < 1000000; i++) {
        double ref = random_value(&s);
        /* Outputs near the reference, as a kernel's would be, and unrelated ones. */
        double out;
        switch (kbt_next(&s) % 4) {
        case 0: out = ref; break;
        case 1: out = ref * (1.0 + (kbt_unif(&s) - 0.5) * pow(10.0, -12.0 * kbt_unif(&s))); break;
        case 2: out = ref + (kbt_unif(&s) - 0.5) * pow(10.0, -6.0 + 8.0 * kbt_unif(&s)); break;
        default: out = random_value(&s); break;
        }
        double t = kb_close_tau_req(ref, out);
        KBT_CHECK(t >= 0.0 && !isnan(t), "tau_req(%a, %a) = %g", ref, out, t);
        double taus[6] = {pow(10.0, -12.0 + 13.0 * kbt_unif(&s)), 1e-2, 1e-3, 1e-4, t * (1 + 8 * DBL_EPSILON),
                          t * (1 - 8 * DBL_EPSILON)};
        int nt = (isfinite(t) && t > 0) ? 6 : 4;
        for (int k = 0; k < nt; k++) {
            int pass = kb_isclose(ref, out, taus[k], taus[k]);
            n++;
            if (pass != (t <= taus[k])) {
                bad++;
                if (printed++ < 10)
                    print_error("ref %a out %a: tau_req %a, tau %a: isclose %d\n", ref, out, t, taus[k], pass);
            }
        }
        /* At tau = tau_req exactly the two computations may differ by one rounding; count them. */
        if (isfinite(t) && t > 0 && !kb_isclose(ref, out, t, t))
            boundary++;
    }
    KBT_CHECK(bad == 0, "%d of %zu (pair, tau) checks disagree with tau_req", bad, n);
    print_message("tau_req: pass(tau) == (tau_req <= tau) on %zu (pair, tau) checks; at tau == tau_req exactly, "
                  "%zu pairs fail by one rounding (documented)\n",
                  n, boundary);
}

typedef struct excess_case {
    double ref, out, mag, atol, rtol, want;
} excess_case;

static void test_scaled_excess(void **state)
{
    (void)state;
    const excess_case ec[] = {
        {1.0, 1.5, 10.0, 0.0, 0.1, 0.5},    /* 0.5 / (0.1 * 10) */
        {1.0, 1.5, -10.0, 0.0, 0.1, 0.5},   /* |mag| */
        {1.0, 3.0, 0.0, 1.0, 5.0, 2.0},     /* mag 0: atol only */
        {0.0, 1e-7, 1e3, 0.0, 0x1p-24, 1e-7 / (1e3 * 0x1p-24)},
        {2.0, 2.0, 0.0, 0.0, 0.0, 0.0},     /* exact: 0 even with a zero bound */
        {2.0, 2.5, 0.0, 0.0, 0.0, INFINITY},/* error with a zero bound */
        {NAN, NAN, 1.0, 1.0, 1.0, INFINITY},
        {1.0, NAN, 1.0, 1.0, 1.0, INFINITY},
        {INFINITY, INFINITY, 1.0, 0.0, 0.0, 0.0},
        {INFINITY, -INFINITY, 1.0, 1.0, 1.0, INFINITY},
        {1.0, INFINITY, 1.0, 1.0, 1.0, INFINITY},
    };
    for (size_t i = 0; i < sizeof ec / sizeof ec[0]; i++) {
        double got = kb_close_scaled_excess(ec[i].ref, ec[i].out, ec[i].mag, ec[i].atol, ec[i].rtol);
        int ok = isinf(ec[i].want) ? isinf(got) && got > 0 : fabs(got - ec[i].want) <= 1e-12 * fabs(ec[i].want);
        KBT_CHECK(ok, "scaled_excess(ref %g, out %g, mag %g, atol %g, rtol %g) = %g, want %g", ec[i].ref, ec[i].out,
                  ec[i].mag, ec[i].atol, ec[i].rtol, got, ec[i].want);
    }
    /* <= 1 exactly when |ref - out| <= atol + rtol * |mag| (away from the boundary rounding). */
    uint64_t s = 99;
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        double ref = (kbt_unif(&s) - 0.5) * 10, out = ref + (kbt_unif(&s) - 0.5) * 1e-2;
        double mag = kbt_unif(&s) * 100, atol = kbt_unif(&s) * 1e-3, rtol = kbt_unif(&s) * 1e-4;
        double bound = atol + rtol * mag, d = fabs(ref - out);
        if (fabs(d - bound) <= 1e-12 * bound)
            continue;
        bad += (kb_close_scaled_excess(ref, out, mag, atol, rtol) <= 1.0) != (d <= bound);
    }
    KBT_CHECK(bad == 0, "%d random cases disagree with the bound", bad);
    print_message("scaled_excess: %zu cases + 2e5 random: <= 1 iff |ref-out| <= atol + rtol*|mag|\n",
                  sizeof ec / sizeof ec[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isclose_table),
        cmocka_unit_test(test_tau_req_specials),
        cmocka_unit_test(test_tau_req_is_the_threshold),
        cmocka_unit_test(test_scaled_excess),
    };
    return cmocka_run_group_tests_name("close", tests, NULL, NULL);
}
