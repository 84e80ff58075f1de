/*
 * test_elf_scan.c -- lib/compile/kb_elf.h (dynamic symbols of a shared object) and lib/compile/kb_scan.h (what
 * the imported symbols say about a submission).
 *
 * ELF: a tiny C shared object is built at test time with gcc (through kb_run_cmd) that calls
 * fopen, fopen64, pthread_create, socket, dlsym, exit and CUDA/cuBLAS-like functions declared
 * extern (so they stay undefined), and defines exported, weak, protected, hidden and static
 * symbols. kb_elf_read must list exactly the undefined ones as imports (cross-checked with
 * `nm -D` when binutils is installed), the default- and protected-visibility definitions as
 * exports (a protected kb_forward is still found by dlsym), and DT_NEEDED. A text file, an
 * empty file, every truncation of the object, a 32-bit header and 5000 corrupted copies must
 * give an error or a result, never a crash.
 *
 * Scan: a table of symbol -> (category, severity) pins the rules of lib/compile/scan.c; every rule of
 * the table is reachable (not shadowed by an earlier rule with a different meaning); severity and
 * verdict names are the artifact strings.
 */
#include "kbt.h"

#include <elf.h>

#include "compile/kb_elf.h"
#include "core/kb_proc.h"
#include "compile/kb_scan.h"

static char *dir;
static char so_path[4200];

static const char *so_source =
    "#include <stddef.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <pthread.h>\n"
    "#include <sys/socket.h>\n"
    "#include <dlfcn.h>\n"
    "extern FILE *fopen64(const char *, const char *);\n"
    "extern int cublasSgemm_v2(void *);\n"
    "extern int cudaStreamCreateWithFlags(void *, unsigned);\n"
    "extern int cudaMemcpyAsync(void *, const void *, size_t, int, void *);\n"
    "extern int cudaMemcpy(void *, const void *, size_t, int);\n"
    "extern int cudaEventElapsedTime(float *, void *, void *);\n"
    "static int static_helper(int x) { return x * 3; }\n"
    "__attribute__((visibility(\"hidden\"))) int hidden_helper(int x) { return static_helper(x) + 1; }\n"
    "__attribute__((visibility(\"protected\"))) int protected_export(void) { return 5; }\n"
    "__attribute__((weak)) int weak_export(void) { return 6; }\n"
    "int exported_data = 7;\n"
    "int kb_forward(const void *args)\n"
    "{\n"
    "    if (args != (const void *)1)\n"
    "        return hidden_helper(exported_data);\n"
    "    fopen(\"a\", \"r\");\n"
    "    fopen64(\"b\", \"r\");\n"
    "    pthread_create(NULL, NULL, NULL, NULL);\n"
    "    socket(0, 0, 0);\n"
    "    dlsym(NULL, \"x\");\n"
    "    cublasSgemm_v2(NULL);\n"
    "    cudaStreamCreateWithFlags(NULL, 1);\n"
    "    cudaMemcpyAsync(NULL, NULL, 0, 0, NULL);\n"
    "    cudaMemcpy(NULL, NULL, 0, 0);\n"
    "    cudaEventElapsedTime(NULL, NULL, NULL);\n"
    "    exit(3);\n"
    "}\n";

static const char *want_imports[] = {"fopen", "fopen64", "pthread_create", "socket", "dlsym", "cublasSgemm_v2",
                                     "cudaStreamCreateWithFlags", "cudaMemcpyAsync", "cudaMemcpy",
                                     "cudaEventElapsedTime", "exit"};
static const char *want_exports[] = {"kb_forward", "exported_data", "weak_export", "protected_export"};
static const char *not_exports[] = {"hidden_helper", "static_helper"};

static int run(char *const argv[], kb_cmd_result *res)
{
    kb_err err = {0};
    if (kb_run_cmd(argv, 60.0, 1 << 20, res, &err) != 0) {
        print_error("cannot run %s: %s\n", argv[0], err.msg);
        return -1;
    }
    return 0;
}

