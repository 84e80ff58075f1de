/* metrics.c -- see kb_metrics.h (the definitions are stated there and in docs/metrics.md). */
#include "report/kb_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double kb_fastp_p[KB_N_FASTP] = {0.0, 0.5, 0.8, 1.0, 1.5, 2.0};

/* ---- records ------------------------------------------------------------------------------- */

int kb_data_init(kb_data *d, const char *const *models, size_t n_models, const char *const *problems, size_t n_problems)
{
    memset(d, 0, sizeof *d);
    d->models = calloc(n_models ? n_models : 1, sizeof *d->models);
    d->problems = calloc(n_problems ? n_problems : 1, sizeof *d->problems);
    size_t n_cells = n_models * n_problems;
    d->cells = calloc(n_cells > 0 ? n_cells : 1, sizeof *d->cells);
    if (!d->models || !d->problems || !d->cells) {
        kb_data_free(d);
        return -1;
    }
    d->n_models = n_models;
    d->n_problems = n_problems;
    for (size_t m = 0; m < n_models; m++)
        if (!(d->models[m] = strdup(models[m]))) {
            kb_data_free(d);
            return -1;
        }
    for (size_t p = 0; p < n_problems; p++) {
        kb_problem_rec *pr = &d->problems[p];
        snprintf(pr->id, sizeof pr->id, "%s", problems[p]);
        pr->level = kb_problem_level(problems[p]);
        pr->flops = pr->bytes = NAN;
        for (int b = 0; b < KB_N_BASE; b++)
            pr->base_ms[b] = pr->base_peak[b] = NAN;
    }
    return 0;
}

void kb_data_free(kb_data *d)
{
    if (d->models)
        for (size_t m = 0; m < d->n_models; m++)
            free(d->models[m]);
    if (d->cells)
        for (size_t i = 0; i < d->n_models * d->n_problems; i++)
            free(d->cells[i].samples);
    free(d->models);
    free(d->problems);
    free(d->cells);
    memset(d, 0, sizeof *d);
}

kb_cell_rec *kb_data_cell(const kb_data *d, size_t model, size_t problem)
{
    return &d->cells[model * d->n_problems + problem];
}

int kb_cell_add(kb_cell_rec *c, const kb_sample_rec *s)
{
    kb_sample_rec *v = realloc(c->samples, (c->n + 1) * sizeof *v);
    if (!v)
        return -1;
    c->samples = v;
    size_t at = c->n;
    while (at > 0 && strcmp(v[at - 1].name, s->name) > 0)
        at--;
    memmove(&v[at + 1], &v[at], (c->n - at) * sizeof *v);
    v[at] = *s;
    c->n++;
    return 0;
}

void kb_sample_init(kb_sample_rec *s, const char *name)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->compiled = s->calls_library = s->std_correct = s->hidden_pass = s->hidden_pass_tf32 = -1;
    s->trials_run = s->trials_passed = -1;
    s->std_complete = 0;
    s->kernel_ms = s->peak_bytes = s->std_tau_req = s->hid_tau_req = s->tau = NAN;
}

int kb_problem_level(const char *id)
{
    int n = 0;
    if (strncmp(id, "level", 5) != 0 || sscanf(id + 5, "%d", &n) != 1 || n < 0)
        return 0;
    return n;
}

/* ---- conditions ---------------------------------------------------------------------------- */

const char *kb_cond_name(kb_cond c)
{
    static const char *n[KB_N_COND] = {"fp32-standard", "fp32-verified", "tf32-standard", "tf32-verified"};
    return (c >= 0 && c < KB_N_COND) ? n[c] : "?";
}

const char *kb_cond_label(kb_cond c)
{
    static const char *n[KB_N_COND] = {"FP32 x standard", "FP32 x verified", "TF32 x standard", "TF32 x verified"};
    return (c >= 0 && c < KB_N_COND) ? n[c] : "?";
}

kb_base kb_cond_base(kb_cond c) { return (c == KB_COND_TF32_STD || c == KB_COND_TF32_VER) ? KB_BASE_TF32 : KB_BASE_FP32; }

kb_gate kb_cond_gate(kb_cond c)
{
    kb_gate g = {(c == KB_COND_FP32_VER || c == KB_COND_TF32_VER) ? KB_GATE_VERIFIED : KB_GATE_STANDARD, NAN,
                 c == KB_COND_TF32_VER};
    return g;
}

const char *kb_base_name(kb_base b) { return b == KB_BASE_TF32 ? "tf32" : "fp32"; }

/* NaN compares false, so an unknown tau_req never passes. */
static int within(double tau_req, double tau) { return tau_req <= tau; }

