/*
 * kb-witness -- the oracle of the mutation report (docs/mutation.md): for one problem, a list of
 * samples (the mutants and the correct samples they were made from) runs on a large input pool,
 * and every output is compared with an fp64 reference under the problem's rounding bound.
 *
 * The reference is the problem's own PyTorch Model (problems/levelN/NNN_name.py, the spec the
 * fidelity report proves equal to the C baseline) run by PyTorch in float64 -- parameters and
 * floating-point inputs cast for every call, each output rounded once to fp32 -- in a child of
 * this process; it is independent of the C reference the protocols' checks use. The bound is the
 * strict protocol's scaled one (gpu/gpustage.c: r x (|ref| + |ref(|x|)|) + r x rms(ref), r = 16 x
 * 2^-24 x sqrt(terms)), and beside it the TF32 rule's (r + 2^-9): each sample's error on each
 * pool entry is recorded as the excess over both, so the report judges a mutant of a TF32 origin
 * by the TF32 bound and every other one by the fp32 bound.
 *
 * No verdict is made here: the artifact holds, per sample and pool entry, the call's outcome and
 * the two excesses; kb-mutation-report calls a mutant witnessed when some entry on which its
 * origin stays within the bound takes it beyond it (or makes its call fail).
 * Every sample runs in its own sandboxed child, as in the protocols' stages; a crash, hang or
 * CUDA error is recorded as that sample's outcome on that entry and ends its run there.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "kb_gpu.h"
#include "kb_gpustage.h"
#include "mutation/kb_mutreport.h"
#include "core/kb_problem_load.h"
#include "core/kb_schema.h"
#include "core/kb_stage.h"

/* ---- the pool --------------------------------------------------------------------------------- */

#define W_KEEP {0, 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0}
#define W_SCALE(s) {0, (s), 0, {KB_GEN_RAND, 0, 0}, 0.0}
#define W_GEN(kind, a, b) {0, 1.0, 1, {(kind), (a), (b)}, 0.0}
#define W_SPARSE(kind, a, b, z) {0, 1.0, 1, {(kind), (a), (b)}, (z)}
#define W_PARAMS W_GEN(KB_GEN_UNIFORM, -1.0, 1.0)

/* Every distribution of both protocols (fresh seeds), then what neither has. */
static const kb_dist pool[] = {
    {"G1", "as generated", "the standard check's inputs", W_KEEP, 0, W_KEEP, 0},
    {"G2", "as generated (second draw)", "the standard check's inputs", W_KEEP, 0, W_KEEP, 0},
    {"D2", "x 3.0", "paper D2", W_SCALE(3.0), 0, W_KEEP, 0},
    {"D3", "x 0.01", "paper D3", W_SCALE(0.01), 0, W_KEEP, 0},
    {"D4", "x -1.0", "paper D4", W_SCALE(-1.0), 0, W_KEEP, 0},
    {"P1", "as generated, parameters U(-1,1)", "strict P1", W_KEEP, 1, W_PARAMS, 0},
    {"S1", "U(-1,1), parameters U(-1,1)", "strict S1", W_GEN(KB_GEN_UNIFORM, -1.0, 1.0), 1, W_PARAMS, 0},
    {"S2", "+-10^U(-3,3), parameters U(-1,1)", "strict S2", W_GEN(KB_GEN_LOGUNIFORM_SIGNED, -3.0, 3.0), 1, W_PARAMS, 0},
    {"S3", "U(-1,1) x 1e-6", "strict S3", W_GEN(KB_GEN_UNIFORM, -1e-6, 1e-6), 0, W_KEEP, 0},
    {"S4", "U(-1,1), 50% zeros, parameters U(-1,1)", "strict S4", W_SPARSE(KB_GEN_UNIFORM, -1.0, 1.0, 0.5), 1, W_PARAMS, 0},
    {"S5", "U(-100,100)", "strict S5", W_GEN(KB_GEN_UNIFORM, -100.0, 100.0), 0, W_KEEP, 0},
    {"S6", "U(-1,0), parameters U(-1,1)", "strict S6", W_GEN(KB_GEN_UNIFORM, -1.0, 0.0), 1, W_PARAMS, 0},
    {"A1", "1000 + U(0,1)", "large offset: cancellation in means, variances, softmax", W_GEN(KB_GEN_UNIFORM, 1000.0, 1001.0), 0,
     W_KEEP, 0},
    {"A2", "+-10^U(-6,6), parameters U(-1,1)", "wide range: lost small terms, overflow of squares",
     W_GEN(KB_GEN_LOGUNIFORM_SIGNED, -6.0, 6.0), 1, W_PARAMS, 0},
    {"A3", "N(0,1), parameters U(-1,1)", "zero-mean signed data: cancellation in sums and GEMMs",
     W_GEN(KB_GEN_RANDN, 0.0, 1.0), 1, W_PARAMS, 0},
    {"A4", "U(-1,1), 90% zeros", "sparse data: zero-skipping shortcuts", W_SPARSE(KB_GEN_UNIFORM, -1.0, 1.0, 0.9), 0, W_KEEP, 0},
    {"A5", "U(-1,1) x 1e-38", "subnormal inputs: flush-to-zero", W_GEN(KB_GEN_UNIFORM, -1e-38, 1e-38), 0, W_KEEP, 0},
    {"A6", "U(80,88)", "near exp's overflow: unstable exp, softmax, log-sum-exp", W_GEN(KB_GEN_UNIFORM, 80.0, 88.0), 0,
     W_KEEP, 0},
};
#define NPOOL (sizeof pool / sizeof pool[0])

