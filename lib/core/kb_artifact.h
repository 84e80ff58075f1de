/*
 * kb_artifact.h -- what every artifact has in common (docs/artifacts.md): the root attributes
 * that identify the stage, the cell, the protocol and the machine, and the cell's outcome.
 */
#ifndef KB_ARTIFACT_H
#define KB_ARTIFACT_H

#include "core/kb_config.h"
#include "core/kb_h5.h"
#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif


/* The outcome of a cell in one stage. Stable strings: they are the artifact format. */
typedef enum kb_outcome {
    KB_OUT_OK = 0,            /* ran, and (where checked) correct */
    KB_OUT_WRONG,             /* ran, output not close to the reference */
    KB_OUT_CUDA_ERROR,        /* a CUDA error inside kb_forward (illegal address, launch failure, ...) */
    KB_OUT_CRASH,             /* the process died of a signal */
    KB_OUT_TIMEOUT,           /* exceeded the call time limit; killed */
    KB_OUT_OOM,               /* a device allocation failed */
    KB_OUT_EXITED,            /* the process exited inside kb_forward */
    KB_OUT_SANDBOX,           /* a forbidden system call */
    KB_OUT_BAD_RETURN,        /* kb_forward returned non-zero */
    KB_OUT_COMPILE_ERROR,     /* did not compile (recorded again by downstream stages) */
    KB_OUT_LOAD_ERROR,        /* compiled but could not be loaded (missing kb_forward, ...) */
    KB_OUT_REJECTED,          /* rejected by a protocol rule (symbol scan, probe) */
    KB_OUT_NO_SUBMISSION,     /* no sample for this problem */
    KB_OUT_HARNESS_ERROR,     /* the harness failed; nothing is known about the submission */
    KB_OUT_UNSUPPORTED,       /* a kind of file the harness does not run (a Triton, CuTe, TileLang .py) */
    KB_OUT__COUNT
} kb_outcome;

const char *kb_outcome_name(kb_outcome o);
/* Inverse of kb_outcome_name; KB_OUT__COUNT if unknown. */
kb_outcome kb_outcome_parse(const char *name);

typedef struct kb_cell {
    const char *model;   /* "demo-naive", or "baseline" */
    const char *problem; /* "level1/019_relu" */
    const char *sample;  /* "s0", or "" for per-problem artifacts */
} kb_cell;

/* The machine, filled by GPU stages (gpu/kb_gpu.h); CPU stages leave it zeroed. */
typedef struct kb_env {
    char gpu_name[256];
    char gpu_uuid[64];
    char driver_version[32];
    int cuda_runtime_version; /* cudaRuntimeGetVersion */
    int cuda_driver_version;  /* cudaDriverGetVersion */
    int cublas_version;
    int cudnn_version;
    int device;               /* CUDA ordinal */
    double sm_clock_mhz_before, sm_clock_mhz_after; /* NaN if not readable */
} kb_env;

/* Marks the stage's start: time_start of what it writes (kb_stage_parse calls it). */
void kb_artifact_mark_start(void);
/* Creates the artifact (atomic, see kb_h5.h) and writes the common root attributes and the
 * /config group. The harness revision comes from $KB_GIT_REV (set by the Makefile). */
kb_h5w *kb_artifact_begin(const char *path, const char *stage, const kb_cell *cell, const kb_config *cfg,
                          kb_err *err);
/* The same for a record valid in every protocol (the compile record, made once per sample and
 * copied into each tree): root attribute protocol = "any". */
kb_h5w *kb_artifact_begin_any_protocol(const char *path, const char *stage, const kb_cell *cell, const kb_config *cfg,
                                       kb_err *err);
void kb_artifact_env(kb_h5w *w, const kb_env *env);
/* Records the outcome (root attributes "outcome", "outcome_detail"), the end time, and commits. */
int kb_artifact_finish(kb_h5w *w, kb_outcome outcome, const char *detail, kb_err *err);

/* Reads the outcome of an existing artifact. */
int kb_artifact_outcome(const char *path, kb_outcome *outcome, char *detail, size_t len, kb_err *err);

#ifdef __cplusplus
}
#endif

#endif /* KB_ARTIFACT_H */
