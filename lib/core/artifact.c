/* artifact.c -- see kb_artifact.h. */
#include "core/kb_artifact.h"
#include "core/kb_schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *outcome_names[KB_OUT__COUNT] = {
    [KB_OUT_OK] = "ok",
    [KB_OUT_WRONG] = "wrong_answer",
    [KB_OUT_CUDA_ERROR] = "cuda_error",
    [KB_OUT_CRASH] = "crash",
    [KB_OUT_TIMEOUT] = "timeout",
    [KB_OUT_OOM] = "out_of_memory",
    [KB_OUT_EXITED] = "exited",
    [KB_OUT_SANDBOX] = "sandbox_violation",
    [KB_OUT_BAD_RETURN] = "bad_return",
    [KB_OUT_COMPILE_ERROR] = "compile_error",
    [KB_OUT_LOAD_ERROR] = "load_error",
    [KB_OUT_REJECTED] = "rejected",
    [KB_OUT_NO_SUBMISSION] = "no_submission",
    [KB_OUT_HARNESS_ERROR] = "harness_error",
    [KB_OUT_UNSUPPORTED] = "unsupported",
};

const char *kb_outcome_name(kb_outcome o) { return (o >= 0 && o < KB_OUT__COUNT) ? outcome_names[o] : "?"; }

kb_outcome kb_outcome_parse(const char *name)
{
    for (int i = 0; i < KB_OUT__COUNT; i++)
        if (!strcmp(name, outcome_names[i]))
            return (kb_outcome)i;
    return KB_OUT__COUNT;
}

/* when the stage started (kb_stage_parse marks it): an artifact is begun after the work */
static char stage_start[64];

void kb_artifact_mark_start(void) { kb_utc_iso(stage_start, sizeof stage_start); }

static kb_h5w *begin(const char *path, const char *stage, const kb_cell *cell, const kb_config *cfg,
                     const char *protocol, kb_err *err)
{
    kb_h5w *w = kb_h5w_create(path, err);
    if (!w)
        return NULL;
    char now[64], host[256] = "";
    if (stage_start[0])
        snprintf(now, sizeof now, "%s", stage_start);
    else
        kb_utc_iso(now, sizeof now);
    gethostname(host, sizeof host - 1);
    const char *rev = getenv("KB_GIT_REV");
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_SCHEMA_VERSION, KB_SCHEMA_VERSION);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_STAGE, stage);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_MODEL, cell->model);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_PROBLEM, cell->problem);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_SAMPLE, cell->sample ? cell->sample : "");
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_PROTOCOL, protocol);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_HARNESS_REV, rev && rev[0] ? rev : "unknown");
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_HOST, host);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_TIME_START, now);
    kb_config_write(cfg, w, KB_GRP_CONFIG);
    return w;
}

kb_h5w *kb_artifact_begin(const char *path, const char *stage, const kb_cell *cell, const kb_config *cfg, kb_err *err)
{
    return begin(path, stage, cell, cfg, kb_protocol_name(cfg->protocol), err);
}

kb_h5w *kb_artifact_begin_any_protocol(const char *path, const char *stage, const kb_cell *cell, const kb_config *cfg,
                                       kb_err *err)
{
    return begin(path, stage, cell, cfg, KB_PROTOCOL_ANY, err);
}

void kb_artifact_env(kb_h5w *w, const kb_env *e)
{
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_GPU_NAME, e->gpu_name);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_GPU_UUID, e->gpu_uuid);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_DRIVER_VERSION, e->driver_version);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_CUDA_RUNTIME_VERSION, e->cuda_runtime_version);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_CUDA_DRIVER_VERSION, e->cuda_driver_version);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_CUBLAS_VERSION, e->cublas_version);
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_CUDNN_VERSION, e->cudnn_version);
    /* the same versions as people write them */
    char v[64];
    snprintf(v, sizeof v, "%d.%d", e->cuda_runtime_version / 1000, (e->cuda_runtime_version % 1000) / 10);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_CUDA_RUNTIME_VERSION_STR, v);
    snprintf(v, sizeof v, "%d.%d", e->cuda_driver_version / 1000, (e->cuda_driver_version % 1000) / 10);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_CUDA_DRIVER_VERSION_STR, v);
    snprintf(v, sizeof v, "%d.%d.%d", e->cublas_version / 10000, (e->cublas_version % 10000) / 100,
             e->cublas_version % 100);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_CUBLAS_VERSION_STR, v);
    /* cuDNN 9: major*10000 + minor*100 + patch (91400 = 9.14.0); cuDNN 8: major*1000 + minor*100 + patch */
    if (e->cudnn_version >= 90000)
        snprintf(v, sizeof v, "%d.%d.%d", e->cudnn_version / 10000, (e->cudnn_version % 10000) / 100,
                 e->cudnn_version % 100);
    else
        snprintf(v, sizeof v, "%d.%d.%d", e->cudnn_version / 1000, (e->cudnn_version % 1000) / 100,
                 e->cudnn_version % 100);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_CUDNN_VERSION_STR, e->cudnn_version > 0 ? v : "none");
    kb_h5w_attr_i64(w, KB_ROOT, KB_ATTR_DEVICE, e->device);
    kb_h5w_attr_f64(w, KB_ROOT, KB_ATTR_SM_CLOCK_BEFORE, e->sm_clock_mhz_before);
    kb_h5w_attr_f64(w, KB_ROOT, KB_ATTR_SM_CLOCK_AFTER, e->sm_clock_mhz_after);
}

int kb_artifact_finish(kb_h5w *w, kb_outcome outcome, const char *detail, kb_err *err)
{
    char now[64];
    kb_utc_iso(now, sizeof now);
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_OUTCOME, kb_outcome_name(outcome));
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_OUTCOME_DETAIL, detail ? detail : "");
    kb_h5w_attr_str(w, KB_ROOT, KB_ATTR_TIME_END, now);
    return kb_h5w_commit(w, err);
}

int kb_artifact_outcome(const char *path, kb_outcome *outcome, char *detail, size_t len, kb_err *err)
{
    kb_h5r *r = kb_h5r_open(path, err);
    if (!r)
        return -1;
    char name[64];
    int rc = kb_h5r_attr_str(r, KB_ROOT, KB_ATTR_OUTCOME, name, sizeof name, err);
    if (rc == 0) {
        *outcome = kb_outcome_parse(name);
        if (*outcome == KB_OUT__COUNT)
            rc = kb_errf(err, KB_EXIT_FAIL, "%s: unknown outcome '%s'", path, name);
    }
    if (rc == 0 && detail && kb_h5r_attr_str(r, KB_ROOT, KB_ATTR_OUTCOME_DETAIL, detail, len, NULL) != 0)
        detail[0] = '\0';
    kb_h5r_close(r);
    return rc;
}