static int setup(void **state)
{
    (void)state;
    dir = kbt_tmpdir("elf");
    if (!dir)
        return -1;
    char src[4200];
    snprintf(src, sizeof src, "%s/imports.c", dir);
    snprintf(so_path, sizeof so_path, "%s/libimports.so", dir);
    if (kbt_write_text(src, so_source) != 0)
        return -1;
    char *argv[] = {"gcc", "-shared", "-fPIC", "-O0", "-o", so_path, src, "-Wl,--no-as-needed", "-lm", NULL};
    kb_cmd_result res;
    if (run(argv, &res) != 0)
        return -1;
    int ok = res.exited && res.exit_status == 0;
    if (!ok)
        print_error("gcc failed building the test object:\n%s\n", res.output);
    kb_cmd_result_free(&res);
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    kbt_rmtree(dir);
    free(dir);
    return 0;
}

static int has(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return 1;
    return 0;
}

/* Names nm -D prints for undefined (U, w, v with no value) or defined symbols, version stripped. */
static size_t nm_symbols(int defined, char names[][128], size_t cap)
{
    char *argv[] = {"nm", "-D", defined ? "--defined-only" : "--undefined-only", so_path, NULL};
    kb_cmd_result res;
    if (run(argv, &res) != 0)
        return (size_t)-1;
    size_t n = 0;
    if (!(res.exited && res.exit_status == 0)) {
        kb_cmd_result_free(&res);
        return (size_t)-1;
    }
    for (char *line = strtok(res.output, "\n"); line && n < cap; line = strtok(NULL, "\n")) {
        char *name = strrchr(line, ' ');
        name = name ? name + 1 : line;
        char *at = strchr(name, '@');
        if (at)
            *at = '\0';
        snprintf(names[n++], 128, "%s", name);
    }
    kb_cmd_result_free(&res);
    return n;
}

static void test_elf_symbols(void **state)
{
    (void)state;
    kb_elf_syms s;
    kb_err err = {0};
    KBT_CHECK(kb_elf_read(so_path, &s, &err) == 0, "kb_elf_read: %s", err.msg);
    for (size_t i = 0; i < sizeof want_imports / sizeof want_imports[0]; i++)
        KBT_CHECK(has(s.imports, s.n_imports, want_imports[i]), "import %s missing", want_imports[i]);
    for (size_t i = 0; i < sizeof want_exports / sizeof want_exports[0]; i++)
        KBT_CHECK(has(s.exports, s.n_exports, want_exports[i]), "export %s missing", want_exports[i]);
    for (size_t i = 0; i < sizeof not_exports / sizeof not_exports[0]; i++) {
        KBT_CHECK(!has(s.exports, s.n_exports, not_exports[i]), "%s is listed as an export", not_exports[i]);
        KBT_CHECK(!has(s.imports, s.n_imports, not_exports[i]), "%s is listed as an import", not_exports[i]);
    }
    for (size_t i = 0; i < s.n_exports; i++)
        KBT_CHECK(!has(s.imports, s.n_imports, s.exports[i]), "%s is both import and export", s.exports[i]);
    KBT_CHECK(has(s.needed, s.n_needed, "libc.so.6") && has(s.needed, s.n_needed, "libm.so.6"),
              "DT_NEEDED lacks libc.so.6 / libm.so.6 (%zu entries)", s.n_needed);

    /* Independent oracle: binutils. */
    static char nm_u[256][128], nm_d[256][128];
    size_t nu = nm_symbols(0, nm_u, 256), nd = nm_symbols(1, nm_d, 256);
    if (nu == (size_t)-1 || nd == (size_t)-1) {
        print_message("nm not available: binutils cross-check skipped\n");
    } else {
        KBT_CHECK(nu == s.n_imports, "nm -D lists %zu undefined symbols, kb_elf_read %zu imports", nu, s.n_imports);
        for (size_t i = 0; i < nu; i++)
            KBT_CHECK(has(s.imports, s.n_imports, nm_u[i]), "nm -D undefined %s not among the imports", nm_u[i]);
        KBT_CHECK(nd == s.n_exports, "nm -D lists %zu defined symbols, kb_elf_read %zu exports", nd, s.n_exports);
        for (size_t i = 0; i < nd; i++)
            KBT_CHECK(has(s.exports, s.n_exports, nm_d[i]), "nm -D defined %s not among the exports", nm_d[i]);
        print_message("nm -D agrees: %zu undefined, %zu defined dynamic symbols\n", nu, nd);
    }
    print_message("kb_elf_read: %zu imports (incl. %zu expected), %zu exports (default, weak, protected; not hidden "
                  "or static), needed:",
                  s.n_imports, sizeof want_imports / sizeof want_imports[0], s.n_exports);
    for (size_t i = 0; i < s.n_needed; i++)
        print_message(" %s", s.needed[i]);
    print_message("\n");
    kb_elf_free(&s);
    KBT_CHECK(s.imports == NULL && s.n_imports == 0, "kb_elf_free does not reset the struct");
}

