/*
 * kb_gpustage.h -- what the GPU stage mains share: taking a GPU (locked), the machine record,
 * reading the compile stage's verdict, and the session options of each protocol.
 */
#ifndef KB_GPUSTAGE_H
#define KB_GPUSTAGE_H

#include "kb/ops.h"
#include "core/kb_artifact.h"
#include "core/kb_config.h"
#include "core/kb_h5.h"
#include "kb_session.h"
#include "core/kb_util.h"

typedef struct kb_gpu_stage {
    const char *name; /* "sanity-check" */
    kb_config cfg;
    kb_cell cell;
    int device, lock_fd;
    kb_env env;
    double t0;
} kb_gpu_stage;

/* Takes a GPU from `gpus` (waiting for its lock: KB_LOCK_TIMING or KB_LOCK_SHARED) and records
 * the machine. */
int kb_gpu_stage_begin(kb_gpu_stage *st, const char *gpus, int lock_mode, kb_err *err);
/* The artifact with the common attributes and the machine record. */
kb_h5w *kb_gpu_stage_artifact(kb_gpu_stage *st, const char *path, kb_err *err);
/* SM clock after, outcome, commit. */
int kb_gpu_stage_finish(kb_gpu_stage *st, kb_h5w *w, kb_outcome outcome, const char *detail, kb_err *err);

/* The compile stage's outcome for the cell (KB_EXIT_MISSING if compile.h5 is absent), and
 * its symbol-scan verdict ("clean", "flagged", "rejected") and reasons. */
int kb_read_compile(const char *compile_h5, kb_outcome *outcome, char *detail, size_t dlen, char *verdict, size_t vlen,
                    char *reasons, size_t rlen, kb_err *err);

/* If the cell's standard check (sanity-check.h5, may be NULL) ended fatally -- timeout, crash,
 * CUDA error, exit, sandbox violation, out of memory, bad return, compile or load error --
 * returns 1 with that outcome and a detail: running more draws of a sample that cannot complete
 * a call is wasted time (a hang would cost CALL_TIMEOUT again), and the verified check needs
 * the standard one anyway. Returns 0 otherwise (also when the file is absent). */
int kb_sanity_fatal(const char *sanity_h5, kb_outcome *outcome, char *detail, size_t len);

/* Writes an artifact for a cell that could not run (compile or load error): no GPU needed. */
int kb_write_skipped(const char *stage, const char *path, const kb_cell *cell, const kb_config *cfg, kb_outcome outcome,
                     const char *detail, kb_err *err);

/* ---- the cell stages' prologue ------------------------------------------------------------ */

#include "kb/problem.h"
#include "core/kb_stage.h"

/* What a cell stage's command line names, and what the prologue loaded. */
typedef struct kb_cell_stage {
    kb_gpu_stage st;
    const char *bin; /* for failure messages: "verify-distributions" */
    const char *problem_so, *submission, *compile_h5, *out, *model, *sample, *sanity_h5, *runner, *gpus, *log;
    const kb_problem *p;
    void *ph;
    char verdict[32], reasons[512]; /* the compile record's symbol scan */
    char logbuf[4200];
} kb_cell_stage;

/* A cell stage's prologue: sets the protocol defaults; parses the common options (--problem,
 * --submission, --compile, --out, --model, --sample, --runner, --gpus, --log; --sanity when
 * `sanity` is set) and `extra`; the log defaults to <out>.log; loads the problem and names the
 * cell; reads the compile record. A sample that cannot run -- its compile failed, or (with
 * `sanity`) its standard check ended fatally, kb_sanity_fatal -- gets its skipped artifact here.
 * c->st.name (progress, artifacts) and c->bin (messages) are set by the caller. Returns 0: run
 * the stage; 1: nothing left to do (--help printed, or the skipped artifact written), exit 0;
 * -1: failed, err set (exit with kb_stage_fail(c->bin, err)). */
int kb_cell_stage_open(kb_cell_stage *c, int argc, char **argv, const char *usage, const kb_opt *extra,
                       size_t n_extra, int sanity, kb_err *err);

/* Takes a GPU (lock_mode: KB_LOCK_TIMING or KB_LOCK_SHARED) and opens the sample's session:
 * sandboxed, memory tracked, the target in fp32; check_math is the reference's math mode,
 * reject_no_kernel the protocol's rule for a .py that launches no kernel of its own. NULL with
 * err on failure; `ready` is the child's READY (its outcome may be a load error). */
kb_session *kb_cell_stage_session(kb_cell_stage *c, int lock_mode, kb_math_mode check_math, int reject_no_kernel,
                                  kb_call_outcome *ready, kb_err *err);

/* The math mode of the reference that outputs are checked against: the paper checks against
 * PyTorch at default flags (cuDNN TF32 on); the strict protocol against exact FP32. */
kb_math_mode kb_check_math(const kb_config *cfg);

/* One correctness check on one draw: draw the inputs and parameters, compute the reference,
 * optionally poison the outputs, run the target once, compare every output. */
typedef struct kb_check {
    int skipped;                  /* the reference produced NaN/inf on this draw: not counted */
    kb_call_outcome call;         /* what the child did */
    kb_cmp_stats cmp[KB_MAX_OUTPUTS];
    int n_outputs;
    int pass;                     /* call ok and every output within tau */
    int inputs_changed;           /* the call modified an input or parameter */
    double tf32_excess[KB_MAX_OUTPUTS]; /* KB_CHECK_TF32: scaled excess under the TF32 bound */
    kb_replay_stats replay;       /* KB_CHECK_MAGNITUDE, live dropout: the mask read from the call */
} kb_check;

enum {
    KB_CHECK_POISON = 1u << 0,     /* NaN-fill the outputs before the call */
    KB_CHECK_INPUT_HASH = 1u << 1, /* inputs must be unchanged by the call */
    KB_CHECK_MAGNITUDE = 1u << 2,  /* strict: magnitude reference and scaled bound */
    KB_CHECK_NO_DRAW = 1u << 3,    /* use the inputs as they are (already drawn or perturbed) */
    KB_CHECK_TF32 = 1u << 4        /* with MAGNITUDE: also the TF32 bound (kb_check.tf32_excess) */
};
/* The strict pass rule for a check: inputs unchanged, every output within the scaled bound and
 * free of NaN; for live dropout also the mask read from the output (kb_check_replay_ok). */
int kb_check_strict_pass(const kb_check *c);
/* The same under the TF32 rule's bound (KB_TF32_OPERAND_RTOL added to the scaled bound's rtol;
 * the check ran with KB_CHECK_TF32). */
int kb_check_strict_pass_tf32(const kb_check *c);
/* The largest excess over the TF32 rule's bound among the check's outputs (KB_CHECK_TF32). */
double kb_check_tf32_excess(const kb_check *c);
/* Live dropout: the mask read from the call's output keeps within KB_REPLAY_MAX_Z sigmas of
 * n (1 - p) elements and is not the previous call's (1 when the problem has no live dropout). */
int kb_check_replay_ok(const kb_check *c);

/* tau for an output dtype under the config. */
double kb_tau_for(const kb_config *cfg, kb_dtype t);
int kb_check_draw(kb_session *s, const kb_config *cfg, const kb_draw *inputs, const kb_draw *params, unsigned flags,
                  kb_check *c, kb_err *err);

/* A one-line progress report: "[stage] model problem sample: text". */
void kb_progress(const kb_gpu_stage *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif /* KB_GPUSTAGE_H */