static void pool_draws(const kb_config *cfg, const char *id, size_t k, kb_draw *in, kb_draw *par)
{
    *in = pool[k].inputs;
    in->seed = kb_seed(cfg, id, KB_SEED_WITNESS, (uint32_t)k);
    *par = (kb_draw){kb_seed(cfg, id, KB_SEED_PARAMS, 0), 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    if (pool[k].perturb_params) {
        *par = pool[k].params;
        par->seed = kb_seed(cfg, id, KB_SEED_WITNESS, 1000u + (uint32_t)k);
    }
}

/* ---- one run ----------------------------------------------------------------------------------- */

typedef struct w_sample {
    char cell[512], target[1024], compile_h5[1024];
    kb_outcome outcome;      /* OK if no call failed (every entry ran, or the run stopped witnessed) */
    char detail[1024];
    int64_t call[NPOOL];     /* kb_outcome of the entry's call; -1 not run */
    long origin;             /* the sample it was made from (the list's 4th column), -1 none */
    int done;                /* its run is over: every entry ran, a call failed, or it is witnessed */
    int witnessed_at;        /* the entry its run stopped at as witnessed (kb_mut_witness), -1 */
    double excess[NPOOL], excess_tf32[NPOOL];
    double seconds;
} w_sample;

typedef struct w_run {
    const char *problem_so, *spec, *list, *out, *runner, *gpus, *log;
    char logbuf[4200];
    kb_gpu_stage st;
    const char *ref_memory;   /* --ref-memory GiB: the budget of the pool's reference buffers */
    const kb_problem *p;
    uint32_t n_out;
    size_t chunk;             /* pool entries whose references are held at once (kb_witness_plan) */
    size_t window;            /* samples alive at once */
    void *ref[NPOOL][KB_MAX_OUTPUTS], *mag[NPOOL][KB_MAX_OUTPUTS]; /* [k - k0] for the chunk [k0, k0 + chunk) */
    double rms[NPOOL][KB_MAX_OUTPUTS]; /* [k - k0]: the reference's rms (the bound's absolute floor) */
    size_t n_ref_passes;      /* times the references of the pool were computed */
    int64_t skipped[NPOOL];   /* the fp64 reference is NaN/inf there, or its call failed */
    int refs_held;            /* chunk == NPOOL: the whole pool's references are computed */
    char ref_detail[1024];
    kb_outcome ref_outcome;
    w_sample *S;
    size_t n;
    double ref_s, run_s;
} w_run;

static int read_list(w_run *w, kb_err *err)
{
    FILE *f = fopen(w->list, "r");
    if (!f)
        return kb_errf(err, KB_EXIT_USAGE, "cannot read the sample list %s", w->list);
    char line[4096];
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL, *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
        if (!t2) {
            fclose(f);
            return kb_errf(err, KB_EXIT_USAGE, "%s: a line is 'cell<TAB>target<TAB>compile.h5[<TAB>origin cell]', not '%s'",
                           w->list, line);
        }
        *t1 = *t2 = 0;
        if (t3)
            *t3++ = 0;
        if (w->n == cap) {
            cap = cap ? 2 * cap : 64;
            w_sample *ns = realloc(w->S, cap * sizeof *ns);
            if (!ns) {
                fclose(f);
                return kb_errf(err, KB_EXIT_FAIL, "out of memory");
            }
            w->S = ns;
        }
        w_sample *s = &w->S[w->n++];
        memset(s, 0, sizeof *s);
        kb_fmt(s->cell, sizeof s->cell, "%s", line);
        snprintf(s->target, sizeof s->target, "%s", t1 + 1);
        snprintf(s->compile_h5, sizeof s->compile_h5, "%s", t2 + 1);
        s->origin = -1;
        s->witnessed_at = -1;
        if (t3 && t3[0]) {
            for (size_t j = 0; j + 1 < w->n; j++)
                if (!strcmp(w->S[j].cell, t3))
                    s->origin = (long)j;
            if (s->origin < 0) {
                fclose(f);
                return kb_errf(err, KB_EXIT_USAGE, "%s: %s names the origin %s, which is not listed before it", w->list, s->cell,
                               t3);
            }
        }
        for (size_t k = 0; k < NPOOL; k++) {
            s->call[k] = -1;
            s->excess[k] = s->excess_tf32[k] = NAN;
        }
    }
    fclose(f);
    if (!w->n)
        return kb_errf(err, KB_EXIT_USAGE, "%s lists no sample", w->list);
    return 0;
}

