/*
 * test_abi.c -- the submission ABI (include/kb/submission.h, problem.h) and what kb-compile
 * records for fixture submissions.
 *
 * Pinned:
 *   - The layout of every ABI struct (offsetof / sizeof of kb_input, kb_output, kb_args,
 *     kb_tensor_spec, kb_gen, kb_problem), the numeric values of kb_dtype, kb_role, kb_gen_kind
 *     and KB_ABI_VERSION, kb_dtype_size, kb_shape_numel: submissions are compiled separately
 *     against this header, so an accidental change breaks every one of them silently.
 *   - The outcome names of the artifact format (kb_outcome_name / kb_outcome_parse).
 *   - kb-compile on the fixtures in tests/fixtures/abi/ (nvcc runs without a GPU): valid.cu -> ok, clean,
 *     exports exactly [kb_forward], one kernel with its registers, and the object loads with
 *     dlopen and exposes only kb_forward; no_forward.cu -> load_error; syntax_error.cu ->
 *     compile_error with nvcc's message in /nvcc/log and no object; forbidden.cu -> rejected
 *     with reasons file,thread; flagged.cu -> flagged with other_stream,legacy_stream, a
 *     library call and libcublas needed; device_helper.cu -> clean (nvcc's host stub of a
 *     non-inline __device__ function imports exit, which the scan counts as information only).
 *   These need $BUILD/bin/kb-compile (`make test-sh` builds it; `make build/bin/kb-compile`) and
 *   nvcc; without them the test says so and is skipped, unless KB_TEST_REQUIRE_TOOLS=1.
 */
#include "kbt.h"

#include <dlfcn.h>

#include "kb/problem.h"
#include "core/kb_artifact.h"
#include "core/kb_h5.h"
#include "core/kb_proc.h"

/* ---- layout ------------------------------------------------------------------------------------ */

typedef struct layout {
    const char *what;
    size_t got, want;
} layout;

#define L(type, member, want) {#type "." #member, offsetof(type, member), want}
#define S(type, want) {"sizeof " #type, sizeof(type), want}

static void test_struct_layout(void **state)
{
    (void)state;
    /* LP64 (x86-64 / aarch64 Linux): pointers 8, enums 4, int64/double 8. */
    const layout l[] = {
        L(kb_input, name, 0),   L(kb_input, dtype, 8),   L(kb_input, ndim, 12),   L(kb_input, shape, 16),
        L(kb_input, data, 80),  S(kb_input, 88),
        L(kb_output, name, 0),  L(kb_output, dtype, 8),  L(kb_output, ndim, 12),  L(kb_output, shape, 16),
        L(kb_output, data, 80), S(kb_output, 88),
        L(kb_args, abi_version, 0), L(kb_args, n_inputs, 4), L(kb_args, inputs, 8), L(kb_args, n_outputs, 16),
        L(kb_args, outputs, 24),    L(kb_args, stream, 32),  S(kb_args, 40),
        L(kb_gen, kind, 0),     L(kb_gen, a, 8),         L(kb_gen, b, 16),        S(kb_gen, 24),
        L(kb_tensor_spec, name, 0),  L(kb_tensor_spec, dtype, 8), L(kb_tensor_spec, ndim, 12),
        L(kb_tensor_spec, shape, 16), L(kb_tensor_spec, role, 80), L(kb_tensor_spec, gen, 88),
        L(kb_tensor_spec, terms, 112), S(kb_tensor_spec, 120),
        L(kb_problem, abi_version, 0), L(kb_problem, id, 8),      L(kb_problem, title, 16),
        L(kb_problem, n_inputs, 24),   L(kb_problem, inputs, 32), L(kb_problem, n_outputs, 40),
        L(kb_problem, outputs, 48),    L(kb_problem, flops, 56),  L(kb_problem, bytes, 64),
        L(kb_problem, flags, 72),      L(kb_problem, reference, 80), L(kb_problem, replay, 88),
        L(kb_problem, describe, 96), S(kb_problem, 104),
        S(kb_dtype, 4), S(cudaStream_t, 8),
    };
    for (size_t i = 0; i < sizeof l / sizeof l[0]; i++)
        KBT_CHECK(l[i].got == l[i].want, "%s is %zu, the ABI says %zu", l[i].what, l[i].got, l[i].want);
    print_message("layout: %zu offsets and sizes of kb_input/kb_output/kb_args/kb_gen/kb_tensor_spec/kb_problem\n",
                  sizeof l / sizeof l[0]);
}

