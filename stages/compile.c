/*
 * kb-compile -- build one submission sample into a shared object and record how it went.
 * Needs no GPU (nvcc only).
 *
 * The object exports only kb_forward (hidden visibility plus a linker version script), links
 * the CUDA runtime shared (-cudart shared) and cuBLAS/cuBLASLt/cuDNN as needed (--as-needed),
 * and is scanned for what it imports (lib/compile/scan.c). The artifact records: success, wall time,
 * the full nvcc log, per-kernel registers / shared memory / stack / spills (from ptxas -v), the
 * imported symbols with their categories, the libraries it needs, and the scan verdict.
 * Outcomes: ok; compile_error (nvcc failed or timed out); load_error (compiled, but does not
 * export kb_forward).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compile/kb_compile.h"
#include "core/kb_stage.h"

int main(int argc, char **argv)
{
    const char *src = NULL, *out_so = NULL, *out = NULL, *model = NULL, *problem = NULL, *sample = NULL;
    const char *py_cache = "build/kbpy-cache", *py_dir = "py";
    const char *include = "include", *nvcc = "/usr/local/cuda/bin/nvcc", *gencode = "-gencode=arch=compute_90,code=[sm_90,compute_90]";
    kb_opt opts[] = {
        {"src", &src, NULL, "* the submission: sK.cu (C ABI) or sK.py (KernelBench format)"},
        {"out-so", &out_so, NULL, "* where the shared object goes (.py: DIR/kernel.py, the snapshot the runner "
                                  "loads; its extensions go under DIR/ext/)"},
        {"out", &out, NULL, "* the artifact (compile.h5)"},
        {"model", &model, NULL, "* model name (for the record)"},
        {"problem", &problem, NULL, "* problem id, e.g. level1/019_relu"},
        {"sample", &sample, NULL, "* sample name, e.g. s0"},
        {"include", &include, NULL, "directory holding kb/submission.h (default include)"},
        {"nvcc", &nvcc, NULL, "nvcc to use (default /usr/local/cuda/bin/nvcc)"},
        {"gencode", &gencode, NULL, "target flag (default sm_90 code + compute_90 PTX)"},
        {"py-cache", &py_cache, NULL, ".py: the shared build cache (precompiled header, objects by content; "
                                      "default build/kbpy-cache)"},
        {"py-dir", &py_dir, NULL, ".py: the harness's Python package directory (default py)"},
    };
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv,
                            "kb-compile: build one submission sample and record the result: a .cu with nvcc; a .py\n"
                            "(KernelBench format) by kbpy.build under $KB_PYTHON (its load_inline sources read statically,\n"
                            "never run; docs/py-build.md).\n"
                            "Usage: kb-compile --src S.cu --out-so K.so --out compile.h5 --model M --problem P --sample S\n"
                            "       kb-compile --src S.py --out-so DIR/kernel.py --out compile.h5 --model M --problem P --sample S",
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
    size_t sl = strlen(src);
    if (sl > 3 && !strcmp(src + sl - 3, ".py")) {
        kb_cell cell = {model, problem, sample};
        return kb_compile_py(src, out_so, out, &cell, &cfg, py_cache, py_dir, &err) ? kb_stage_fail("compile", &err) : 0;
    }
    kb_cell cell = {model, problem, sample};
    return kb_compile_cu(src, out_so, out, &cell, &cfg, include, nvcc, gencode, &err) ? kb_stage_fail("compile", &err) : 0;
}