/* cudaMalloc, waiting (up to 10 minutes) while other stages on the GPU hold the memory. */
static cudaError_t alloc_wait(void **p, size_t b)
{
    double t0 = kb_now_s();
    int said = 0;
    for (;;) {
        cudaError_t e = cudaMalloc(p, b);
        if (e != cudaErrorMemoryAllocation || kb_now_s() - t0 > 600.0)
            return e;
        cudaGetLastError();
        if (!said++)
            fprintf(stderr, "kb-witness: waiting for %.1f GiB of device memory (other stages hold it) ...\n",
                    (double)b / (1u << 30));
        usleep(500000);
    }
}

/* The fp64 reference's session (the problem's PyTorch Model in float64), kept for every chunk. */
static kb_session *reference_open(w_run *w, kb_err *err)
{
    kb_session_opts so = {w->runner, w->problem_so, w->spec, KB_TARGET_SUBMISSION, KB_MATH_EXACT, KB_INIT_MEMTRACK, 0,
                          w->st.cfg.call_timeout_s, w->log, 1, KB_MATH_EXACT, 1, "Model", 1};
    kb_session *s = kb_session_spawn(&so, err);
    if (!s)
        return NULL;
    kb_session_started(s, 120.0 + w->st.cfg.call_timeout_s);
    kb_call_outcome co;
    if (kb_session_init(s, w->st.device, &co, err) != 0 || kb_session_ready(s, &co, err) != 0) {
        kb_session_close(s);
        return NULL;
    }
    w->ref_outcome = co.outcome;
    if (co.outcome != KB_OUT_OK)
        kb_fmt(w->ref_detail, sizeof w->ref_detail, "the fp64 reference (PyTorch Model in float64): %s", co.detail);
    return s;
}

