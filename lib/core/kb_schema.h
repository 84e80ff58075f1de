/*
 * kb_schema.h -- the names of the artifact format (docs/artifacts.md), spelled once: the files a
 * stage writes, its root attributes, its groups, datasets and their attributes. Writers
 * (lib/core/artifact.c, lib/compile/compile.c, gpu/gpustage.c, the stages; names not defined here are still literals there) and the reader (lib/report/tables.c) use these
 * instead of literals, so a name cannot drift between the two. String literals, so that they
 * concatenate: KB_GRP_TRIALS "/outcome".
 *
 * Changing a value here changes the format: bump KB_SCHEMA_VERSION and docs/artifacts.md with it.
 */
#ifndef KB_SCHEMA_H
#define KB_SCHEMA_H

/* ---- stages and the file each writes in a sample's (or a baseline's) directory --------------- */
#define KB_STAGE_COMPILE "compile"
#define KB_STAGE_SANITY "sanity-check"
#define KB_STAGE_VERIFY "verify-distributions"
#define KB_STAGE_MEMORY "memory-profile"
#define KB_STAGE_BASELINE "baseline-time"
#define KB_H5(stage) stage ".h5"
#define KB_FILE_COMPILE KB_H5(KB_STAGE_COMPILE)
#define KB_FILE_SANITY KB_H5(KB_STAGE_SANITY)
#define KB_FILE_VERIFY KB_H5(KB_STAGE_VERIFY)
#define KB_FILE_MEMORY KB_H5(KB_STAGE_MEMORY)
#define KB_FILE_BASELINE KB_H5(KB_STAGE_BASELINE)
#define KB_STAGE_FIDELITY "fidelity"
#define KB_FILE_FIDELITY KB_H5(KB_STAGE_FIDELITY)
/* fidelity.h5: per math mode /<mode> @torch_outcome (PyTorch eager's call), and per timer
 * /<mode>/<timer> @torch_ms, @ours_ms (the C baseline's), @ratio (what BASELINE=torch divides by) */
#define KB_ATTR_TORCH_OUTCOME "torch_outcome"
#define KB_ATTR_TORCH_MS "torch_ms"
#define KB_ATTR_OURS_MS "ours_ms"

/* the directories of an artifacts tree that are not models: the baselines, the tables of
 * `make report` (tables/) and of a scoped run (tables-<scope>/, e.g. PROBLEM=level1/019), and the
 * inputs those tables were made from (report-inputs/, report-inputs-<scope>/: mk/pipeline.mk);
 * tools/check-layout.awk refuses a model of these names */
#define KB_DIR_BASELINE "baseline"
#define KB_DIR_TABLES "tables"
#define KB_DIR_REPORT_INPUTS "report-inputs"

/* ---- root attributes of every file ------------------------------------------------------------ */
#define KB_ROOT "/"
#define KB_ATTR_SCHEMA_VERSION "schema_version"
#define KB_ATTR_STAGE "stage"
#define KB_ATTR_MODEL "model"
#define KB_ATTR_PROBLEM "problem"
#define KB_ATTR_SAMPLE "sample"
#define KB_ATTR_PROTOCOL "protocol"
#define KB_ATTR_HARNESS_REV "harness_rev"
#define KB_ATTR_HOST "host"
#define KB_ATTR_TIME_START "time_start"
#define KB_ATTR_TIME_END "time_end"
#define KB_ATTR_OUTCOME "outcome"
#define KB_ATTR_OUTCOME_DETAIL "outcome_detail"
/* the protocol of a record valid in every protocol (the compile record) */
#define KB_PROTOCOL_ANY "any"

/* the machine (GPU stages; kb_artifact_env) */
#define KB_ATTR_GPU_NAME "gpu_name"
#define KB_ATTR_GPU_UUID "gpu_uuid"
#define KB_ATTR_DRIVER_VERSION "driver_version"
#define KB_ATTR_CUDA_RUNTIME_VERSION "cuda_runtime_version"
#define KB_ATTR_CUDA_DRIVER_VERSION "cuda_driver_version"
#define KB_ATTR_CUBLAS_VERSION "cublas_version"
#define KB_ATTR_CUDNN_VERSION "cudnn_version"
#define KB_ATTR_CUDA_RUNTIME_VERSION_STR "cuda_runtime_version_str"
#define KB_ATTR_CUDA_DRIVER_VERSION_STR "cuda_driver_version_str"
#define KB_ATTR_CUBLAS_VERSION_STR "cublas_version_str"
#define KB_ATTR_CUDNN_VERSION_STR "cudnn_version_str"
#define KB_ATTR_DEVICE "device"
#define KB_ATTR_SM_CLOCK_BEFORE "sm_clock_mhz_before"
#define KB_ATTR_SM_CLOCK_AFTER "sm_clock_mhz_after"

