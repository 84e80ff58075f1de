/*
 * test_compile.c -- kb_parse_ptxas (lib/compile/compile.c): the per-kernel resources kb-compile records
 * from nvcc's `-Xptxas -v` output, on a log in the shape nvcc 13 prints for sm_90.
 */
#include "kbt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/kb_compile.h"

static const char *LOG =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z4reluPKfPfl' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z4reluPKfPfl\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function '_Z4gemmPKfS0_Pfiii' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z4gemmPKfS0_Pfiii\n"
    "    16 bytes stack frame, 24 bytes spill stores, 32 bytes spill loads\n"
    "ptxas info    : Used 128 registers, 400 bytes cmem[0]\n";

static void test_two_kernels(void **state)
{
    (void)state;
    kb_kernel_info k[4];
    size_t n = kb_parse_ptxas(LOG, k, 4);
    KBT_CHECK(n == 2, "kernels found: %zu, want 2", n);
    KBT_CHECK(!strcmp(k[0].name, "_Z4reluPKfPfl") && k[0].registers == 10 && k[0].barriers == 1 && k[0].smem == 1024 &&
                  k[0].stack == 0 && k[0].spill_stores == 0,
              "relu: %s regs %lld barriers %lld smem %lld", k[0].name, (long long)k[0].registers,
              (long long)k[0].barriers, (long long)k[0].smem);
    KBT_CHECK(!strcmp(k[1].name, "_Z4gemmPKfS0_Pfiii") && k[1].registers == 128 && k[1].barriers == 0 &&
                  k[1].smem == 0 && k[1].stack == 16 && k[1].spill_stores == 24 && k[1].spill_loads == 32,
              "gemm: %s regs %lld stack %lld spills %lld/%lld", k[1].name, (long long)k[1].registers,
              (long long)k[1].stack, (long long)k[1].spill_stores, (long long)k[1].spill_loads);
    /* room for one: the first only, never past the array, but both counted */
    memset(&k[1], 0x5a, sizeof k[1]);
    KBT_CHECK(kb_parse_ptxas(LOG, k, 1) == 2, "cap 1: both kernels must be counted");
    KBT_CHECK(k[1].name[0] == 0x5a, "cap 1 not honoured: k[1] was written");
    KBT_CHECK(kb_parse_ptxas(LOG, NULL, 0) == 2, "counting only (NULL, 0) does not count");
    KBT_CHECK(kb_parse_ptxas("", k, 4) == 0 && kb_parse_ptxas(NULL, k, 4) == 0, "an empty log has kernels");
}

/* An object with more kernels than any fixed table held (a network's worth): every one is
 * counted and, with room for all, recorded. */
static void test_many_kernels(void **state)
{
    (void)state;
    enum { N = 1000 };
    char *log = malloc((size_t)N * 200), *p = log;
    for (int i = 0; i < N; i++)
        p += sprintf(p, "ptxas info    : Compiling entry function '_Z1k%dv' for 'sm_90'\n"
                        "ptxas info    : Used %d registers, 360 bytes cmem[0]\n", i, 8 + i % 200);
    size_t n = kb_parse_ptxas(log, NULL, 0);
    KBT_CHECK(n == N, "kernels counted: %zu, want %d", n, N);
    kb_kernel_info *k = calloc(N, sizeof *k);
    KBT_CHECK(kb_parse_ptxas(log, k, N) == N, "second pass");
    KBT_CHECK(!strcmp(k[N - 1].name, "_Z1k999v") && k[N - 1].registers == 8 + (N - 1) % 200, "last kernel: %s %lld",
              k[N - 1].name, (long long)k[N - 1].registers);
    free(k);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_two_kernels), cmocka_unit_test(test_many_kernels)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