/* The fp64 references (and magnitude references) of entries [k0, k1) into the chunk's buffers. */
static int reference_chunk(w_run *w, kb_session *s, size_t k0, size_t k1, kb_err *err)
{
    double t0 = kb_now_s();
    kb_call_outcome co = {.outcome = KB_OUT_OK};
    for (size_t k = k0; k < k1; k++) {
        void **ref = w->ref[k - k0], **mag = w->mag[k - k0];
        kb_draw in, par;
        pool_draws(&w->st.cfg, w->p->id, k, &in, &par);
        int nf = 0;
        /* the magnitude reference (C op library, exact FP32, on |x|), then the fp64 call on the draw */
        if (kb_session_draw(s, &in, &par, err) != 0 || kb_session_reference(s, 1, NULL, err) != 0 ||
            kb_session_save_magnitude(s, mag, err) != 0 || kb_session_draw(s, &in, &par, err) != 0 ||
            kb_session_poison(s, err) != 0 || kb_session_call(s, KB_CALL_DEVICE_SYNC, &co, err) != 0)
            return -1;
        if (co.outcome != KB_OUT_OK) {
            w->ref_outcome = co.outcome;
            kb_fmt(w->ref_detail, sizeof w->ref_detail, "the fp64 reference (PyTorch Model in float64) on %s: %s",
                   pool[k].name, co.detail);
            break;
        }
        if (kb_session_save_outputs(s, ref, err) != 0 ||
            kb_session_load_reference(s, (const void *const *)ref, NULL, err) != 0)
            return -1;
        for (uint32_t i = 0; i < w->n_out; i++) {
            kb_cmp_stats st;
            if (kb_session_compare_refs_self(s, i, &st, err) != 0)
                return -1;
            if (st.n_nan_ref || st.n_inf_ref)
                nf = 1;
            w->rms[k - k0][i] = st.n > 0 ? sqrt(st.sum_sq_ref / (double)st.n) : 0.0;
        }
        w->skipped[k] = nf;
    }
    w->n_ref_passes += k0 == 0;
    w->ref_s += kb_now_s() - t0;
    return 0;
}

static kb_session *spawn_sample(w_run *w, w_sample *s, kb_err *err)
{
    char detail[512] = "", verdict[32] = "", reasons[512] = "";
    kb_outcome co = KB_OUT_OK;
    if (kb_read_compile(s->compile_h5, &co, detail, sizeof detail, verdict, sizeof verdict, reasons, sizeof reasons, err) != 0)
        return NULL;
    if (co != KB_OUT_OK) {
        s->outcome = co;
        snprintf(s->detail, sizeof s->detail, "%s", detail);
        return NULL;
    }
    kb_session_opts so = {w->runner, w->problem_so, s->target, KB_TARGET_SUBMISSION, KB_MATH_FP32,
                          KB_INIT_SANDBOX | KB_INIT_MEMTRACK, -1, w->st.cfg.call_timeout_s, w->log, 0, KB_MATH_EXACT, 0,
                          NULL, 0};
    return kb_session_spawn(&so, err); /* compared with the chunk's buffers: no reference buffers of its own */
}

/* A live sample's start (context, library loading, the submission's initialisers) is sent to
 * every sample of a window first (kb_session_init), then awaited here, so that the children
 * start side by side. */
static int sample_ready(w_sample *s, kb_session *ss, kb_err *err)
{
    kb_call_outcome co;
    if (kb_session_ready(ss, &co, err) != 0)
        return -1;
    if (co.outcome != KB_OUT_OK) {
        s->outcome = co.outcome;
        snprintf(s->detail, sizeof s->detail, "%s", co.detail);
    }
    return 0;
}

/* A mutant whose origin's run is over stops at the entry that witnesses it: the report's verdict
 * (kb_mut_witness, the first witnessing entry in pool order) cannot change on later entries. */
static int stop_witnessed(w_run *w, w_sample *s, size_t k)
{
    if (s->origin < 0 || !w->S[s->origin].done)
        return 0;
    const w_sample *o = &w->S[s->origin];
    kb_mut_row orow = {o->call, o->excess, o->excess_tf32}, mrow = {s->call, s->excess, s->excess_tf32};
    int tf32 = kb_mut_origin_tf32(&orow, w->skipped, NPOOL), entry;
    double x;
    if (kb_mut_witness(&orow, &mrow, w->skipped, k + 1, tf32, &entry, &x) != KB_MUT_WITNESSED)
        return 0;
    s->witnessed_at = entry;
    return 1;
}