int kb_sample_passes(const kb_sample_rec *s, kb_gate g)
{
    if (isnan(g.tau)) {
        if (s->std_correct != 1)
            return 0;
        return g.kind == KB_GATE_STANDARD || (g.tf32 ? s->hidden_pass_tf32 : s->hidden_pass) == 1;
    }
    if (!s->std_complete || !within(s->std_tau_req, g.tau))
        return 0;
    return g.kind == KB_GATE_STANDARD || within(s->hid_tau_req, g.tau);
}

int kb_sample_undetermined(const kb_sample_rec *s, kb_gate g)
{
    if (isnan(g.tau) || s->std_complete || !within(s->std_tau_req, g.tau))
        return 0;
    return g.kind == KB_GATE_STANDARD || within(s->hid_tau_req, g.tau);
}

/* ---- best-of-N ----------------------------------------------------------------------------- */

double kb_ratio(double num, double den)
{
    if (!isfinite(num) || !isfinite(den) || num <= 0.0 || den <= 0.0)
        return NAN;
    return num / den;
}

int kb_best_sample(const kb_sample_rec *s, size_t n, kb_gate g)
{
    int best = -1, untimed = -1;
    for (size_t i = 0; i < n; i++) {
        if (!kb_sample_passes(&s[i], g))
            continue;
        double t = s[i].kernel_ms;
        if (!(isfinite(t) && t > 0.0)) {
            if (untimed < 0)
                untimed = (int)i;
            continue;
        }
        if (best < 0 || t < s[best].kernel_ms) /* strict: ties keep the earlier sample */
            best = (int)i;
    }
    return best >= 0 ? best : untimed;
}

void kb_best_of(const kb_cell_rec *c, const kb_problem_rec *p, kb_gate g, kb_base b, kb_best *out)
{
    out->idx = kb_best_sample(c->samples, c->n, g);
    out->base_ms = p->base_ms[b];
    out->base_peak = p->base_peak[b];
    out->kernel_ms = out->idx >= 0 ? c->samples[out->idx].kernel_ms : NAN;
    out->kernel_peak = out->idx >= 0 ? c->samples[out->idx].peak_bytes : NAN;
    out->speedup = kb_ratio(out->base_ms, out->kernel_ms);
    out->mem_ratio = kb_ratio(out->base_peak, out->kernel_peak);
}

/* ---- per (model, level, condition) --------------------------------------------------------- */

int kb_problem_counts(const kb_problem_rec *p, int level) { return !p->excluded && (level == 0 || p->level == level); }

static double share(size_t k, size_t n) { return n ? (double)k / (double)n : NAN; }

void kb_metrics_compute(const kb_data *d, size_t model, int level, kb_gate g, kb_base b, kb_metrics *out)
{
    memset(out, 0, sizeof *out);
    /* Geometric means as exp(mean(log)), over positive finite ratios only (kb_geomean's rule). */
    double log_speed = 0.0, log_mem = 0.0;
    for (size_t p = 0; p < d->n_problems; p++) {
        const kb_problem_rec *pr = &d->problems[p];
        if (!kb_problem_counts(pr, level))
            continue;
        out->n_problems++;
        const kb_cell_rec *c = kb_data_cell(d, model, p);
        for (size_t i = 0; i < c->n; i++)
            out->n_undetermined += (size_t)kb_sample_undetermined(&c->samples[i], g);
        kb_best best;
        kb_best_of(c, pr, g, b, &best);
        if (best.idx < 0)
            continue;
        out->n_correct++;
        if (isfinite(best.speedup)) {
            out->n_speedup++;
            log_speed += log(best.speedup);
        }
        for (int k = 0; k < KB_N_FASTP; k++)
            if (best.speedup > kb_fastp_p[k])
                out->n_fast[k]++;
        if (isfinite(best.mem_ratio)) {
            out->n_mem++;
            log_mem += log(best.mem_ratio);
            if (best.kernel_peak < best.base_peak)
                out->n_mem_lower++;
            if (best.kernel_peak > best.base_peak)
                out->n_mem_higher++;
        }
    }
    out->correctness = share(out->n_correct, out->n_problems);
    out->speedup = out->n_speedup ? exp(log_speed / (double)out->n_speedup) : NAN;
    for (int k = 0; k < KB_N_FASTP; k++)
        out->fast[k] = share(out->n_fast[k], out->n_problems);
    out->mem_eff = out->n_mem ? exp(log_mem / (double)out->n_mem) : NAN;
    out->mem_eff_pct = share(out->n_mem_lower, out->n_problems);
    out->mem_increase = share(out->n_mem_higher, out->n_mem);
}

double kb_fast_p(const kb_data *d, size_t model, int level, kb_gate g, kb_base b, double p)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i < d->n_problems; i++) {
        if (!kb_problem_counts(&d->problems[i], level))
            continue;
        n++;
        kb_best best;
        kb_best_of(kb_data_cell(d, model, i), &d->problems[i], g, b, &best);
        if (best.speedup > p)
            k++;
    }
    return share(k, n);
}

