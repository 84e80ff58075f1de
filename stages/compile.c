/*
 * kb-compile -- build one submission sample into a shared object and record how it went.
 * Needs no GPU (nvcc only).
 *
 * The object exports only kb_forward (hidden visibility plus a linker version script), links
 * the CUDA runtime shared (-cudart shared) and cuBLAS/cuBLASLt/cuDNN as needed (--as-needed),
 * and is scanned for what it imports (lib/scan.c). The artifact records: success, wall time,
 * the full nvcc log, per-kernel registers / shared memory / stack / spills (from ptxas -v), the
 * imported symbols with their categories, the libraries it needs, and the scan verdict.
 * Outcomes: ok; compile_error (nvcc failed or timed out); load_error (compiled, but does not
 * export kb_forward).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kb_artifact.h"
#include "kb_elf.h"
#include "kb_proc.h"
#include "kb_scan.h"
#include "kb_stage.h"

#define MAX_KERNELS 256

typedef struct kernel_info {
    char name[512];
    int64_t registers, smem, stack, spill_stores, spill_loads, barriers;
} kernel_info;

/* ptxas -v lines for sm_90 (the PTX target is not assembled here):
 *   ptxas info    : Compiling entry function '_Z4reluPKfPfl' for 'sm_90'
 *   ptxas info    : Function properties for _Z4reluPKfPfl
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0] */
static size_t parse_ptxas(const char *log, kernel_info *k, size_t cap)
{
    size_t n = 0;
    kernel_info *cur = NULL;
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        const char *p;
        if ((p = strstr(buf, "Compiling entry function '")) && n < cap) {
            p += strlen("Compiling entry function '");
            const char *q = strchr(p, '\'');
            cur = &k[n++];
            memset(cur, 0, sizeof *cur);
            snprintf(cur->name, sizeof cur->name, "%.*s", q ? (int)(q - p) : 0, p);
        } else if (cur && (p = strstr(buf, "bytes stack frame"))) {
            long long a = 0, b = 0, c = 0;
            if (sscanf(buf, " %lld bytes stack frame, %lld bytes spill stores, %lld bytes spill loads", &a, &b, &c) == 3) {
                cur->stack = a;
                cur->spill_stores = b;
                cur->spill_loads = c;
            }
        } else if (cur && (p = strstr(buf, "Used "))) {
            long long r = 0;
            if (sscanf(p, "Used %lld registers", &r) == 1)
                cur->registers = r;
            const char *b = strstr(p, "used ");
            long long bar = 0;
            if (b && sscanf(b, "used %lld barriers", &bar) == 1)
                cur->barriers = bar;
            const char *sm = strstr(p, "bytes smem");
            if (sm) {
                const char *s0 = sm;
                while (s0 > p && s0[-1] == ' ')
                    s0--;
                while (s0 > p && s0[-1] >= '0' && s0[-1] <= '9')
                    s0--;
                cur->smem = atoll(s0);
            }
        }
        line = end ? end + 1 : NULL;
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *src = NULL, *out_so = NULL, *out = NULL, *model = NULL, *problem = NULL, *sample = NULL;
    const char *include = "include", *nvcc = "/usr/local/cuda/bin/nvcc", *gencode = "-gencode=arch=compute_90,code=[sm_90,compute_90]";
    kb_opt opts[] = {
        {"src", &src, NULL, "* the submission's .cu file"},
        {"out-so", &out_so, NULL, "* where the shared object goes"},
        {"out", &out, NULL, "* the artifact (compile.h5)"},
        {"model", &model, NULL, "* model name (for the record)"},
        {"problem", &problem, NULL, "* problem id, e.g. level1/019_relu"},
        {"sample", &sample, NULL, "* sample name, e.g. s0"},
        {"include", &include, NULL, "directory holding kb/submission.h (default include)"},
        {"nvcc", &nvcc, NULL, "nvcc to use (default /usr/local/cuda/bin/nvcc)"},
        {"gencode", &gencode, NULL, "target flag (default sm_90 code + compute_90 PTX)"},
    };
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv,
                            "kb-compile: build one submission sample with nvcc and record the result.\n"
                            "Usage: kb-compile --src S.cu --out-so K.so --out compile.h5 --model M --problem P --sample S",
                            opts, sizeof opts / sizeof opts[0], &cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("compile", &err);
    if (access(src, R_OK) != 0) {
        kb_errf(&err, KB_EXIT_MISSING, "cannot read submission %s: %s", src, strerror(errno));
        return kb_stage_fail("compile", &err);
    }
    if (kb_mkdirs_for(out_so, &err) != 0)
        return kb_stage_fail("compile", &err);

    /* The version script: only kb_forward leaves the object. */
    char map[4200], tmp_so[4200], vs[4300], inc[4200];
    kb_fmt(map, sizeof map, "%s.map", out_so);
    const char *script = "{ global: kb_forward; local: *; };\n";
    if (kb_write_file_atomic(map, script, strlen(script), &err) != 0)
        return kb_stage_fail("compile", &err);
    kb_fmt(tmp_so, sizeof tmp_so, "%s.tmp.%ld", out_so, (long)getpid());
    kb_fmt(vs, sizeof vs, "--version-script=%s", map);
    kb_fmt(inc, sizeof inc, "-I%s", include);
    /* --gencode may hold several space-separated flags */
    char genbuf[1024];
    snprintf(genbuf, sizeof genbuf, "%s", gencode);
    char *nv[64];
    int k = 0;
    nv[k++] = (char *)nvcc;
    nv[k++] = "-std=c++17";
    nv[k++] = "-O3";
    for (char *save = NULL, *tok = strtok_r(genbuf, " ", &save); tok && k < 40; tok = strtok_r(NULL, " ", &save))
        nv[k++] = tok;
    const char *rest[] = {"-shared", "-cudart", "shared", "-Xcompiler", "-fPIC,-fvisibility=hidden", "-Xptxas", "-v",
                          "-lineinfo", inc, "-o", tmp_so, src, "-Xlinker", vs, "-Xlinker", "--as-needed", "-lcublas",
                          "-lcublasLt", "-lcudnn"};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        nv[k++] = (char *)rest[i];
    nv[k] = NULL;
    kb_cmd_result res;
    if (kb_run_cmd(nv, cfg.compile_timeout_s, 1 << 20, &res, &err) != 0)
        return kb_stage_fail("compile", &err);
    int built = res.exited && res.exit_status == 0 && !res.timed_out;
    if (built && rename(tmp_so, out_so) != 0) {
        kb_errf(&err, KB_EXIT_FAIL, "cannot rename %s to %s: %s", tmp_so, out_so, strerror(errno));
        kb_cmd_result_free(&res);
        return kb_stage_fail("compile", &err);
    }
    unlink(tmp_so);

    kb_outcome outcome = built ? KB_OUT_OK : KB_OUT_COMPILE_ERROR;
    char detail[512] = "";
    char status[128];
    kb_describe_status(&res, status, sizeof status);
    if (!built)
        snprintf(detail, sizeof detail, "nvcc: %s", status);

    kb_elf_syms syms = {0};
    kb_severity worst = KB_SEV_NONE;
    const char **cats = NULL, **sevs = NULL, **why = NULL;
    if (built) {
        if (kb_elf_read(out_so, &syms, &err) != 0) {
            kb_cmd_result_free(&res);
            return kb_stage_fail("compile", &err);
        }
        int has_forward = 0;
        for (size_t i = 0; i < syms.n_exports; i++)
            if (!strcmp(syms.exports[i], "kb_forward"))
                has_forward = 1;
        if (!has_forward) {
            outcome = KB_OUT_LOAD_ERROR;
            snprintf(detail, sizeof detail,
                     "the object does not export kb_forward (define `int kb_forward(const kb_args *)` after including "
                     "<kb/submission.h>, which gives it C linkage)");
        }
        cats = calloc(syms.n_imports + 1, sizeof *cats);
        sevs = calloc(syms.n_imports + 1, sizeof *sevs);
        why = calloc(syms.n_imports + 1, sizeof *why);
        for (size_t i = 0; i < syms.n_imports && cats; i++) {
            const kb_scan_rule *r = kb_scan_match(syms.imports[i]);
            cats[i] = r ? r->category : "";
            sevs[i] = kb_severity_name(r ? r->severity : KB_SEV_NONE);
            why[i] = r ? r->why : "";
            if (r && r->severity > worst)
                worst = r->severity;
        }
    }
    kernel_info kernels[MAX_KERNELS];
    size_t nk = parse_ptxas(res.output, kernels, MAX_KERNELS);

    kb_cell cell = {model, problem, sample};
    kb_h5w *w = kb_artifact_begin(out, "compile", &cell, &cfg, &err);
    if (!w) {
        kb_cmd_result_free(&res);
        return kb_stage_fail("compile", &err);
    }
    kb_h5w_attr_str(w, "/", "source", src);
    kb_h5w_attr_i64(w, "/", "compiled", built);
    kb_h5w_attr_f64(w, "/", "wall_s", res.wall_s);
    kb_h5w_attr_str(w, "/", "nvcc_status", status);
    kb_h5w_text(w, "/nvcc/log", res.output);
    kb_h5w_attr_i64(w, "/nvcc", "log_truncated", res.output_truncated);
    const char *cmd[64];
    size_t nc = 0;
    for (; nv[nc]; nc++)
        cmd[nc] = nv[nc];
    kb_h5w_strv(w, "/nvcc/command", cmd, nc);
    /* kernels */
    {
        const char *names[MAX_KERNELS];
        int64_t a[MAX_KERNELS];
        kb_h5w_group(w, "/kernels");
        for (size_t i = 0; i < nk; i++)
            names[i] = kernels[i].name;
        kb_h5w_strv(w, "/kernels/name", names, nk);
#define COL(field, units)                                                                                             \
    do {                                                                                                              \
        for (size_t i = 0; i < nk; i++)                                                                               \
            a[i] = kernels[i].field;                                                                                  \
        kb_h5w_i64v(w, "/kernels/" #field, a, nk, units);                                                             \
    } while (0)
        COL(registers, "registers per thread");
        COL(smem, "bytes (static shared memory)");
        COL(stack, "bytes");
        COL(spill_stores, "bytes");
        COL(spill_loads, "bytes");
        COL(barriers, "barriers");
#undef COL
    }
    /* symbols */
    kb_h5w_group(w, "/symbols");
    kb_h5w_strv(w, "/symbols/imports", (const char *const *)syms.imports, syms.n_imports);
    kb_h5w_strv(w, "/symbols/category", cats ? cats : (const char *[]){NULL}, cats ? syms.n_imports : 0);
    kb_h5w_strv(w, "/symbols/severity", sevs ? sevs : (const char *[]){NULL}, sevs ? syms.n_imports : 0);
    kb_h5w_strv(w, "/symbols/why", why ? why : (const char *[]){NULL}, why ? syms.n_imports : 0);
    kb_h5w_strv(w, "/symbols/exports", (const char *const *)syms.exports, syms.n_exports);
    kb_h5w_strv(w, "/symbols/needed", (const char *const *)syms.needed, syms.n_needed);
    kb_h5w_attr_str(w, "/symbols", "verdict", built ? kb_scan_verdict_name(worst) : "none");
    /* a one-line list of the flagged and rejected reasons, for tables */
    char reasons[2048] = "";
    for (size_t i = 0; built && cats && i < syms.n_imports; i++) {
        const kb_scan_rule *r = kb_scan_match(syms.imports[i]);
        if (!r || r->severity < KB_SEV_FLAG || strstr(reasons, r->category))
            continue;
        size_t l = strlen(reasons);
        snprintf(reasons + l, sizeof reasons - l, "%s%s", l ? "," : "", r->category);
    }
    kb_h5w_attr_str(w, "/symbols", "reasons", reasons);
    int library = 0;
    for (size_t i = 0; built && cats && i < syms.n_imports; i++)
        if (!strcmp(cats[i], "library"))
            library = 1;
    kb_h5w_attr_i64(w, "/symbols", "calls_library", library);

    int rc = kb_artifact_finish(w, outcome, detail, &err);
    printf("[compile      ] %-14s %-28s %-3s %s %s (%.1f s)%s%s\n", model, problem, sample,
           outcome == KB_OUT_OK ? "ok" : kb_outcome_name(outcome), built ? kb_scan_verdict_name(worst) : "",
           res.wall_s, reasons[0] ? " flags: " : "", reasons);
    if (outcome != KB_OUT_OK && res.output_len) {
        /* the first lines of the compiler's complaint, for the impatient */
        fprintf(stderr, "%.*s\n", (int)(res.output_len < 1500 ? res.output_len : 1500), res.output);
    }
    free(cats);
    free(sevs);
    free(why);
    kb_elf_free(&syms);
    kb_cmd_result_free(&res);
    if (rc != 0)
        return kb_stage_fail("compile", &err);
    return 0;
}