/* One live sample over entries [k0, k1): stops at the first call that fails (the child is gone,
 * and the sample runs no later entry). */
static int run_sample(w_run *w, w_sample *s, kb_session *ss, size_t k0, size_t k1, kb_err *err)
{
    double t0 = kb_now_s();
    kb_call_outcome co;
    for (size_t k = k0; k < k1 && s->outcome == KB_OUT_OK && !s->done; k++) {
        if (w->skipped[k])
            continue;
        kb_draw in, par;
        pool_draws(&w->st.cfg, w->p->id, k, &in, &par);
        if (kb_session_draw(ss, &in, &par, err) != 0 || kb_session_poison(ss, err) != 0 ||
            kb_session_call(ss, KB_CALL_DEVICE_SYNC, &co, err) != 0)
            return -1;
        s->call[k] = (int64_t)co.outcome;
        if (co.outcome != KB_OUT_OK) {
            s->outcome = co.outcome;
            s->done = 1;
            kb_fmt(s->detail, sizeof s->detail, "%s: %s", pool[k].name, co.detail);
            break;
        }
        double ex = 0, ex32 = 0;
        for (uint32_t i = 0; i < w->n_out; i++) {
            /* the strict protocol's bound (kb_check_draw), against the fp64 reference */
            double terms = w->p->outputs[i].terms > 1 ? (double)w->p->outputs[i].terms : 1.0;
            double srtol = 16.0 * 5.960464477539063e-08 * sqrt(terms), satol = 1e-30;
            double rms = w->rms[k - k0][i];
            if (isfinite(rms) && srtol * rms > satol)
                satol = srtol * rms;
            double rt = srtol + KB_TF32_OPERAND_RTOL, at = satol * (rt / srtol);
            kb_cmp_stats c, t;
            if (kb_session_compare_with(ss, i, w->ref[k - k0][i], w->mag[k - k0][i], 1.0, satol, srtol, &c, err) != 0 ||
                kb_session_compare_with(ss, i, w->ref[k - k0][i], w->mag[k - k0][i], 1.0, at, rt, &t, err) != 0)
                return -1;
            double e1 = c.n_nan_out ? INFINITY : c.scaled_excess, e2 = t.n_nan_out ? INFINITY : t.scaled_excess;
            if (!(e1 <= ex))
                ex = e1;
            if (!(e2 <= ex32))
                ex32 = e2;
        }
        s->excess[k] = ex;
        s->excess_tf32[k] = ex32;
        if (stop_witnessed(w, s, k)) {
            s->done = 1;
            break;
        }
    }
    if (k1 == NPOOL)
        s->done = 1;
    s->seconds += kb_now_s() - t0;
    return 0;
}

static void close_all(kb_session **live, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (live[j]) {
            kb_session_close(live[j]);
            live[j] = NULL;
        }
}

/* Samples [i0, i1) alive at once over the whole pool, chunk by chunk: the chunk's references
 * (unless the whole pool's are held from an earlier window), then every live sample on them. A
 * sample that did not compile, or whose start failed, runs nothing (recorded). */