static void test_enums(void **state)
{
    (void)state;
    KBT_CHECK(KB_ABI_VERSION == 1u && KB_MAX_DIMS == 8, "ABI version %u, max dims %d", KB_ABI_VERSION, KB_MAX_DIMS);
    const struct {
        const char *name;
        int got, want, size;
    } dt[] = {
        {"KB_F32", KB_F32, 0, 4}, {"KB_F16", KB_F16, 1, 2}, {"KB_BF16", KB_BF16, 2, 2}, {"KB_F64", KB_F64, 3, 8},
        {"KB_I64", KB_I64, 4, 8}, {"KB_I32", KB_I32, 5, 4}, {"KB_BOOL", KB_BOOL, 6, 1},
    };
    for (size_t i = 0; i < sizeof dt / sizeof dt[0]; i++) {
        KBT_CHECK(dt[i].got == dt[i].want, "%s = %d, the ABI says %d", dt[i].name, dt[i].got, dt[i].want);
        KBT_CHECK(kb_dtype_size((kb_dtype)dt[i].got) == dt[i].size, "size of %s = %d", dt[i].name,
                  kb_dtype_size((kb_dtype)dt[i].got));
    }
    KBT_CHECK(kb_dtype_size((kb_dtype)7) == 0 && kb_dtype_size((kb_dtype)-1) == 0, "unknown dtypes have size 0");
    KBT_CHECK(KB_ROLE_INPUT == 0 && KB_ROLE_PARAM == 1 && KB_ROLE_OUTPUT == 2 && KB_ROLE_STATE == 3, "kb_role values");
    const int gens[] = {KB_GEN_RAND, KB_GEN_RANDN, KB_GEN_UNIFORM, KB_GEN_KAIMING_UNIFORM, KB_GEN_ONES, KB_GEN_ZEROS,
                        KB_GEN_RANDINT, KB_GEN_CONST, KB_GEN_BERNOULLI, KB_GEN_SIGN, KB_GEN_LOGUNIFORM_SIGNED,
                        KB_GEN_RAND_SYMMETRIC, KB_GEN_RAND_TRIU, KB_GEN_RAND_TRIL, KB_GEN_RAND_SOFTMAX,
                        KB_GEN_RAND_SCALED, KB_GEN_NORMAL};
    KBT_CHECK(KB_GEN_LAST == 16, "KB_GEN_LAST = %d", KB_GEN_LAST);
    for (int i = 0; i < 17; i++)
        KBT_CHECK(gens[i] == i, "generator kind %d has value %d", i, gens[i]);
    KBT_CHECK(KB_PROB_NONDETERMINISTIC == 1 && KB_PROB_EXCLUDED == 2 && KB_PROB_INPUT_BLIND == 4, "problem flags");
    KBT_CHECK(!strcmp(KB_PROBLEM_SYMBOL, "kb_problem_descriptor"), "descriptor symbol %s", KB_PROBLEM_SYMBOL);
    /* numel: scalars are one element; 64-bit products */
    const int64_t shape[3] = {4096, 393216, 3};
    KBT_CHECK(kb_shape_numel(0, shape) == 1, "scalar numel");
    KBT_CHECK(kb_shape_numel(3, shape) == 4096LL * 393216 * 3, "numel of 4096x393216x3 = %lld (overflow?)",
              (long long)kb_shape_numel(3, shape));
    kb_input in = {"x", KB_F32, 2, {5, 7}, NULL};
    KBT_CHECK(kb_input_numel(&in) == 35, "kb_input_numel");
    /* KB_SHAPE expands to ndim, {dims} */
    kb_tensor_spec s = {"t", KB_F32, KB_SHAPE(2, 3, 4), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0};
    KBT_CHECK(s.ndim == 3 && s.shape[0] == 2 && s.shape[2] == 4 && s.shape[3] == 0, "KB_SHAPE(2, 3, 4)");
    kb_tensor_spec sc = {"s", KB_F32, KB_SCALAR, KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0};
    KBT_CHECK(sc.ndim == 0, "KB_SCALAR");
    print_message("enums: ABI 1, 7 dtypes with sizes, roles, 11 generator kinds, flags; numel; KB_SHAPE\n");
}