/* ---- /config: the knobs (kb_config_write); the ones the reader needs ------------------------- */
#define KB_GRP_CONFIG "/config"
#define KB_CONF_TAU "tau"
#define KB_CONF_TIMER "timer"
#define KB_CONF_STD_TRIALS "std_trials"

/* ---- compile.h5 -------------------------------------------------------------------------------- */
#define KB_ATTR_SUBMISSION_KIND "submission_kind" /* root: "cu" or "py" */
#define KB_KIND_CU "cu"
#define KB_GRP_SYMBOLS "/symbols"
#define KB_ATTR_CALLS_LIBRARY "calls_library"
#define KB_ATTR_REASONS "reasons"
#define KB_ATTR_VERDICT "verdict"
#define KB_ATTR_LIBRARIES "libraries"

/* ---- the GPU stages' root attributes ----------------------------------------------------------- */
#define KB_ATTR_RAN "ran"           /* 0: the stage did not run the sample (compile error, ...) */
#define KB_ATTR_CORRECT "correct"   /* sanity-check */
#define KB_ATTR_TRIALS_RUN "trials_run"
#define KB_ATTR_TRIALS_PASSED "trials_passed"
#define KB_ATTR_TIMED "timed"
#define KB_ATTR_VERIFIED "verified" /* verify-distributions */
/* verify-distributions, the TF32 condition's verdict (strict's TF32 rule; the FP32 one elsewhere) */
#define KB_ATTR_TF32_RULE "tf32_rule"
#define KB_ATTR_VERIFIED_TF32 "verified_tf32"
#define KB_ATTR_OUTCOME_TF32 "outcome_tf32"
#define KB_ATTR_REASON_TF32 "reason_tf32"
#define KB_ATTR_REASON "reason"

/* ---- sanity-check.h5 --------------------------------------------------------------------------- */
#define KB_GRP_TIMING_KERNEL "/timing/kernel"
#define KB_GRP_TIMING "timing" /* under a baseline mode's group: /<mode>/timing */
#define KB_ATTR_REPORTED_MS "reported_ms"
#define KB_ATTR_MEDIAN_MS "median_ms"
#define KB_ATTR_MEDIAN_CI_LO_MS "median_ci_lo_ms"
#define KB_ATTR_MEDIAN_CI_HI_MS "median_ci_hi_ms"
#define KB_GRP_TRIALS "/trials"
#define KB_DSET_TRIALS_OUTCOME KB_GRP_TRIALS "/outcome"
#define KB_DSET_TRIALS_SKIPPED KB_GRP_TRIALS "/skipped"
#define KB_GRP_TRIALS_OUTPUTS KB_GRP_TRIALS "/outputs"
#define KB_DSET_TRIALS_CALL_NOTE KB_GRP_TRIALS "/calls/note"
/* under an outputs group: <outputs>/<output>/tau_req */
#define KB_DSET_TAU_REQ "tau_req"

/* ---- verify-distributions.h5 ------------------------------------------------------------------- */
#define KB_GRP_DISTRIBUTIONS "/distributions"
#define KB_DSET_DIST_NAME KB_GRP_DISTRIBUTIONS "/name"
#define KB_DSET_DIST_OUTCOME KB_GRP_DISTRIBUTIONS "/outcome"
#define KB_DSET_DIST_RAN KB_GRP_DISTRIBUTIONS "/ran"
#define KB_DSET_DIST_SKIPPED KB_GRP_DISTRIBUTIONS "/skipped"
#define KB_DSET_DIST_PASS KB_GRP_DISTRIBUTIONS "/pass"
#define KB_GRP_DIST_OUTPUTS KB_GRP_DISTRIBUTIONS "/outputs"

/* ---- memory-profile.h5 (a sample: /memory; a baseline: one group per mode) -------------------- */
#define KB_GRP_MEMORY "/memory"
#define KB_ATTR_TRACKED "tracked"
#define KB_ATTR_PEAK_BYTES "peak_bytes"

/* ---- baseline-time.h5: root attributes, then one group per mode (/fp32, /tf32) ---------------- */
#define KB_ATTR_TITLE "title"
#define KB_ATTR_FLOPS "flops"
#define KB_ATTR_BYTES "bytes"
#define KB_ATTR_PROBLEM_FLAGS "problem_flags"
/* its bits: include/kb/problem.h (KB_PROB_EXCLUDED: the reference is identically zero) */

#endif /* KB_SCHEMA_H */