#define WINDOW_MAX 8
static int run_window(w_run *w, kb_session *rs, size_t i0, size_t i1, kb_err *err)
{
    double t0 = kb_now_s();
    kb_session *live[WINDOW_MAX] = {0};
    for (size_t i = i0; i < i1; i++) {
        w_sample *s = &w->S[i];
        if (!(live[i - i0] = spawn_sample(w, s, err)) && s->outcome == KB_OUT_OK)
            goto fail;
    }
    kb_call_outcome co;
    for (size_t i = i0; i < i1; i++)
        if (live[i - i0] && kb_session_init(live[i - i0], w->st.device, &co, err) != 0)
            goto fail;
    for (size_t i = i0; i < i1; i++)
        if (live[i - i0] && sample_ready(&w->S[i], live[i - i0], err) != 0)
            goto fail;
    w->run_s += kb_now_s() - t0;
    for (size_t k0 = 0; k0 < NPOOL; k0 += w->chunk) {
        size_t k1 = k0 + w->chunk < NPOOL ? k0 + w->chunk : NPOOL;
        int pending = 0;
        for (size_t i = i0; i < i1; i++)
            pending |= live[i - i0] && w->S[i].outcome == KB_OUT_OK && !w->S[i].done;
        if (!pending && w->chunk < NPOOL)
            break; /* every live sample's run is over: no more references for this window */
        if (w->chunk < NPOOL || !w->refs_held) {
            if (reference_chunk(w, rs, k0, k1, err) != 0)
                goto fail;
            w->refs_held = 1;
        }
        if (w->ref_outcome != KB_OUT_OK)
            break;
        double t1 = kb_now_s();
        for (size_t i = i0; i < i1; i++)
            if (live[i - i0] && w->S[i].outcome == KB_OUT_OK && !w->S[i].done && run_sample(w, &w->S[i], live[i - i0], k0, k1, err) != 0)
                goto fail;
        w->run_s += kb_now_s() - t1;
    }
    for (size_t i = i0; i < i1; i++)
        w->S[i].done = 1;
    close_all(live, i1 - i0);
    return 0;
fail:
    close_all(live, i1 - i0);
    return -1;
}

/* The samples in windows of w->window alive at once, over the pool in chunks of w->chunk
 * entries (kb_witness_plan: the whole pool's references held, computed once; or one entry's,
 * computed once per window). */
static int run_pool(w_run *w, kb_err *err)
{
    uint64_t per_entry = 0, per_sample = 0;
    for (uint32_t i = 0; i < w->n_out; i++) {
        per_entry += 2 * kb_spec_bytes(&w->p->outputs[i]);
        per_sample += 2 * kb_spec_bytes(&w->p->outputs[i]); /* the shared output and the child's copy */
    }
    for (uint32_t i = 0; i < w->p->n_inputs; i++)
        per_sample += kb_spec_bytes(&w->p->inputs[i]);
    double gib = strtod(w->ref_memory, NULL);
    kb_witness_plan(per_entry, per_sample, (uint64_t)(gib * (double)(1ull << 30)), NPOOL, WINDOW_MAX, &w->chunk,
                    &w->window);
    if (kb_gpu_stage_begin(&w->st, w->gpus, KB_LOCK_SHARED, err) != 0)
        return -1;
    for (size_t c = 0; c < w->chunk; c++)
        for (uint32_t i = 0; i < w->n_out; i++) {
            uint64_t b = kb_spec_bytes(&w->p->outputs[i]);
            KB_CUDA_CHECK(err, alloc_wait(&w->ref[c][i], b));
            KB_CUDA_CHECK(err, alloc_wait(&w->mag[c][i], b));
        }
    for (size_t i = 0; i < w->n; i++)
        w->S[i].outcome = KB_OUT_OK;
    kb_session *rs = reference_open(w, err);
    if (!rs)
        return -1;
    for (size_t i0 = 0; i0 < w->n && w->ref_outcome == KB_OUT_OK; i0 += w->window) {
        size_t i1 = i0 + w->window < w->n ? i0 + w->window : w->n;
        if (run_window(w, rs, i0, i1, err) != 0) {
            kb_session_close(rs);
            return -1;
        }
    }
    kb_session_close(rs);
    return 0;
}