static int write_bytes(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(b, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

static void test_elf_bad_input(void **state)
{
    (void)state;
    kb_elf_syms s;
    kb_err err = {0};
    char p[4300];

    snprintf(p, sizeof p, "%s/missing.so", dir);
    KBT_CHECK(kb_elf_read(p, &s, &err) == -1, "read a missing file");
    KBT_CHECK(err.code == KB_EXIT_MISSING, "missing file: code %d", err.code);

    snprintf(p, sizeof p, "%s/text.so", dir);
    assert_int_equal(kbt_write_text(p, "#!/bin/sh\necho this is not an ELF object\n"), 0);
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_elf_read(p, &s, &err) == -1, "accepted a text file");
    KBT_MSG_HAS(err.msg, "not an ELF");
    KBT_CHECK(s.n_imports == 0 && s.imports == NULL, "error left symbols behind");
    print_message("text file: \"%s\"\n", err.msg);

    snprintf(p, sizeof p, "%s/empty.so", dir);
    assert_int_equal(kbt_write_text(p, ""), 0);
    KBT_CHECK(kb_elf_read(p, &s, &err) == -1, "accepted an empty file");

    size_t len = 0;
    char *bytes = kb_read_file(so_path, &len, &err);
    assert_non_null(bytes);

    /* 32-bit class */
    char *b32 = malloc(len);
    assert_non_null(b32);
    memcpy(b32, bytes, len);
    b32[EI_CLASS] = ELFCLASS32;
    snprintf(p, sizeof p, "%s/class32.so", dir);
    assert_int_equal(write_bytes(p, b32, len), 0);
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_elf_read(p, &s, &err) == -1, "accepted a 32-bit ELF");
    KBT_MSG_HAS(err.msg, "64-bit");
    free(b32);

    /* every truncation: the section headers are at the end, so each must be an error */
    snprintf(p, sizeof p, "%s/cut.so", dir);
    size_t cuts = 0;
    for (size_t n = 0; n < len; n += (n < 512 ? 1 : 61)) {
        assert_int_equal(write_bytes(p, bytes, n), 0);
        memset(&err, 0, sizeof err);
        int rc = kb_elf_read(p, &s, &err);
        KBT_CHECK(rc == -1 && err.msg[0], "a %zu-byte truncation of a %zu-byte object was accepted", n, len);
        cuts++;
    }
    print_message("truncated ELF: %zu prefixes rejected, e.g. \"%s\"\n", cuts, err.msg);

    /* corrupted copies: random bytes anywhere and in the headers; any answer but a crash */
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)bytes;
    char *c = malloc(len);
    assert_non_null(c);
    uint64_t rs = 4242;
    size_t accepted = 0, rejected = 0;
    for (int it = 0; it < 5000; it++) {
        memcpy(c, bytes, len);
        int flips = 1 + (int)(kbt_next(&rs) % 8);
        for (int k = 0; k < flips; k++) {
            uint64_t r = kbt_next(&rs);
            size_t at;
            switch (r % 3) {
            case 0: at = (size_t)(r >> 8) % len; break;                            /* anywhere */
            case 1: at = (size_t)(r >> 8) % sizeof(Elf64_Ehdr); break;              /* ELF header */
            default: at = eh->e_shoff + (size_t)(r >> 8) % ((size_t)eh->e_shnum * sizeof(Elf64_Shdr)); break;
            }
            if (at < len)
                c[at] = (char)(kbt_next(&rs) & 0xff);
        }
        /* keep the magic most of the time so the parser gets past it */
        if (it % 4)
            memcpy(c, ELFMAG, SELFMAG);
        assert_int_equal(write_bytes(p, c, len), 0);
        if (kb_elf_read(p, &s, &err) == 0) {
            accepted++;
            kb_elf_free(&s);
        } else {
            rejected++;
        }
    }
    free(c);
    free(bytes);
    print_message("5000 corrupted copies: %zu parsed, %zu rejected, no crash\n", accepted, rejected);
}