/* ---- samples ------------------------------------------------------------------------------- */

void kb_sample_counts_compute(const kb_data *d, size_t model, int level, kb_sample_counts *out)
{
    memset(out, 0, sizeof *out);
    for (size_t p = 0; p < d->n_problems; p++) {
        if (!kb_problem_counts(&d->problems[p], level))
            continue;
        const kb_cell_rec *c = kb_data_cell(d, model, p);
        for (size_t i = 0; i < c->n; i++) {
            const kb_sample_rec *s = &c->samples[i];
            out->samples++;
            out->compiled += s->compiled == 1;
            out->compile_missing += s->compiled == -1;
            out->library += s->calls_library == 1;
            out->flagged += s->flags[0] != '\0';
            kb_verdict vs = kb_sample_verdict(s, KB_GATE_STANDARD, NULL, 0);
            kb_verdict vv = kb_sample_verdict(s, KB_GATE_VERIFIED, NULL, 0);
            out->std_accepted += vs == KB_VERDICT_ACCEPTED;
            out->std_rejected += vs == KB_VERDICT_REJECTED;
            out->std_not_run += vs == KB_VERDICT_NOT_RUN;
            out->ver_accepted += vv == KB_VERDICT_ACCEPTED;
            out->ver_rejected += vv == KB_VERDICT_REJECTED;
            out->ver_not_run += vv == KB_VERDICT_NOT_RUN;
        }
    }
    out->compile_rate = share(out->compiled, out->samples);
}

/* ---- tallies ------------------------------------------------------------------------------- */

int kb_tally_add(kb_tally *t, const char *key, size_t k)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->keys[i], key)) {
            t->counts[i] += k;
            return 0;
        }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **keys = realloc(t->keys, cap * sizeof *keys);
        if (!keys)
            return -1;
        t->keys = keys;
        size_t *counts = realloc(t->counts, cap * sizeof *counts);
        if (!counts)
            return -1;
        t->counts = counts;
        t->cap = cap;
    }
    if (!(t->keys[t->n] = strdup(key)))
        return -1;
    t->counts[t->n++] = k;
    return 0;
}

size_t kb_tally_get(const kb_tally *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->keys[i], key))
            return t->counts[i];
    return 0;
}

void kb_tally_sort(kb_tally *t)
{
    /* insertion sort: tallies are short */
    for (size_t i = 1; i < t->n; i++)
        for (size_t j = i; j > 0; j--) {
            int swap = t->counts[j] > t->counts[j - 1] ||
                       (t->counts[j] == t->counts[j - 1] && strcmp(t->keys[j], t->keys[j - 1]) < 0);
            if (!swap)
                break;
            char *k = t->keys[j];
            t->keys[j] = t->keys[j - 1];
            t->keys[j - 1] = k;
            size_t c = t->counts[j];
            t->counts[j] = t->counts[j - 1];
            t->counts[j - 1] = c;
        }
}

void kb_tally_free(kb_tally *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->keys[i]);
    free(t->keys);
    free(t->counts);
    memset(t, 0, sizeof *t);
}