static int write_artifact(w_run *w, kb_err *err)
{
    kb_h5w *h = kb_gpu_stage_artifact(&w->st, w->out, err);
    if (!h)
        return -1;
    const char *names[NPOOL], *what[NPOOL], *why[NPOOL];
    int64_t seeds[NPOOL], skipped[NPOOL], perturbed[NPOOL];
    for (size_t k = 0; k < NPOOL; k++) {
        kb_draw in, par;
        pool_draws(&w->st.cfg, w->p->id, k, &in, &par);
        names[k] = pool[k].name;
        what[k] = pool[k].what;
        why[k] = pool[k].why;
        seeds[k] = (int64_t)in.seed;
        skipped[k] = w->skipped[k];
        perturbed[k] = pool[k].perturb_params;
    }
    kb_h5w_attr_str(h, KB_ROOT, "spec", w->spec);
    kb_h5w_attr_str(h, KB_ROOT, "reference", "the problem's PyTorch Model in float64, outputs rounded once to fp32");
    kb_h5w_attr_str(h, KB_ROOT, "bound", "strict scaled bound: r (|ref| + |ref(|x|)|) + r rms(ref), r = 16 x 2^-24 x sqrt(terms); "
                                          "excess_tf32: r + 2^-9");
    kb_h5w_attr_f64(h, KB_ROOT, "reference_s", w->ref_s);
    kb_h5w_attr_f64(h, KB_ROOT, "samples_s", w->run_s);
    kb_h5w_attr_i64(h, KB_ROOT, "chunk", (int64_t)w->chunk);
    kb_h5w_attr_i64(h, KB_ROOT, "window", (int64_t)w->window);
    kb_h5w_attr_i64(h, KB_ROOT, "reference_passes", (int64_t)w->n_ref_passes);
    kb_h5w_group(h, "/pool");
    kb_h5w_strv(h, "/pool/name", names, NPOOL);
    kb_h5w_strv(h, "/pool/what", what, NPOOL);
    kb_h5w_strv(h, "/pool/why", why, NPOOL);
    kb_h5w_i64v(h, "/pool/seed", seeds, NPOOL, NULL);
    kb_h5w_i64v(h, "/pool/params_perturbed", perturbed, NPOOL, NULL);
    kb_h5w_i64v(h, "/pool/skipped", skipped, NPOOL, NULL);
    size_t n = w->n;
    const char **cells = calloc(n, sizeof *cells), **outc = calloc(n, sizeof *outc), **det = calloc(n, sizeof *det);
    int64_t *call = calloc(n * NPOOL, sizeof *call);
    double *ex = calloc(n * NPOOL, sizeof *ex), *ex32 = calloc(n * NPOOL, sizeof *ex32), *secs = calloc(n, sizeof *secs);
    int64_t *stop = calloc(n, sizeof *stop);
    if (!cells || !outc || !det || !call || !ex || !ex32 || !secs || !stop) {
        free(stop);
        kb_h5w_abort(h);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        cells[i] = w->S[i].cell;
        outc[i] = kb_outcome_name(w->S[i].outcome);
        det[i] = w->S[i].detail;
        secs[i] = w->S[i].seconds;
        stop[i] = w->S[i].witnessed_at;
        for (size_t k = 0; k < NPOOL; k++) {
            call[i * NPOOL + k] = w->S[i].call[k];
            ex[i * NPOOL + k] = w->S[i].excess[k];
            ex32[i * NPOOL + k] = w->S[i].excess_tf32[k];
        }
    }
    uint64_t dims[2] = {n, NPOOL};
    kb_h5w_group(h, "/samples");
    kb_h5w_strv(h, "/samples/cell", cells, n);
    kb_h5w_strv(h, "/samples/outcome", outc, n);
    kb_h5w_strv(h, "/samples/detail", det, n);
    kb_h5w_f64v(h, "/samples/seconds", secs, n, "s");
    kb_h5w_i64v(h, "/samples/stopped_witnessed", stop, n, NULL);
    kb_h5w_i64(h, "/samples/call", call, 2, dims, NULL);
    kb_h5w_f64(h, "/samples/excess", ex, 2, dims, NULL);
    kb_h5w_f64(h, "/samples/excess_tf32", ex32, 2, dims, NULL);
    free(cells), free(outc), free(det), free(call), free(ex), free(ex32), free(secs), free(stop);
    return kb_gpu_stage_finish(&w->st, h, w->ref_outcome, w->ref_detail, err);
}