/* ---- the scan rules ---------------------------------------------------------------------------- */

typedef struct scan_case {
    const char *symbol;
    const char *category; /* NULL: no rule */
    kb_severity severity;
} scan_case;

static const scan_case scan_cases[] = {
    /* the brief's anchors */
    {"cudaStreamCreateWithFlags", "other_stream", KB_SEV_FLAG},
    {"cudaMemcpyAsync", NULL, KB_SEV_NONE},
    {"cudaMemcpy", "legacy_stream", KB_SEV_FLAG},
    {"cublasSgemm_v2", "library", KB_SEV_INFO},
    {"fopen64", "file", KB_SEV_REJECT},
    {"pthread_create", "thread", KB_SEV_REJECT},
    {"socket", "network", KB_SEV_REJECT},
    {"dlsym", "dlopen", KB_SEV_REJECT},
    {"cudaEventElapsedTime", "timer_read", KB_SEV_REJECT},
    {"exit", "exit", KB_SEV_INFO},
    /* timers before events: cudaEventElapsedTime_v2 must not fall into "events" */
    {"cudaEventElapsedTime_v2", "timer_read", KB_SEV_REJECT},
    {"cuEventElapsedTime", "timer_read", KB_SEV_REJECT},
    {"cuEventRecord", "events", KB_SEV_FLAG},
    {"cudaEventCreateWithFlags", "events", KB_SEV_FLAG},
    {"cudaEventRecord", "events", KB_SEV_FLAG},
    {"cudaEventSynchronize", NULL, KB_SEV_NONE},
    {"cudaStreamWaitEvent", "events", KB_SEV_FLAG},
    {"cudaProfilerStart", "timer_read", KB_SEV_REJECT},
    /* streams, graphs, callbacks, legacy stream */
    {"cudaStreamCreate", "other_stream", KB_SEV_FLAG},
    {"cuStreamCreate", "other_stream", KB_SEV_FLAG},
    {"cudaStreamSynchronize", "host_sync", KB_SEV_INFO},
    {"cudaStreamQuery", NULL, KB_SEV_NONE},
    {"cudaStreamBeginCapture", "graph", KB_SEV_FLAG},
    {"cudaGraphLaunch", "graph", KB_SEV_FLAG},
    {"cuGraphLaunch", "graph", KB_SEV_FLAG},
    {"cudaLaunchHostFunc", "host_callback", KB_SEV_FLAG},
    {"cudaStreamAddCallback", "host_callback", KB_SEV_FLAG},
    {"cudaMemset", "legacy_stream", KB_SEV_FLAG},
    {"cudaMemsetAsync", NULL, KB_SEV_NONE},
    {"cudaMemcpy2D", "legacy_stream", KB_SEV_FLAG},
    {"cudaMemcpy2DAsync", NULL, KB_SEV_NONE},
    {"cudaMemcpyToSymbol", "legacy_stream", KB_SEV_FLAG},
    {"cudaMemcpyToSymbolAsync", NULL, KB_SEV_NONE},
    {"cudaLaunchKernel", NULL, KB_SEV_NONE},
    {"cudaGetLastError", NULL, KB_SEV_NONE},
    {"__cudaRegisterFunction", NULL, KB_SEV_NONE},
    /* device control */
    {"cudaDeviceReset", "device_control", KB_SEV_REJECT},
    {"cuDevicePrimaryCtxReset_v2", "device_control", KB_SEV_REJECT},
    {"cudaSetDevice", "device_control", KB_SEV_FLAG},
    {"cudaDeviceSetLimit", "device_control", KB_SEV_FLAG},
    {"cuCtxSynchronize", "device_control", KB_SEV_FLAG},
    {"cudaDeviceSynchronize", "host_sync", KB_SEV_INFO},
    /* memory */
    {"cudaMalloc", "allocation", KB_SEV_INFO},
    {"cudaMallocAsync", "allocation", KB_SEV_INFO},
    {"cudaFreeAsync", "allocation", KB_SEV_INFO},
    {"cuMemAlloc_v2", "allocation", KB_SEV_INFO},
    /* libraries */
    {"cublasLtMatmul", "library", KB_SEV_INFO},
    {"cudnnConvolutionForward", "library", KB_SEV_INFO},
    {"cufftExecC2C", "library", KB_SEV_INFO},
    {"curandGenerateUniform", "library", KB_SEV_INFO},
    /* host threads and processes */
    {"thrd_create", "thread", KB_SEV_REJECT},
    {"_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE", "thread", KB_SEV_REJECT},
    {"clone", "thread", KB_SEV_REJECT},
    {"fork", "process", KB_SEV_REJECT},
    {"posix_spawnp", "process", KB_SEV_REJECT},
    {"system", "process", KB_SEV_REJECT},
    {"popen", "process", KB_SEV_REJECT},
    {"execvp", "process", KB_SEV_REJECT},
    {"execve", "process", KB_SEV_REJECT},
    {"execlp", "process", KB_SEV_REJECT},
    {"kill", "process", KB_SEV_REJECT},
    {"ptrace", "process", KB_SEV_REJECT},
    /* files */
    {"fopen", "file", KB_SEV_REJECT},
    {"open", "file", KB_SEV_REJECT},
    {"open64", "file", KB_SEV_REJECT},
    {"openat64", "file", KB_SEV_REJECT},
    {"__open_2", "file", KB_SEV_REJECT},
    {"opendir", "file", KB_SEV_REJECT},
    {"unlink", "file", KB_SEV_REJECT},
    {"rename", "file", KB_SEV_REJECT},
    {"mkdir", "file", KB_SEV_REJECT},
    {"creat64", "file", KB_SEV_REJECT},
    {"fwrite", NULL, KB_SEV_NONE}, /* writing to stdout/stderr is harmless without fopen */
    {"printf", NULL, KB_SEV_NONE},
    {"openlog", NULL, KB_SEV_NONE}, /* "open" is exact, not a prefix */
    /* network */
    {"connect", "network", KB_SEV_REJECT},
    {"getaddrinfo", "network", KB_SEV_REJECT},
    {"accept4", "network", KB_SEV_REJECT},
    {"gethostbyname_r", "network", KB_SEV_REJECT},
    /* loading and tampering */
    {"dlopen", "dlopen", KB_SEV_REJECT},
    {"mprotect", "tamper", KB_SEV_REJECT},
    {"syscall", "tamper", KB_SEV_REJECT},
    {"signal", "tamper", KB_SEV_REJECT},
    {"sigaction", "tamper", KB_SEV_REJECT},
    {"mmap64", "tamper", KB_SEV_FLAG},
    {"_exit", "exit", KB_SEV_INFO},
    {"abort", "exit", KB_SEV_INFO},
    {"getenv", "environment", KB_SEV_FLAG},
    /* ordinary */
    {"malloc", NULL, KB_SEV_NONE},
    {"memcpy", NULL, KB_SEV_NONE},
    {"__cxa_atexit", NULL, KB_SEV_NONE},
    {"", NULL, KB_SEV_NONE},
};