int kb_flag_tally(const kb_data *d, size_t model, int level, kb_tally *t)
{
    for (size_t p = 0; p < d->n_problems; p++) {
        if (!kb_problem_counts(&d->problems[p], level))
            continue;
        const kb_cell_rec *c = kb_data_cell(d, model, p);
        for (size_t i = 0; i < c->n; i++) {
            char buf[sizeof c->samples[i].flags];
            snprintf(buf, sizeof buf, "%s", c->samples[i].flags);
            for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                while (*tok == ' ')
                    tok++;
                if (*tok && kb_tally_add(t, tok, 1) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

const char *kb_verdict_name(kb_verdict v)
{
    static const char *n[KB_N_VERDICT] = {"accepted", "rejected", "not_run"};
    return (v >= 0 && v < KB_N_VERDICT) ? n[v] : "?";
}

kb_verdict kb_sample_verdict(const kb_sample_rec *s, kb_gate_kind kind, char *reason, size_t len)
{
    char r[320] = "";
    kb_verdict v;
    if (s->std_correct < 0) {
        v = KB_VERDICT_NOT_RUN;
        snprintf(r, sizeof r, "sanity-check.h5 missing");
    } else if (s->std_correct == 0) {
        v = KB_VERDICT_REJECTED;
        snprintf(r, sizeof r, "%s", s->std_outcome[0] ? s->std_outcome : "wrong_answer");
    } else {
        v = KB_VERDICT_ACCEPTED;
    }
    if (kind == KB_GATE_VERIFIED) {
        if (v != KB_VERDICT_ACCEPTED) {
            char t[sizeof r];
            snprintf(t, sizeof t, "%s", r);
            snprintf(r, sizeof r, "standard: %.300s", t);
        } else if (s->hidden_pass < 0) {
            v = KB_VERDICT_NOT_RUN;
            snprintf(r, sizeof r, "verify-distributions.h5 missing");
        } else if (s->hidden_pass == 0) {
            v = KB_VERDICT_REJECTED;
            snprintf(r, sizeof r, "%s", s->reason[0] ? s->reason : (s->ver_outcome[0] ? s->ver_outcome : "rejected"));
        }
    }
    if (reason && len)
        snprintf(reason, len, "%s", r);
    return v;
}

int kb_verdict_tally(const kb_data *d, size_t model, int level, kb_gate_kind kind, kb_verdict v, kb_tally *t)
{
    for (size_t p = 0; p < d->n_problems; p++) {
        if (!kb_problem_counts(&d->problems[p], level))
            continue;
        const kb_cell_rec *c = kb_data_cell(d, model, p);
        for (size_t i = 0; i < c->n; i++) {
            char reason[320];
            if (kb_sample_verdict(&c->samples[i], kind, reason, sizeof reason) == v && kb_tally_add(t, reason, 1) != 0)
                return -1;
        }
    }
    return 0;
}

/* ---- hidden distributions ------------------------------------------------------------------ */

static void dist_add(const kb_sample_rec *s, kb_dist_counts *out, size_t cap, size_t *n)
{
    for (size_t k = 0; k < s->n_dists; k++) {
        const kb_dist_rec *r = &s->dists[k];
        size_t j = 0;
        while (j < *n && strcmp(out[j].name, r->name) != 0)
            j++;
        if (j == *n) {
            if (*n == cap)
                continue;
            memset(&out[j], 0, sizeof out[j]);
            snprintf(out[j].name, sizeof out[j].name, "%s", r->name);
            (*n)++;
        }
        kb_dist_counts *c = &out[j];
        c->samples++;
        if (!r->ran) {
            c->not_run++;
            continue;
        }
        c->ran++;
        if (r->skipped)
            c->skipped++;
        else if (r->pass)
            c->passed++;
        else
            c->failed++;
    }
}

size_t kb_dist_tally(const kb_data *d, size_t model, int best_only, kb_dist_counts *out, size_t cap)
{
    size_t n = 0;
    kb_gate std = {KB_GATE_STANDARD, NAN, 0};
    for (size_t p = 0; p < d->n_problems; p++) {
        if (!kb_problem_counts(&d->problems[p], 0))
            continue;
        const kb_cell_rec *c = kb_data_cell(d, model, p);
        if (best_only) {
            int b = kb_best_sample(c->samples, c->n, std);
            if (b >= 0)
                dist_add(&c->samples[b], out, cap, &n);
            continue;
        }
        for (size_t i = 0; i < c->n; i++)
            dist_add(&c->samples[i], out, cap, &n);
    }
    return n;
}

/* ---- reach --------------------------------------------------------------------------------- */

const char *kb_reach_name(kb_reach_cat c)
{
    static const char *n[] = {"neither", "tf32-only", "hidden-only", "both"};
    return (c >= 0 && c <= KB_REACH_BOTH) ? n[c] : "?";
}

kb_reach_cat kb_reach(const kb_data *d, size_t p, int *tf32_models, int *hidden_models)
{
    int tf32 = 0, hidden = 0;
    const kb_problem_rec *pr = &d->problems[p];
    for (size_t m = 0; m < d->n_models; m++) {
        if (tf32_models)
            tf32_models[m] = 0;
        if (hidden_models)
            hidden_models[m] = 0;
        if (pr->excluded)
            continue;
        const kb_cell_rec *c = kb_data_cell(d, m, p);
        kb_best fs, ts, fv;
        kb_best_of(c, pr, kb_cond_gate(KB_COND_FP32_STD), KB_BASE_FP32, &fs);
        if (!(fs.speedup > 1.0))
            continue;
        kb_best_of(c, pr, kb_cond_gate(KB_COND_TF32_STD), KB_BASE_TF32, &ts);
        kb_best_of(c, pr, kb_cond_gate(KB_COND_FP32_VER), KB_BASE_FP32, &fv);
        if (!(ts.speedup > 1.0)) {
            tf32 = 1;
            if (tf32_models)
                tf32_models[m] = 1;
        }
        if (!(fv.speedup > 1.0)) {
            hidden = 1;
            if (hidden_models)
                hidden_models[m] = 1;
        }
    }
    if (tf32 && hidden)
        return KB_REACH_BOTH;
    return tf32 ? KB_REACH_TF32_ONLY : hidden ? KB_REACH_HIDDEN_ONLY : KB_REACH_NEITHER;
}