int main(int argc, char **argv)
{
    static w_run w = {.runner = "build/bin/kb-runner", .gpus = "0", .ref_memory = "16", .st = {.name = "witness"}};
    kb_opt opts[] = {
        {"problem", &w.problem_so, NULL, "* the problem's shared object"},
        {"spec", &w.spec, NULL, "* the problem's PyTorch spec (problems/levelN/NNN_name.py): the fp64 reference"},
        {"samples", &w.list, NULL, "* the samples, one per line: cell<TAB>target (kernel.so or kernel.py)<TAB>compile.h5"},
        {"out", &w.out, NULL, "* the artifact (witness.h5)"},
        {"runner", &w.runner, NULL, "kb-runner executable (default build/bin/kb-runner; libkbrunner.so beside it)"},
        {"gpus", &w.gpus, NULL, "CUDA ordinals to choose from (default 0)"},
        {"log", &w.log, NULL, "the children's stdout/stderr (default <out>.log)"},
        {"ref-memory", &w.ref_memory, NULL, "GiB of device memory for the pool's reference buffers and the live samples' tensors "
                                            "(default 16): the whole pool's references and a window of samples, or one entry's and "
                                            "a window recomputing them entry by entry"},
    };
    kb_config_defaults(&w.st.cfg, KB_PROTO_STRICT);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv,
                            "kb-witness: every listed sample on the witness pool (both protocols' distributions and\n"
                            "large offsets, wide ranges, zero-mean, sparse, subnormal and near-overflow inputs), each output's\n"
                            "excess over the rounding bound against the problem's PyTorch Model in float64 (docs/mutation.md).\n"
                            "Needs $KB_PYTHON with torch.",
                            opts, sizeof opts / sizeof opts[0], &w.st.cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail(w.st.name, &err);
    if (!w.log) {
        kb_fmt(w.logbuf, sizeof w.logbuf, "%s.log", w.out);
        w.log = w.logbuf;
    }
    void *ph;
    if (read_list(&w, &err) != 0 || !(w.p = kb_problem_load(w.problem_so, &ph, &err)))
        return kb_stage_fail(w.st.name, &err);
    w.st.cell = (kb_cell){"mutation", w.p->id, ""};
    w.n_out = w.p->n_outputs; /* at most KB_MAX_OUTPUTS: the loader refuses more */
    char *end = NULL;
    double gib = strtod(w.ref_memory, &end);
    if (!end || *end || !(gib > 0)) {
        kb_errf(&err, KB_EXIT_USAGE, "--ref-memory %s: a number of GiB > 0 is needed", w.ref_memory);
        return kb_stage_fail(w.st.name, &err);
    }
    if (run_pool(&w, &err) != 0)
        return kb_stage_fail(w.st.name, &err);
    /* no artifact for a reference that did not fit (make runs it again), one for any other outcome */
    if (w.ref_outcome == KB_OUT_OOM) {
        kb_errf(&err, KB_EXIT_FAIL, "%s (no artifact written: run it again with fewer stages beside it, or a smaller "
                "--ref-memory)", w.ref_detail);
        return kb_stage_fail(w.st.name, &err);
    }
    if (write_artifact(&w, &err) != 0)
        return kb_stage_fail(w.st.name, &err);
    int n_ok = 0;
    for (size_t i = 0; i < w.n; i++)
        n_ok += w.S[i].outcome == KB_OUT_OK;
    kb_progress(&w.st, "%s %zu samples (%d without a failed call) x %zu pool entries in chunks of %zu, %zu samples alive at once; "
                "fp64 reference %.1f s (%zu passes), samples %.1f s",
                w.ref_outcome == KB_OUT_OK ? "ok" : kb_outcome_name(w.ref_outcome), w.n, n_ok, NPOOL, w.chunk, w.window,
                w.ref_s, w.n_ref_passes, w.run_s);
    if (w.ref_outcome != KB_OUT_OK)
        printf("    %s\n", w.ref_detail);
    return 0;
}