static void test_outcome_names(void **state)
{
    (void)state;
    const char *want[KB_OUT__COUNT] = {"ok",         "wrong_answer",  "cuda_error",    "crash",
                                       "timeout",    "out_of_memory", "exited",        "sandbox_violation",
                                       "bad_return", "compile_error", "load_error",    "rejected",
                                       "no_submission", "harness_error", "unsupported"};
    KBT_CHECK(KB_OUT__COUNT == 15, "%d outcomes, the artifact format has 15", (int)KB_OUT__COUNT);
    for (int i = 0; i < KB_OUT__COUNT; i++) {
        KBT_CHECK(!strcmp(kb_outcome_name((kb_outcome)i), want[i]), "outcome %d is \"%s\", want \"%s\"", i,
                  kb_outcome_name((kb_outcome)i), want[i]);
        KBT_CHECK(kb_outcome_parse(want[i]) == (kb_outcome)i, "parse(\"%s\")", want[i]);
    }
    KBT_CHECK(kb_outcome_parse("OK") == KB_OUT__COUNT && kb_outcome_parse("") == KB_OUT__COUNT, "unknown names");
    KBT_CHECK(!strcmp(kb_outcome_name(KB_OUT__COUNT), "?") && !strcmp(kb_outcome_name((kb_outcome)-1), "?"),
              "out-of-range outcome names");
    print_message("outcomes: 14 stable names, parse round trip\n");
}

/* ---- kb-compile on fixtures ---------------------------------------------------------------------- */

typedef struct fixture_case {
    const char *file;        /* under tests/fixtures/abi/ */
    const char *outcome;
    int compiled;
    const char *verdict;     /* /symbols@verdict */
    const char *reasons[3];  /* /symbols@reasons as a set */
    int n_exports;           /* -1: not checked */
    int calls_library;
    const char *log_has[3];  /* substrings of /nvcc/log */
    const char *needed;      /* a DT_NEEDED entry, or NULL */
} fixture_case;

static const fixture_case fixtures[] = {
    {"valid.cu", "ok", 1, "clean", {NULL}, 1, 0, {"relu_kernel", "registers"}, "libcudart.so"},
    {"no_forward.cu", "load_error", 1, "clean", {NULL}, 0, 0, {NULL}, NULL},
    {"syntax_error.cu", "compile_error", 0, "none", {NULL}, 0, 0, {"syntax_error.cu", "error", "undeclared_identifier"}, NULL},
    {"forbidden.cu", "ok", 1, "rejected", {"file", "thread"}, 1, 0, {NULL}, NULL},
    {"flagged.cu", "ok", 1, "flagged", {"other_stream", "legacy_stream"}, 1, 1, {NULL}, "libcublas.so"},
    /* nvcc's host stub of a plain __device__ function imports exit: informational only, so the
     * object stays clean (a real exit is caught at run time as the outcome "exited") */
    {"device_helper.cu", "ok", 1, "clean", {NULL}, 1, 0, {NULL}, NULL},
};

static char *tmp;
static char compile_bin[4096];
static int tools_ok;

static int setup(void **state)
{
    (void)state;
    tmp = kbt_tmpdir("abi");
    snprintf(compile_bin, sizeof compile_bin, "%s/bin/kb-compile", kbt_build_dir());
    tools_ok = access(compile_bin, X_OK) == 0 && access("/usr/local/cuda/bin/nvcc", X_OK) == 0 &&
               kb_file_exists("tests/fixtures/abi/valid.cu") && kb_file_exists("include/kb/submission.h");
    return tmp ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    kbt_rmtree(tmp);
    free(tmp);
    return 0;
}

static void require_tools(void)
{
    if (tools_ok)
        return;
    const char *req = getenv("KB_TEST_REQUIRE_TOOLS");
    if (req && !strcmp(req, "1"))
        fail_msg("%s, /usr/local/cuda/bin/nvcc or tests/fixtures/abi/ missing (KB_TEST_REQUIRE_TOOLS=1)", compile_bin);
    print_message("SKIPPED: needs %s (make %s), /usr/local/cuda/bin/nvcc, and the repository root as working "
                  "directory\n",
                  compile_bin, compile_bin);
    skip();
}

