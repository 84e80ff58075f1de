/*
 * kb_compile.h -- kb-compile's work as functions (stages/compile.c is its options and dispatch):
 * build one submission sample and record the result in compile.h5 (docs/artifacts.md).
 */
#ifndef KB_COMPILE_H
#define KB_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/kb_artifact.h"
#include "core/kb_config.h"
#include "core/kb_util.h"

/* One kernel's resources, from nvcc's ptxas -v output. */
typedef struct kb_kernel_info {
    char name[512];
    int64_t registers, smem, stack, spill_stores, spill_loads, barriers;
} kb_kernel_info;

/* ptxas -v's lines for sm_90 into k[0..cap): returns how many kernels the log has, however many
 * that is (k may be NULL with cap 0 to count them first); only the first cap are written. */
size_t kb_parse_ptxas(const char *log, kb_kernel_info *k, size_t cap);

/* A C ABI .cu: nvcc with the version script (only kb_forward exported), the record, one progress
 * line. A harness failure returns its exit code with err set; the submission's own failure is an
 * outcome in the record and returns 0. */
int kb_compile_cu(const char *src, const char *out_so, const char *out, const kb_cell *cell, const kb_config *cfg,
                  const char *include, const char *nvcc, const char *gencode, kb_err *err);
/* A KernelBench-format .py through kbpy.build (docs/py-build.md); out_py = DIR/kernel.py. Returns
 * as kb_compile_cu does (non-zero: a harness failure, err set). */
int kb_compile_py(const char *src, const char *out_py, const char *out, const kb_cell *cell, const kb_config *cfg,
                  const char *cache, const char *py_dir, kb_err *err);

#endif /* KB_COMPILE_H */