static void test_scan_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof scan_cases / sizeof scan_cases[0]; i++) {
        const scan_case *c = &scan_cases[i];
        const kb_scan_rule *r = kb_scan_match(c->symbol);
        if (!c->category) {
            KBT_CHECK(r == NULL, "%s should match no rule, matches %s (%s)", c->symbol, r ? r->pattern : "",
                      r ? r->category : "");
            continue;
        }
        KBT_CHECK(r != NULL, "%s matches no rule, want %s/%s", c->symbol, c->category, kb_severity_name(c->severity));
        KBT_CHECK(!strcmp(r->category, c->category) && r->severity == c->severity, "%s -> %s/%s (rule %s), want %s/%s",
                  c->symbol, r->category, kb_severity_name(r->severity), r->pattern, c->category,
                  kb_severity_name(c->severity));
    }
    print_message("scan: %zu symbols -> (category, severity) as specified\n", sizeof scan_cases / sizeof scan_cases[0]);
}

static void test_scan_rules_well_formed(void **state)
{
    (void)state;
    size_t n = 0;
    const kb_scan_rule *rules = kb_scan_rules(&n);
    KBT_CHECK(n > 50, "only %zu rules", n);
    size_t redundant = 0;
    for (size_t i = 0; i < n; i++) {
        const kb_scan_rule *r = &rules[i];
        KBT_CHECK(r->pattern && r->pattern[0] && r->category && r->category[0] && r->why && r->why[0],
                  "rule %zu has an empty field", i);
        KBT_CHECK(r->severity >= KB_SEV_INFO && r->severity <= KB_SEV_REJECT, "rule %s has severity %d", r->pattern,
                  (int)r->severity);
        KBT_CHECK(strchr(r->pattern, '*') == NULL || strchr(r->pattern, '*') == r->pattern + strlen(r->pattern) - 1,
                  "rule %s: '*' only as the last character", r->pattern);
        /* The rule's own literal (the prefix for "p*") must reach this rule, or an earlier rule
         * that says the same thing (redundant, harmless); an earlier rule with another meaning
         * would silently change the verdict. */
        char lit[256];
        snprintf(lit, sizeof lit, "%.*s", (int)(strlen(r->pattern) - (strchr(r->pattern, '*') ? 1 : 0)), r->pattern);
        const kb_scan_rule *m = kb_scan_match(lit);
        KBT_CHECK(m != NULL, "rule %s is unreachable", r->pattern);
        if (m != r) {
            KBT_CHECK(!strcmp(m->category, r->category) && m->severity == r->severity,
                      "rule %s (%s/%s) is shadowed by the earlier rule %s (%s/%s)", r->pattern, r->category,
                      kb_severity_name(r->severity), m->pattern, m->category, kb_severity_name(m->severity));
            redundant++;
            print_message("note: rule %s is redundant (the earlier %s already matches it, same meaning)\n", r->pattern,
                          m->pattern);
        }
    }
    /* every category named in the table above exists in the rules */
    for (size_t i = 0; i < sizeof scan_cases / sizeof scan_cases[0]; i++) {
        if (!scan_cases[i].category)
            continue;
        int found = 0;
        for (size_t k = 0; k < n && !found; k++)
            found = !strcmp(rules[k].category, scan_cases[i].category);
        KBT_CHECK(found, "category %s has no rule", scan_cases[i].category);
    }
    print_message("scan rules: %zu rules well formed and reachable (%zu redundant)\n", n, redundant);
}