static int set_has(const char *csv, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = csv; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, item, n))
            return 1;
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

static void check_fixture(const fixture_case *fc)
{
    char src[4096], dir[4200], so[4300], h5[4300];
    snprintf(src, sizeof src, "tests/fixtures/abi/%s", fc->file);
    snprintf(dir, sizeof dir, "%s/%.*s", tmp, (int)(strlen(fc->file) - 3), fc->file);
    snprintf(so, sizeof so, "%s/kernel.so", dir);
    snprintf(h5, sizeof h5, "%s/compile.h5", dir);
    char *argv[] = {compile_bin, "--src", src, "--out-so", so, "--out", h5, "--model", "fixture",
                    "--problem", "level1/019_relu", "--sample", "s0", "--include", "include", NULL};
    kb_cmd_result res;
    kb_err err = {0};
    assert_int_equal(kb_run_cmd(argv, 600, 1 << 20, &res, &err), 0);
    KBT_CHECK(res.exited && res.exit_status == 0, "%s: kb-compile %s:\n%s", fc->file,
              res.exited ? "exited non-zero" : "died", res.output);
    kb_cmd_result_free(&res);

    kb_h5r *r = kb_h5r_open(h5, &err);
    KBT_CHECK(r != NULL, "%s: %s", fc->file, err.msg);
    char outcome[64], verdict[64], reasons[512], detail[1024];
    int64_t compiled = -1, lib = -1;
    assert_int_equal(kb_h5r_attr_str(r, "/", "outcome", outcome, sizeof outcome, &err), 0);
    assert_int_equal(kb_h5r_attr_str(r, "/", "outcome_detail", detail, sizeof detail, &err), 0);
    assert_int_equal(kb_h5r_attr_i64(r, "/", "compiled", &compiled, &err), 0);
    assert_int_equal(kb_h5r_attr_str(r, "/symbols", "verdict", verdict, sizeof verdict, &err), 0);
    assert_int_equal(kb_h5r_attr_str(r, "/symbols", "reasons", reasons, sizeof reasons, &err), 0);
    assert_int_equal(kb_h5r_attr_i64(r, "/symbols", "calls_library", &lib, &err), 0);
    KBT_CHECK(!strcmp(outcome, fc->outcome), "%s: outcome %s (%s), want %s", fc->file, outcome, detail, fc->outcome);
    KBT_CHECK(compiled == fc->compiled, "%s: compiled %lld", fc->file, (long long)compiled);
    KBT_CHECK(!strcmp(verdict, fc->verdict), "%s: verdict %s, want %s", fc->file, verdict, fc->verdict);
    KBT_CHECK(lib == fc->calls_library, "%s: calls_library %lld", fc->file, (long long)lib);
    size_t nr = 0;
    for (int k = 0; k < 3 && fc->reasons[k]; k++, nr++)
        KBT_CHECK(set_has(reasons, fc->reasons[k]), "%s: reasons \"%s\" lack %s", fc->file, reasons, fc->reasons[k]);
    size_t commas = 0;
    for (const char *p = reasons; *p; p++)
        commas += *p == ',';
    KBT_CHECK((reasons[0] ? commas + 1 : 0) == nr, "%s: reasons \"%s\", want exactly %zu", fc->file, reasons, nr);
    if (!strcmp(fc->outcome, "load_error"))
        KBT_MSG_HAS(detail, "kb_forward");

    char **exports = NULL;
    size_t ne = 0;
    assert_int_equal(kb_h5r_strv(r, "/symbols/exports", &exports, &ne, &err), 0);
    KBT_CHECK((int)ne == fc->n_exports, "%s: %zu exports, want %d", fc->file, ne, fc->n_exports);
    if (ne == 1)
        KBT_CHECK(!strcmp(exports[0], "kb_forward"), "%s: exports [%s], want [kb_forward]", fc->file, exports[0]);
    kb_h5r_free_strv(exports, ne);

    /* the symbol arrays line up */
    char **imp = NULL, **cat = NULL, **sev = NULL;
    size_t ni = 0, nc = 0, ns = 0;
    assert_int_equal(kb_h5r_strv(r, "/symbols/imports", &imp, &ni, &err), 0);
    assert_int_equal(kb_h5r_strv(r, "/symbols/category", &cat, &nc, &err), 0);
    assert_int_equal(kb_h5r_strv(r, "/symbols/severity", &sev, &ns, &err), 0);
    KBT_CHECK(ni == nc && ni == ns, "%s: %zu imports, %zu categories, %zu severities", fc->file, ni, nc, ns);
    KBT_CHECK(fc->compiled ? ni > 0 : ni == 0, "%s: %zu imports", fc->file, ni);
    kb_h5r_free_strv(imp, ni);
    kb_h5r_free_strv(cat, nc);
    kb_h5r_free_strv(sev, ns);

    char *log = NULL;
    assert_int_equal(kb_h5r_text(r, "/nvcc/log", &log, &err), 0);
    for (int k = 0; k < 3 && fc->log_has[k]; k++)
        KBT_CHECK(strstr(log, fc->log_has[k]) != NULL, "%s: /nvcc/log lacks \"%s\":\n%s", fc->file, fc->log_has[k],
                  log);
    free(log);
    if (fc->needed) {
        char **needed = NULL;
        size_t nn = 0;
        int found = 0;
        assert_int_equal(kb_h5r_strv(r, "/symbols/needed", &needed, &nn, &err), 0);
        for (size_t i = 0; i < nn; i++)
            found |= !strncmp(needed[i], fc->needed, strlen(fc->needed));
        kb_h5r_free_strv(needed, nn);
        KBT_CHECK(found, "%s: %s is not among the %zu needed libraries", fc->file, fc->needed, nn);
    }
    if (!strcmp(fc->file, "valid.cu")) {
        char **names = NULL;
        int64_t *regs = NULL;
        size_t nk = 0, nreg = 0;
        assert_int_equal(kb_h5r_strv(r, "/kernels/name", &names, &nk, &err), 0);
        assert_int_equal(kb_h5r_i64(r, "/kernels/registers", &regs, &nreg, &err), 0);
        KBT_CHECK(nk == 1 && nreg == 1 && strstr(names[0], "relu_kernel") && regs[0] > 0 && regs[0] <= 255,
                  "valid.cu: %zu kernels (%s), registers %lld", nk, nk ? names[0] : "", nreg ? (long long)regs[0] : -1LL);
        kb_h5r_free_strv(names, nk);
        free(regs);
    }
    kb_h5r_close(r);

    KBT_CHECK(kb_file_exists(so) == fc->compiled, "%s: kernel.so %s", fc->file, kb_file_exists(so) ? "exists" : "missing");
    KBT_CHECK(kbt_count_entries(dir, ".tmp.") == 0, "%s: temporary files left in %s", fc->file, dir);
    print_message("  %-16s outcome %-13s verdict %-8s reasons %-26s exports %zu%s%s\n", fc->file, outcome, verdict,
                  reasons[0] ? reasons : "-", ne, detail[0] ? "  detail: " : "", detail[0] ? detail : "");
    if (strlen(detail) > 0 && !strcmp(fc->outcome, "compile_error"))
        KBT_MSG_HAS(detail, "nvcc");
}

