/*
 * GPU suite: the device generators produce exactly what the host functions say (kb_rng.h),
 * for every generator kind and dtype, at indices spread over a tensor larger than 2^31
 * elements' worth of counter space; poisoning, comparison and hashing behave as specified on
 * real device memory. Needs a CUDA device.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cuda_runtime_api.h>

#include "kb_gpu.h"
#include "core/kb_rng.h"

static double host_value(const kb_tensor_spec *s, const kb_draw *d, uint32_t t, uint64_t i)
{
    return kb_draw_value(d, s->gen, s->dtype, t, i);
}

static void check_kind(kb_gen g, kb_dtype dt, double scale, double zero_fraction)
{
    const int64_t n = 1 << 20;
    kb_tensor_spec s = {"x", dt, 1, {n}, KB_ROLE_INPUT, g, 0};
    kb_draw d = {0x1234567890abcdefull, scale, 0, {KB_GEN_RAND, 0, 0}, zero_fraction};
    void *p;
    assert_int_equal(cudaMalloc(&p, (size_t)n * 8), cudaSuccess);
    kb_err err;
    assert_int_equal(kb_dev_generate(p, &s, 3, &d, 0, &err), 0);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    int mismatches = 0, ulp1 = 0;
    for (int64_t i = 0; i < n; i += 997) {
        double dev;
        assert_int_equal(kb_dev_peek(p, dt, i, &dev, &err), 0);
        double host = host_value(&s, &d, 3, (uint64_t)i);
        if (dev != host) {
            /* randn may differ in the last bit of log/cos between libm and CUDA */
            if (g.kind == KB_GEN_RANDN && fabs(dev - host) <= 2e-7 * fabs(host) + 1e-30)
                ulp1++;
            else
                mismatches++;
        }
    }
    print_message("kind %d dtype %d: %d mismatches, %d last-bit differences (randn)\n", g.kind, dt, mismatches, ulp1);
    assert_int_equal(mismatches, 0);
    cudaFree(p);
}

static void test_all_kinds_f32(void **state)
{
    (void)state;
    kb_gen gens[] = {{KB_GEN_RAND, 0, 0}, {KB_GEN_RANDN, 0, 0}, {KB_GEN_UNIFORM, -2, 3}, {KB_GEN_KAIMING_UNIFORM, 576, 0},
                     {KB_GEN_ONES, 0, 0}, {KB_GEN_CONST, 0.125, 0}, {KB_GEN_LOGUNIFORM_SIGNED, -3, 3}};
    for (size_t k = 0; k < sizeof gens / sizeof gens[0]; k++) {
        check_kind(gens[k], KB_F32, 1.0, 0.0);
        check_kind(gens[k], KB_F32, -3.0, 0.5);
    }
}

static void test_dtypes(void **state)
{
    (void)state;
    kb_gen r = {KB_GEN_RANDN, 0, 0};
    check_kind(r, KB_F16, 1.0, 0.0);
    check_kind(r, KB_BF16, 0.01, 0.0);
    check_kind(r, KB_F64, 3.0, 0.0);
    kb_gen ri = {KB_GEN_RANDINT, 0, 4096};
    check_kind(ri, KB_I64, 3.0, 0.5); /* integers are never scaled nor sparsified */
    check_kind(ri, KB_I32, 1.0, 0.0);
    kb_gen b = {KB_GEN_BERNOULLI, 0.3, 0};
    check_kind(b, KB_BOOL, 1.0, 0.0);
}

static void test_poison_compare_hash(void **state)
{
    (void)state;
    const int64_t n = 3000000;
    float *a, *b;
    kb_err err;
    assert_int_equal(cudaMalloc((void **)&a, n * 4), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&b, n * 4), cudaSuccess);
    kb_tensor_spec s = {"x", KB_F32, 1, {n}, KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0};
    kb_draw d = {7, 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    assert_int_equal(kb_dev_generate(a, &s, 0, &d, 0, &err), 0);
    assert_int_equal(kb_dev_generate(b, &s, 0, &d, 0, &err), 0);
    kb_cmp_stats st;
    assert_int_equal(kb_dev_compare(a, b, NULL, KB_F32, n, 1e-3, 0, 0, &st, 0, &err), 0);
    assert_true(st.tau_req == 0.0 && st.n_fail == 0 && st.n_bitwise_diff == 0);
    uint64_t h1, h2;
    assert_int_equal(kb_dev_hash(a, (size_t)n * 4, &h1, 0, &err), 0);
    assert_int_equal(kb_dev_hash(b, (size_t)n * 4, &h2, 0, &err), 0);
    assert_true(h1 == h2);
    /* one element off by 0.5: tau_req = 0.5 / (1 + |out|) at that index */
    float v;
    cudaMemcpy(&v, b + 1234567, 4, cudaMemcpyDeviceToHost);
    float w = v + 0.5f;
    cudaMemcpy(b + 1234567, &w, 4, cudaMemcpyHostToDevice);
    assert_int_equal(kb_dev_compare(a, b, NULL, KB_F32, n, 1e-3, 0, 0, &st, 0, &err), 0);
    assert_int_equal(st.n_fail, 1);
    assert_int_equal(st.worst_index, 1234567);
    assert_true(fabs(st.tau_req - fabs((double)w - (double)v) / (1.0 + fabs((double)w))) < 1e-12);
    assert_int_equal(kb_dev_hash(b, (size_t)n * 4, &h2, 0, &err), 0);
    assert_true(h1 != h2);
    /* poison: every element NaN, so every element fails */
    assert_int_equal(kb_dev_poison(b, KB_F32, n, 0, &err), 0);
    assert_int_equal(kb_dev_compare(a, b, NULL, KB_F32, n, 1e-3, 0, 0, &st, 0, &err), 0);
    assert_int_equal(st.n_nan_out, n);
    assert_int_equal(st.n_fail, n);
    assert_true(isinf(st.tau_req));
    cudaFree(a);
    cudaFree(b);
}

int main(void)
{
    int dev, lock;
    kb_err err;
    if (kb_gpu_acquire("0", KB_LOCK_SHARED, &dev, &lock, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_kinds_f32),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_poison_compare_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
