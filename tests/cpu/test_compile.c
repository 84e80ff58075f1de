/*
 * test_compile.c -- kb_parse_ptxas (lib/compile/compile.c): the per-kernel resources kb-compile records
 * from nvcc's `-Xptxas -v` output, on a log in the shape nvcc 13 prints for sm_90.
 */
#include "kbt.h"

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
    /* room for one: the first only, never past the array */
    KBT_CHECK(kb_parse_ptxas(LOG, k, 1) == 1, "cap 1 not honoured");
    KBT_CHECK(kb_parse_ptxas("", k, 4) == 0 && kb_parse_ptxas(NULL, k, 4) == 0, "an empty log has kernels");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_two_kernels)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