static void test_compile_fixtures(void **state)
{
    (void)state;
    require_tools();
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++)
        check_fixture(&fixtures[i]);

    /* The valid object loads (no GPU needed for dlopen) and exposes only kb_forward. */
    char so[4300];
    snprintf(so, sizeof so, "%s/valid/kernel.so", tmp);
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        print_message("  dlopen of valid.cu's object failed (%s): load check skipped\n", dlerror());
    } else {
        KBT_CHECK(dlsym(h, "kb_forward") != NULL, "valid.cu: dlsym(kb_forward) failed");
        KBT_CHECK(dlsym(h, "_Z10blocks_forl") == NULL && dlsym(h, "blocks_for") == NULL,
                  "valid.cu: the host helper is visible to dlsym");
        dlclose(h);
        print_message("  valid.cu's object loads with dlopen; only kb_forward is visible\n");
    }
    print_message("kb-compile: %zu fixture submissions give the expected outcome, verdict, reasons and exports\n",
                  sizeof fixtures / sizeof fixtures[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_struct_layout),
        cmocka_unit_test(test_enums),
        cmocka_unit_test(test_outcome_names),
        cmocka_unit_test(test_compile_fixtures),
    };
    return cmocka_run_group_tests_name("abi", tests, setup, teardown);
}
