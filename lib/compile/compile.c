/*
 * compile.c -- what kb-compile does (kb_compile.h): a .cu built by nvcc into a shared object
 * that exports only kb_forward, a .py built by kbpy.build; both recorded in compile.h5 with the
 * compiler's log, per-kernel resources (ptxas -v) and the symbol scan (lib/compile/scan.c).
 */
#include "compile/kb_compile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kb_artifact.h"
#include "compile/kb_elf.h"
#include "core/kb_proc.h"
#include "compile/kb_scan.h"
#include "core/kb_stage.h"
#include "core/kb_schema.h"

/* a failure of the harness itself (not the submission's): kb_stage_fail's return value */
static int kb_compile_fail(kb_err *err) { return err->code ? err->code : KB_EXIT_FAIL; }


/* ptxas -v lines for sm_90 (the PTX target is not assembled here):
 *   ptxas info    : Compiling entry function '_Z4reluPKfPfl' for 'sm_90'
 *   ptxas info    : Function properties for _Z4reluPKfPfl
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 380 bytes cmem[0] */
size_t kb_parse_ptxas(const char *log, kb_kernel_info *k, size_t cap)
{
    size_t n = 0;
    kb_kernel_info *cur = NULL;
    for (const char *line = log; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        const char *p;
        if ((p = strstr(buf, "Compiling entry function '"))) {
            p += strlen("Compiling entry function '");
            const char *q = strchr(p, '\'');
            cur = n < cap ? &k[n] : NULL; /* counted, not kept */
            n++;
            if (cur) {
                memset(cur, 0, sizeof *cur);
                snprintf(cur->name, sizeof cur->name, "%.*s", q ? (int)(q - p) : 0, p);
            }
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

/* The symbol scan of the built object(s) under /symbols: imports with their category, severity
 * and rule (lib/compile/scan.c), exports, needed libraries, the verdict, a one-line list of the flagged
 * and rejected categories (`reasons`, plus `extra`: reasons found otherwise, e.g. a .py file's
 * "no custom kernel", which make the verdict "rejected"), and which vendor libraries it calls.
 * Returns the verdict's severity. */
static kb_severity write_symbols(kb_h5w *w, int built, const kb_elf_syms *syms, const char *extra, char *reasons,
                                 size_t rlen)
{
    size_t n = built ? syms->n_imports : 0;
    const char **cats = calloc(n + 1, sizeof *cats), **sevs = calloc(n + 1, sizeof *sevs),
               **why = calloc(n + 1, sizeof *why);
    if (!cats || !sevs || !why)
        n = 0;
    kb_severity worst = KB_SEV_NONE;
    for (size_t i = 0; i < n; i++) {
        const kb_scan_rule *r = kb_scan_match(syms->imports[i]);
        cats[i] = r ? r->category : "";
        sevs[i] = kb_severity_name(r ? r->severity : KB_SEV_NONE);
        why[i] = r ? r->why : "";
        if (r && r->severity > worst)
            worst = r->severity;
    }
    if (extra && extra[0])
        worst = KB_SEV_REJECT;
    kb_h5w_group(w, KB_GRP_SYMBOLS);
    kb_h5w_strv(w, "/symbols/imports", (const char *const *)syms->imports, syms->n_imports);
    static const char *none[1] = {NULL};
    kb_h5w_strv(w, "/symbols/category", n ? cats : none, n);
    kb_h5w_strv(w, "/symbols/severity", n ? sevs : none, n);
    kb_h5w_strv(w, "/symbols/why", n ? why : none, n);
    kb_h5w_strv(w, "/symbols/exports", (const char *const *)syms->exports, syms->n_exports);
    kb_h5w_strv(w, "/symbols/needed", (const char *const *)syms->needed, syms->n_needed);
    kb_h5w_attr_str(w, KB_GRP_SYMBOLS, KB_ATTR_VERDICT, built ? kb_scan_verdict_name(worst) : "none");
    reasons[0] = '\0';
    if (extra && extra[0])
        snprintf(reasons, rlen, "%s", extra);
    for (size_t i = 0; i < n; i++) {
        const kb_scan_rule *r = kb_scan_match(syms->imports[i]);
        if (!r || r->severity < KB_SEV_FLAG || strstr(reasons, r->category))
            continue;
        size_t l = strlen(reasons);
        snprintf(reasons + l, rlen - l, "%s%s", l ? "," : "", r->category);
    }
    kb_h5w_attr_str(w, KB_GRP_SYMBOLS, KB_ATTR_REASONS, reasons);
    /* the vendor libraries it calls, by name ("cublas,cudnn"): imported symbols and DT_NEEDED */
    char libs[256] = "";
    static const struct {
        const char *sym, *lib;
    } vendors[] = {{"cublasLt", "cublasLt"}, {"cublas", "cublas"}, {"cudnn", "cudnn"}, {"cufft", "cufft"},
                   {"curand", "curand"}, {"cusparse", "cusparse"}, {"cusolver", "cusolver"}};
    int library = 0;
    for (size_t v = 0; v < sizeof vendors / sizeof vendors[0]; v++) {
        int hit = 0;
        for (size_t i = 0; built && i < syms->n_imports && !hit; i++)
            if (!strncmp(syms->imports[i], vendors[v].sym, strlen(vendors[v].sym)) &&
                (v != 1 || strncmp(syms->imports[i], "cublasLt", 8)))
                hit = 1;
        if (hit) {
            size_t l = strlen(libs);
            snprintf(libs + l, sizeof libs - l, "%s%s", l ? "," : "", vendors[v].lib);
            library = 1;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!strcmp(cats[i], "library"))
            library = 1;
    kb_h5w_attr_i64(w, KB_GRP_SYMBOLS, KB_ATTR_CALLS_LIBRARY, library);
    kb_h5w_attr_str(w, KB_GRP_SYMBOLS, KB_ATTR_LIBRARIES, libs);
    free(cats);
    free(sevs);
    free(why);
    return worst;
}

/* A KernelBench-format file: kbpy.build reads its load_inline sources statically (it never runs
 * the file), builds each extension into DIR/ext/ with a time limit, and writes DIR/kernel.py (the
 * snapshot) and DIR/manifest.json. Recorded here: the outcome, the build's wall and CPU time, the
 * log, the manifest, each extension, and the same symbol scan as a .cu over the extensions. */
#define MAX_EXT 16
int kb_compile_py(const char *src, const char *out_py, const char *out, const kb_cell *cell, const kb_config *cfg,
                      const char *cache, const char *py_dir, kb_err *err)
{
    char dir[4096], timeout[32];
    snprintf(dir, sizeof dir, "%s", out_py);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    snprintf(timeout, sizeof timeout, "%g", cfg->compile_timeout_s);
    const char *py = getenv("KB_PYTHON");
    char *argv[] = {(char *)(py && py[0] ? py : "python3"), "-m", "kbpy.compile_record", "--src", (char *)src,
                    "--out-dir", dir, "--cache", (char *)cache, "--timeout", timeout, NULL};
    setenv("PYTHONPATH", py_dir, 1);
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    kb_cmd_result res;
    /* the builder enforces the limit on its compilers; this one is the backstop */
    if (kb_run_cmd(argv, cfg->compile_timeout_s + 60.0, 1 << 22, &res, err) != 0)
        return -1;
    char status[64] = "compile_error", reason[1024] = "", cls[64] = "", unsupported[64] = "", ops[2048] = "";
    int custom = 0, guard = 0, got = 0;
    double wall_s = res.wall_s, core_s = NAN;
    struct {
        char name[128], status[32], so[4096], reason[512];
        int cached;
        double core_s, wall_s;
    } ext[MAX_EXT];
    size_t n_ext = 0;
    for (char *line = res.output; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (!strncmp(line, "kbrec\t", 6)) {
            char *k = line + 6, *v = strchr(k, '\t');
            if (v) {
                *v++ = '\0';
                got = 1;
                if (!strcmp(k, "status"))
                    snprintf(status, sizeof status, "%s", v);
                else if (!strcmp(k, "reason"))
                    snprintf(reason, sizeof reason, "%s", v);
                else if (!strcmp(k, "class"))
                    snprintf(cls, sizeof cls, "%s", v);
                else if (!strcmp(k, "unsupported"))
                    snprintf(unsupported, sizeof unsupported, "%s", v);
                else if (!strcmp(k, "torch_ops"))
                    snprintf(ops, sizeof ops, "%s", v);
                else if (!strcmp(k, "custom_kernel"))
                    custom = atoi(v);
                else if (!strcmp(k, "fallback_guard"))
                    guard = atoi(v);
                else if (!strcmp(k, "core_s"))
                    core_s = atof(v);
                else if (!strcmp(k, "ext") && n_ext < MAX_EXT) {
                    char *f[7] = {v};
                    for (int i = 1; i < 7 && f[i - 1]; i++) {
                        f[i] = strchr(f[i - 1], '\t');
                        if (f[i])
                            *f[i]++ = '\0';
                    }
                    if (f[6]) {
                        snprintf(ext[n_ext].name, sizeof ext[n_ext].name, "%s", f[0]);
                        snprintf(ext[n_ext].status, sizeof ext[n_ext].status, "%s", f[1]);
                        ext[n_ext].cached = atoi(f[2]);
                        ext[n_ext].core_s = atof(f[3]);
                        ext[n_ext].wall_s = atof(f[4]);
                        snprintf(ext[n_ext].so, sizeof ext[n_ext].so, "%s", f[5]);
                        snprintf(ext[n_ext].reason, sizeof ext[n_ext].reason, "%s", f[6]);
                        n_ext++;
                    }
                }
            }
        }
        if (!end)
            break;
        *end = '\n';
        line = end + 1;
    }
    char st[128];
    kb_describe_status(&res, st, sizeof st);
    kb_outcome outcome = KB_OUT_COMPILE_ERROR;
    char detail[1200];
    if (!got) {
        /* not the submission's failure: say what the builder said last */
        char last[600] = "";
        for (const char *q = res.output; q && *q;) {
            const char *e = strchr(q, '\n');
            size_t l = e ? (size_t)(e - q) : strlen(q);
            if (l > 0 && strncmp(q, "kbpy.build exited", 17))
                snprintf(last, sizeof last, "%.*s", (int)(l < sizeof last - 1 ? l : sizeof last - 1), q);
            q = e ? e + 1 : NULL;
        }
        /* no record: the next make retries once the cause is fixed */
        kb_errf(err, KB_EXIT_FAIL, "the .py builder failed (%s) on %s%s%s", st, src, last[0] ? ": " : "", last);
        kb_cmd_result_free(&res);
        return -1;
    }
    else if (!strcmp(status, "ok"))
        outcome = KB_OUT_OK, detail[0] = '\0';
    else if (!strcmp(status, "unsupported"))
        outcome = KB_OUT_UNSUPPORTED, snprintf(detail, sizeof detail, "%s", unsupported[0] ? unsupported : reason);
    else
        snprintf(detail, sizeof detail, "%s", reason[0] ? reason : "build failed");
    int built = outcome == KB_OUT_OK;
    /* the symbol scan over every extension that was built */
    kb_elf_syms per[MAX_EXT];
    memset(per, 0, sizeof per);
    size_t n_imp = 0, n_exp = 0, n_need = 0;
    for (size_t i = 0; i < n_ext; i++)
        if (!strcmp(ext[i].status, "ok") && kb_elf_read(ext[i].so, &per[i], err) == 0) {
            n_imp += per[i].n_imports;
            n_exp += per[i].n_exports;
            n_need += per[i].n_needed;
        }
    kb_elf_syms all = {calloc(n_imp + 1, sizeof(char *)), 0, calloc(n_exp + 1, sizeof(char *)), 0,
                       calloc(n_need + 1, sizeof(char *)), 0};
    if (!all.imports || !all.exports || !all.needed) {
        kb_cmd_result_free(&res);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    for (size_t i = 0; i < n_ext; i++) {
        for (size_t j = 0; j < per[i].n_imports; j++)
            all.imports[all.n_imports++] = per[i].imports[j];
        for (size_t j = 0; j < per[i].n_exports; j++)
            all.exports[all.n_exports++] = per[i].exports[j];
        for (size_t j = 0; j < per[i].n_needed; j++)
            all.needed[all.n_needed++] = per[i].needed[j];
    }
    /* what the file is, beyond its symbols: no kernel of its own, or one it may silently replace */
    char extra[256] = "";
    int failed_guarded = 0;
    for (size_t i = 0; i < n_ext; i++)
        if (strcmp(ext[i].status, "ok"))
            failed_guarded = 1;
    if (built && guard && failed_guarded)
        snprintf(extra, sizeof extra, "pytorch_fallback"); /* its extension failed; it runs PyTorch instead */
    else if (built && !custom)
        snprintf(extra, sizeof extra, "%s", n_ext ? "no_custom_kernel" : "pure_pytorch");

    kb_h5w *w = kb_artifact_begin_any_protocol(out, "compile", cell, cfg, err);
    if (!w) {
        kb_cmd_result_free(&res);
        return -1;
    }
    kb_h5w_attr_str(w, KB_ROOT, "source", src);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_SUBMISSION_KIND, "py");
    kb_h5w_attr_i64(w, KB_ROOT, "compiled", built);
    kb_h5w_attr_f64(w, KB_ROOT, "wall_s", wall_s);
    kb_h5w_attr_f64(w, KB_ROOT, "core_s", core_s);
    kb_h5w_attr_str(w, KB_ROOT, "nvcc_status", st);
    kb_h5w_text(w, "/nvcc/log", res.output);
    kb_h5w_attr_i64(w, "/nvcc", "log_truncated", res.output_truncated);
    kb_h5w_strv(w, "/nvcc/command", (const char *const *)argv, sizeof argv / sizeof argv[0] - 1);
    kb_h5w_group(w, "/py");
    kb_h5w_attr_str(w, "/py", "status", status);
    kb_h5w_attr_str(w, "/py", KB_ATTR_REASON, reason);
    kb_h5w_attr_str(w, "/py", "class", cls);
    kb_h5w_attr_i64(w, "/py", "custom_kernel", custom);
    kb_h5w_attr_i64(w, "/py", "fallback_guard", guard);
    kb_h5w_attr_str(w, "/py", "unsupported", unsupported);
    kb_h5w_attr_str(w, "/py", "torch_ops", ops);
    {
        char mpath[4200];
        snprintf(mpath, sizeof mpath, "%s/manifest.json", dir);
        size_t ml = 0;
        char *m = kb_read_file(mpath, &ml, NULL);
        kb_h5w_text(w, "/py/manifest", m ? m : "");
        free(m);
        const char *names[MAX_EXT], *sts[MAX_EXT], *rs[MAX_EXT];
        double cs[MAX_EXT], ws[MAX_EXT];
        int64_t ca[MAX_EXT];
        for (size_t i = 0; i < n_ext; i++) {
            names[i] = ext[i].name;
            sts[i] = ext[i].status;
            rs[i] = ext[i].reason;
            cs[i] = ext[i].core_s;
            ws[i] = ext[i].wall_s;
            ca[i] = ext[i].cached;
        }
        kb_h5w_group(w, "/py/extensions");
        kb_h5w_strv(w, "/py/extensions/name", names, n_ext);
        kb_h5w_strv(w, "/py/extensions/status", sts, n_ext);
        kb_h5w_strv(w, "/py/extensions/reason", rs, n_ext);
        kb_h5w_f64v(w, "/py/extensions/core_s", cs, n_ext, "s (user + system, all compiler processes)");
        kb_h5w_f64v(w, "/py/extensions/wall_s", ws, n_ext, "s");
        kb_h5w_i64v(w, "/py/extensions/cached", ca, n_ext, NULL);
    }
    kb_h5w_group(w, "/kernels");
    char reasons[2048];
    write_symbols(w, built, &all, extra, reasons, sizeof reasons);
    int rc = kb_artifact_finish(w, outcome, detail, err);
    char tag[96];
    kb_progress_tag("compile", cell->model, cell->problem, cell->sample, kb_outcome_name(outcome), tag, sizeof tag);
    printf("%s[compile      ] %-14s %-28s %-3s %s%s%s (%.1f s, %.1f core-s)%s%s\n", tag, cell->model, cell->problem,
           cell->sample, outcome == KB_OUT_OK ? "ok" : kb_outcome_name(outcome), detail[0] ? ": " : "", detail,
           wall_s, core_s, reasons[0] ? " flags: " : "", reasons);
    for (size_t i = 0; i < n_ext; i++)
        kb_elf_free(&per[i]);
    free(all.imports);
    free(all.exports);
    free(all.needed);
    kb_cmd_result_free(&res);
    return rc;
}

/* The .cu path of kb-compile (kb_compile.h). */
int kb_compile_cu(const char *src, const char *out_so, const char *out, const kb_cell *cell, const kb_config *cfg,
                  const char *include, const char *nvcc, const char *gencode, kb_err *err)
{
    const char *model = cell->model, *problem = cell->problem, *sample = cell->sample;
    /* The version script: only kb_forward leaves the object. */
    char map[4200], tmp_so[4200], vs[4300], inc[4200];
    kb_fmt(map, sizeof map, "%s.map", out_so);
    const char *script = "{ global: kb_forward; local: *; };\n";
    if (kb_write_file_atomic(map, script, strlen(script), err) != 0)
        return kb_compile_fail(err);
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
    if (kb_run_cmd(nv, cfg->compile_timeout_s, 1 << 20, &res, err) != 0)
        return kb_compile_fail(err);
    int built = res.exited && res.exit_status == 0 && !res.timed_out;
    if (built && rename(tmp_so, out_so) != 0) {
        kb_errf(err, KB_EXIT_FAIL, "cannot rename %s to %s: %s", tmp_so, out_so, strerror(errno));
        kb_cmd_result_free(&res);
        return kb_compile_fail(err);
    }
    unlink(tmp_so);

    kb_outcome outcome = built ? KB_OUT_OK : KB_OUT_COMPILE_ERROR;
    char detail[512] = "";
    char status[128];
    kb_describe_status(&res, status, sizeof status);
    if (!built)
        snprintf(detail, sizeof detail, "nvcc: %s", status);

    kb_elf_syms syms = {0};
    if (built) {
        if (kb_elf_read(out_so, &syms, err) != 0) {
            kb_cmd_result_free(&res);
            return kb_compile_fail(err);
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
    }
    /* every kernel the object has, however many (counted first) */
    size_t nk = kb_parse_ptxas(res.output, NULL, 0);
    kb_kernel_info *kernels = calloc(nk ? nk : 1, sizeof *kernels);
    const char **knames = calloc(nk ? nk : 1, sizeof *knames);
    int64_t *kcol = calloc(nk ? nk : 1, sizeof *kcol);
    if (!kernels || !knames || !kcol) {
        free(kernels);
        free(knames);
        free(kcol);
        kb_cmd_result_free(&res);
        kb_errf(err, KB_EXIT_FAIL, "out of memory for %zu kernels", nk);
        return kb_compile_fail(err);
    }
    kb_parse_ptxas(res.output, kernels, nk);

    kb_h5w *w = kb_artifact_begin_any_protocol(out, "compile", cell, cfg, err);
    if (!w) {
        free(kernels);
        free(knames);
        free(kcol);
        kb_cmd_result_free(&res);
        return kb_compile_fail(err);
    }
    kb_h5w_attr_str(w, KB_ROOT, "source", src);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_SUBMISSION_KIND, "cu");
    kb_h5w_attr_i64(w, KB_ROOT, "compiled", built);
    kb_h5w_attr_f64(w, KB_ROOT, "wall_s", res.wall_s);
    kb_h5w_attr_str(w, KB_ROOT, "nvcc_status", status);
    kb_h5w_text(w, "/nvcc/log", res.output);
    kb_h5w_attr_i64(w, "/nvcc", "log_truncated", res.output_truncated);
    const char *cmd[64];
    size_t nc = 0;
    for (; nv[nc]; nc++)
        cmd[nc] = nv[nc];
    kb_h5w_strv(w, "/nvcc/command", cmd, nc);
    /* kernels */
    {
        const char **names = knames;
        int64_t *a = kcol;
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
    free(kernels);
    free(knames);
    free(kcol);
    char reasons[2048] = "";
    kb_severity worst = write_symbols(w, built, &syms, NULL, reasons, sizeof reasons);

    int rc = kb_artifact_finish(w, outcome, detail, err);
    char tag[96];
    kb_progress_tag("compile", model, problem, sample, kb_outcome_name(outcome), tag, sizeof tag);
    printf("%s[compile      ] %-14s %-28s %-3s %s %s (%.1f s)%s%s\n", tag, model, problem, sample,
           outcome == KB_OUT_OK ? "ok" : kb_outcome_name(outcome), built ? kb_scan_verdict_name(worst) : "",
           res.wall_s, reasons[0] ? " flags: " : "", reasons);
    if (outcome != KB_OUT_OK && res.output_len) {
        /* the first lines of the compiler's complaint, for the impatient */
        fprintf(stderr, "%.*s\n", (int)(res.output_len < 1500 ? res.output_len : 1500), res.output);
    }
    kb_elf_free(&syms);
    kb_cmd_result_free(&res);
    if (rc != 0)
        return kb_compile_fail(err);
    return 0;
}