static void test_scan_names(void **state)
{
    (void)state;
    const struct {
        kb_severity s;
        const char *sev, *verdict;
    } names[] = {
        {KB_SEV_NONE, "none", "clean"},
        {KB_SEV_INFO, "info", "clean"},
        {KB_SEV_FLAG, "flag", "flagged"},
        {KB_SEV_REJECT, "reject", "rejected"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        KBT_CHECK(!strcmp(kb_severity_name(names[i].s), names[i].sev), "severity %d named %s, want %s", (int)names[i].s,
                  kb_severity_name(names[i].s), names[i].sev);
        KBT_CHECK(!strcmp(kb_scan_verdict_name(names[i].s), names[i].verdict), "verdict of %d is %s, want %s",
                  (int)names[i].s, kb_scan_verdict_name(names[i].s), names[i].verdict);
    }
    /* The verdict of the test object's imports: rejected (fopen, pthread_create, ...). */
    kb_elf_syms s;
    kb_err err = {0};
    assert_int_equal(kb_elf_read(so_path, &s, &err), 0);
    kb_severity worst = KB_SEV_NONE;
    for (size_t i = 0; i < s.n_imports; i++) {
        const kb_scan_rule *r = kb_scan_match(s.imports[i]);
        if (r && r->severity > worst)
            worst = r->severity;
    }
    kb_elf_free(&s);
    KBT_CHECK(!strcmp(kb_scan_verdict_name(worst), "rejected"), "the test object's verdict is %s",
              kb_scan_verdict_name(worst));
    print_message("severity names none/info/flag/reject, verdicts clean/clean/flagged/rejected; test object rejected\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elf_symbols),
        cmocka_unit_test(test_elf_bad_input),
        cmocka_unit_test(test_scan_table),
        cmocka_unit_test(test_scan_rules_well_formed),
        cmocka_unit_test(test_scan_names),
    };
    return cmocka_run_group_tests_name("elf_scan", tests, setup, teardown);
}
