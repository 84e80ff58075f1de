/*
 * kb-mutation-report -- the mutation report (docs/mutation.md): joins the mutants'
 * manifest (kb-mutate), the witness artifacts (kb-witness, one per problem) and both protocols'
 * check artifacts into
 *   OUT/mutation.csv          one row per mutant: problem,family,rule,witnessed,killed_standard,
 *                             killed_paper,killed_strict,reason (the manifest's order)
 *   OUT/mutation-detail.csv   the same rows with the mutant's name, origin, site, witnessing entry
 *                             and each protocol's reason
 *   OUT/mutation-summary.md   kill rates per family and per problem over the witnessed mutants,
 *                             the witnessing entries, every strict survivor by name, the origins'
 *                             verdicts (false rejections)
 * or, with --list-witnessed FILE, only the witnessed mutants and their origins (one cell per line:
 * what make mutation sends through the protocols).
 * Needs no GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb_artifact.h"
#include "core/kb_h5.h"
#include "mutation/kb_mutreport.h"
#include "core/kb_probe.h"
#include "core/kb_schema.h"
#include "core/kb_stage.h"
#include "report/kb_table.h"

#define MAX_WIT 256
#define FAMS 6
static const char *fam_names[FAMS] = {"boundary", "sync", "precision", "indexing", "arithmetic", "semantics"};

/* One witness artifact (one problem). */
typedef struct wit {
    char path[1024], problem[256], root_outcome[64], root_detail[512];
    size_t n, K;
    char **cell, **outcome, **detail, **pool;
    int64_t *call, *skipped;
    double *ex, *ex32;
} wit;

/* A protocol's verdict on a cell: -1 unknown (no artifact), 0 passes, 1 killed. */
typedef struct verdict {
    int std_killed, killed;
    char why[512];
} verdict;

typedef struct mrow {
    const char *sample, *problem, *origin, *family, *rule, *line, *before, *after;
    char cell[512];
    int state; /* KB_MUT_* or -1 stillborn, -2 no witness run, -3 origin unusable */
    int entry;
    double excess;
    int tf32;
    verdict v[2]; /* paper, strict */
    char reason[1024];
} mrow;

static int read_wit(const char *path, wit *w, kb_err *err)
{
    memset(w, 0, sizeof *w);
    snprintf(w->path, sizeof w->path, "%s", path);
    kb_h5r *r = kb_h5r_open(path, err);
    if (!r)
        return -1;
    size_t n1, n2, n3, nc, ne, ne2, nk;
    kb_h5r_attr_str(r, "/", KB_ATTR_OUTCOME_DETAIL, w->root_detail, sizeof w->root_detail, err);
    int rc = kb_h5r_attr_str(r, "/", KB_ATTR_PROBLEM, w->problem, sizeof w->problem, err) ||
             kb_h5r_attr_str(r, "/", KB_ATTR_OUTCOME, w->root_outcome, sizeof w->root_outcome, err) ||
             kb_h5r_strv(r, "/samples/cell", &w->cell, &w->n, err) ||
             kb_h5r_strv(r, "/samples/outcome", &w->outcome, &n1, err) ||
             kb_h5r_strv(r, "/samples/detail", &w->detail, &n2, err) || kb_h5r_strv(r, "/pool/name", &w->pool, &w->K, err) ||
             kb_h5r_i64(r, "/pool/skipped", &w->skipped, &nk, err) || kb_h5r_i64(r, "/samples/call", &w->call, &nc, err) ||
             kb_h5r_f64(r, "/samples/excess", &w->ex, &ne, err) || kb_h5r_f64(r, "/samples/excess_tf32", &w->ex32, &ne2, err);
    kb_h5r_close(r);
    if (rc)
        return -1;
    n3 = w->n * w->K;
    if (n1 != w->n || n2 != w->n || nk != w->K || nc != n3 || ne != n3 || ne2 != n3)
        return kb_errf(err, KB_EXIT_FAIL, "%s: /samples and /pool do not agree in size (a witness artifact of another schema?)",
                       path);
    return 0;
}

static long wit_find(const wit *w, const char *cell)
{
    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->cell[i], cell))
            return (long)i;
    return -1;
}

static kb_mut_row wit_row(const wit *w, long i)
{
    return (kb_mut_row){w->call + (size_t)i * w->K, w->ex + (size_t)i * w->K, w->ex32 + (size_t)i * w->K};
}

/* The cell's verdict in the protocol tree root (root/<cell>/{sanity-check,verify-distributions}.h5). */
static void read_verdict(const char *root, const char *cell, int tf32, verdict *v)
{
    v->std_killed = v->killed = -1;
    v->why[0] = 0;
    if (!root)
        return;
    char p[2048], outcome[64] = "", detail[400] = "", reason[400] = "";
    kb_err e = {0};
    snprintf(p, sizeof p, "%s/%s/sanity-check.h5", root, cell);
    kb_h5r *r = kb_h5r_open(p, &e);
    if (!r)
        return;
    int64_t correct = 0;
    kb_h5r_attr_str(r, "/", KB_ATTR_OUTCOME, outcome, sizeof outcome, &e);
    kb_h5r_attr_str(r, "/", KB_ATTR_OUTCOME_DETAIL, detail, sizeof detail, &e);
    if (kb_h5r_attr_i64(r, "/", KB_ATTR_CORRECT, &correct, &e) != 0)
        correct = 0;
    kb_h5r_close(r);
    v->std_killed = !(strcmp(outcome, "ok") == 0 && correct == 1);
    if (v->std_killed) {
        v->killed = 1;
        kb_fmt(v->why, sizeof v->why, "standard: %s%s%.160s", outcome, detail[0] ? ", " : "", detail);
        return;
    }
    snprintf(p, sizeof p, "%s/%s/verify-distributions.h5", root, cell);
    if (!(r = kb_h5r_open(p, &e)))
        return; /* standard passed, distributions not run: unknown */
    int64_t ver = 0;
    if (kb_h5r_attr_i64(r, "/", tf32 ? KB_ATTR_VERIFIED_TF32 : KB_ATTR_VERIFIED, &ver, &e) != 0)
        ver = 0;
    kb_h5r_attr_str(r, "/", tf32 ? KB_ATTR_REASON_TF32 : KB_ATTR_REASON, reason, sizeof reason, &e);
    kb_h5r_close(r);
    v->killed = ver != 1;
    if (v->killed)
        kb_fmt(v->why, sizeof v->why, "%.400s", reason[0] ? reason : "not verified");
}

static int fam_index(const char *f)
{
    for (int i = 0; i < FAMS; i++)
        if (!strcmp(fam_names[i], f))
            return i;
    return -1;
}

static const char *cellv(int x)
{
    return x < 0 ? "" : x ? "1" : "0";
}

/* counts of one group: [0] mutants [1] stillborn [2] witnessed [3..5] killed std/paper/strict [6..8] known */
typedef struct tally {
    long n, still, wit, kill[3], known[3];
} tally;

static void tally_add(tally *t, const mrow *m)
{
    t->n++;
    if (m->state == -1)
        t->still++;
    if (m->state != KB_MUT_WITNESSED)
        return;
    t->wit++;
    int k[3] = {m->v[0].std_killed, m->v[0].killed, m->v[1].killed};
    for (int j = 0; j < 3; j++)
        if (k[j] >= 0) {
            t->known[j]++;
            t->kill[j] += k[j];
        }
}

static void md_rate(kbt_out *o, long kill, long known)
{
    if (!known)
        fprintf(o->f, " | -");
    else
        fprintf(o->f, " | %ld/%ld (%.1f%%)", kill, known, 100.0 * (double)kill / (double)known);
}

static void md_tally(kbt_out *o, const char *name, const tally *t)
{
    fprintf(o->f, "| %s | %ld | %ld | %ld", name, t->n, t->still, t->wit);
    for (int j = 0; j < 3; j++)
        md_rate(o, t->kill[j], t->known[j]);
    fprintf(o->f, " |\n");
}

/* Where the witness pool puts one mutant (m->state, entry, excess, reason); its fields from the
 * manifest are set. */
static void classify(mrow *m, const wit *W, size_t nw)
{
    kb_fmt(m->cell, sizeof m->cell, "mutants/%s/%s", m->problem, m->sample);
    m->entry = -1;
    m->excess = NAN;
    m->v[0].std_killed = m->v[0].killed = m->v[1].std_killed = m->v[1].killed = -1;
    const wit *w = NULL;
    for (size_t k = 0; k < nw && !w; k++)
        if (!strcmp(W[k].problem, m->problem))
            w = &W[k];
    long im = w ? wit_find(w, m->cell) : -1, io = w ? wit_find(w, m->origin) : -1;
    if (w && strcmp(w->root_outcome, "ok") != 0) {
        m->state = -2;
        kb_fmt(m->reason, sizeof m->reason, "%s: no witness run (its fp64 reference: %s, %.300s)", m->sample,
               w->root_outcome, w->root_detail);
        return;
    }
    if (im < 0 || io < 0) {
        m->state = -2;
        kb_fmt(m->reason, sizeof m->reason, "%s: no witness run (%s)", m->sample,
               !w ? "no witness artifact for the problem" : im < 0 ? "the mutant is not in it" : "its origin is not in it");
        return;
    }
    if (!strcmp(w->outcome[im], "compile_error")) {
        m->state = -1;
        kb_fmt(m->reason, sizeof m->reason, "%s: stillborn (%.300s)", m->sample, w->detail[im]);
        return;
    }
    kb_mut_row ro = wit_row(w, io), rm = wit_row(w, im);
    if (ro.call[0] < 0 && strcmp(w->outcome[io], "ok") != 0) {
        m->state = -3;
        kb_fmt(m->reason, sizeof m->reason, "%s: its origin %s did not run (%s)", m->sample, m->origin, w->outcome[io]);
        return;
    }
    m->tf32 = kb_mut_origin_tf32(&ro, w->skipped, w->K);
    int all_unrun = 1;
    for (size_t k = 0; k < w->K; k++)
        all_unrun &= rm.call[k] < 0;
    if (all_unrun && strcmp(w->outcome[im], "ok") != 0) {
        /* compiled, then failed before its first call (load error, a crash at start-up) */
        m->state = KB_MUT_WITNESSED;
        m->excess = INFINITY;
        for (size_t k = 0; k < w->K && m->entry < 0; k++)
            if (kb_mut_usable(&ro, w->skipped, k, m->tf32))
                m->entry = (int)k;
    } else {
        m->state = kb_mut_witness(&ro, &rm, w->skipped, w->K, m->tf32, &m->entry, &m->excess);
    }
    const char *en = m->entry >= 0 ? w->pool[m->entry] : "-";
    if (m->state == KB_MUT_WITNESSED)
        kb_fmt(m->reason, sizeof m->reason, "%s: witnessed on %s (%s)", m->sample, en,
               isinf(m->excess) ? w->outcome[im] : kbt_h_sig(m->excess, 0));
    else if (m->state == KB_MUT_UNDECIDED)
        kb_fmt(m->reason, sizeof m->reason, "%s: undecided: its run stopped on %s (%s), where the origin is out of bound too",
               m->sample, en, w->outcome[im]);
    else
        kb_fmt(m->reason, sizeof m->reason, "%s: not witnessed (within the %s bound on every usable entry; largest %s on %s)",
               m->sample, m->tf32 ? "TF32" : "fp32", isnan(m->excess) ? "-" : kbt_h_sig(m->excess, 0), en);
    if (m->tf32)
        kb_append(m->reason, sizeof m->reason, "TF32 origin");
}

/* --list-witnessed: the witnessed mutants, then their origins, each once. */
static int write_list(const mrow *M, size_t n, const char *list, kb_err *err)
{
    /* the witnessed mutants, then their origins, each once */
    kbt_out o;
    if (kbt_out_open(&o, err) != 0)
        return -1;
    size_t nwit = 0;
    for (size_t i = 0; i < n; i++)
        if (M[i].state == KB_MUT_WITNESSED) {
            fprintf(o.f, "%s\n", M[i].cell);
            nwit++;
        }
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(M[j].origin, M[i].origin);
        if (!seen)
            fprintf(o.f, "%s\n", M[i].origin);
    }
    char dir[1024], *slash;
    snprintf(dir, sizeof dir, "%s", list);
    const char *name = list;
    if ((slash = strrchr(dir, '/'))) {
        *slash = 0;
        name = slash + 1;
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    if (kbt_out_commit(&o, dir, name, err) != 0)
        return -1;
    printf("[mutation]     %zu of %zu mutants witnessed: %s\n", nwit, n, list);
    return 0;
}

/* The protocols' verdicts on the mutants the pool judged (and on unusable origins' mutants). */
static void add_verdicts(mrow *M, size_t n, const char *paper, const char *strict)
{
    for (size_t i = 0; i < n; i++) {
        mrow *m = &M[i];
        if (m->state < 0 && m->state != -3)
            continue;
        read_verdict(paper, m->cell, 0, &m->v[0]);
        read_verdict(strict, m->cell, m->tf32, &m->v[1]);
        if (m->state == KB_MUT_WITNESSED) {
            char t[300];
            if (m->v[1].killed == 0)
                kb_append(m->reason, sizeof m->reason, "SURVIVES strict");
            else if (m->v[1].killed == 1) {
                kb_fmt(t, sizeof t, "strict: %.200s", m->v[1].why);
                kb_append(m->reason, sizeof m->reason, t);
            }
            if (m->v[0].killed == 0)
                kb_append(m->reason, sizeof m->reason, "survives paper");
        }
    }
}

/* mutation.csv (the report's columns) and mutation-detail.csv, one row per mutant. */
static void write_rows(kbt_out *o, kbt_out *d, const mrow *M, size_t n, const wit *W, size_t nw)
{
    const char *cols[] = {"problem", "family", "rule", "witnessed", "killed_standard", "killed_paper", "killed_strict", "reason"};
    kbt_c_header(o, cols, 8);
    const char *dcols[] = {"cell", "problem", "origin", "family", "rule", "line", "before", "after", "state", "bound",
                           "witness_entry", "witness_excess", "killed_standard", "killed_paper", "killed_strict",
                           "paper_reason", "strict_reason"};
    kbt_c_header(d, dcols, 17);
    static const char *state_names[] = {"no_origin", "no_witness_run", "stillborn", "not_witnessed", "witnessed", "undecided"};
    for (size_t i = 0; i < n; i++) {
        const mrow *m = &M[i];
        const wit *w = NULL;
        for (size_t k = 0; k < nw && !w; k++)
            if (!strcmp(W[k].problem, m->problem))
                w = &W[k];
        int wd = m->state == KB_MUT_WITNESSED ? 1 : m->state == KB_MUT_NOT_WITNESSED ? 0 : -1;
        kbt_c_str(o, m->problem), kbt_c_str(o, m->family), kbt_c_str(o, m->rule), kbt_c_str(o, cellv(wd));
        kbt_c_str(o, cellv(m->v[0].std_killed)), kbt_c_str(o, cellv(m->v[0].killed)), kbt_c_str(o, cellv(m->v[1].killed));
        kbt_c_str(o, m->reason);
        kbt_c_end(o);
        kbt_c_str(d, m->cell), kbt_c_str(d, m->problem), kbt_c_str(d, m->origin), kbt_c_str(d, m->family);
        kbt_c_str(d, m->rule), kbt_c_str(d, m->line), kbt_c_str(d, m->before), kbt_c_str(d, m->after);
        kbt_c_str(d, state_names[m->state + 3]), kbt_c_str(d, m->state < 0 ? "" : m->tf32 ? "tf32" : "fp32");
        kbt_c_str(d, w && m->entry >= 0 ? w->pool[m->entry] : ""), kbt_c_num(d, m->excess);
        kbt_c_str(d, cellv(m->v[0].std_killed)), kbt_c_str(d, cellv(m->v[0].killed)), kbt_c_str(d, cellv(m->v[1].killed));
        kbt_c_str(d, m->v[0].why), kbt_c_str(d, m->v[1].why);
        kbt_c_end(d);
    }
}

/* The totals the last line prints. */
typedef struct totals {
    tally all;
    long nsurv, false_rej[3], n_orig;
} totals;

/* mutation-summary.md: kill rates per family and problem, the witnessing entries, the strict
 * survivors and the origins' false rejections. */
static void write_summary(kbt_out *s, const mrow *M, size_t n, const wit *W, size_t nw, const char *manifest,
                          const char *paper, const char *strict, totals *tot)
{
    tally all = {0}, fam[FAMS] = {{0}};
    for (size_t i = 0; i < n; i++) {
        tally_add(&all, &M[i]);
        int f = fam_index(M[i].family);
        if (f >= 0)
            tally_add(&fam[f], &M[i]);
    }
    long nowit = 0, notw = 0, und = 0;
    for (size_t i = 0; i < n; i++) {
        nowit += M[i].state == -2 || M[i].state == -3;
        notw += M[i].state == KB_MUT_NOT_WITNESSED;
        und += M[i].state == KB_MUT_UNDECIDED;
    }
    size_t nprob = 0;
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(M[j].problem, M[i].problem);
        nprob += !seen;
    }
    fprintf(s->f, "# Mutation report\n\n%zu mutants of %zu problems (%s): %ld stillborn, %ld witnessed, %ld not witnessed "
                 "(equivalent as far as the pool can tell), %ld undecided, %ld without a witness run.\n\n",
            n, nprob, manifest, all.still, all.wit, notw, und, nowit);
    fprintf(s->f, "Kill rates over the witnessed mutants (killed / witnessed with that protocol's artifacts):\n\n"
                 "| family | mutants | stillborn | witnessed | standard | paper | strict |\n|---|---|---|---|---|---|---|\n");
    for (int f = 0; f < FAMS; f++)
        md_tally(s, fam_names[f], &fam[f]);
    md_tally(s, "**all**", &all);
    fprintf(s->f, "\n| problem | mutants | stillborn | witnessed | standard | paper | strict |\n|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(M[j].problem, M[i].problem);
        if (seen)
            continue;
        tally t = {0};
        for (size_t j = i; j < n; j++)
            if (!strcmp(M[j].problem, M[i].problem))
                tally_add(&t, &M[j]);
        md_tally(s, M[i].problem, &t);
    }
    /* which entries witness what each protocol misses */
    fprintf(s->f, "\nThe witnessing entry (the first pool entry that exposes the mutant) of the witnessed mutants, and of "
                 "those each protocol lets through:\n\n| entry | witnessed | survive standard | survive paper | survive strict |\n"
                 "|---|---|---|---|---|\n");
    if (nw) {
        for (size_t k = 0; k < W[0].K; k++) {
            long c[4] = {0};
            for (size_t i = 0; i < n; i++) {
                const mrow *m = &M[i];
                if (m->state != KB_MUT_WITNESSED || m->entry != (int)k)
                    continue;
                c[0]++;
                c[1] += m->v[0].std_killed == 0;
                c[2] += m->v[0].killed == 0;
                c[3] += m->v[1].killed == 0;
            }
            if (c[0])
                fprintf(s->f, "| %s | %ld | %ld | %ld | %ld |\n", W[0].pool[k], c[0], c[1], c[2], c[3]);
        }
    }
    fprintf(s->f, "\nWitnessed mutants that survive strict:\n\n");
    long nsurv = 0;
    for (size_t i = 0; i < n; i++) {
        const mrow *m = &M[i];
        if (m->state != KB_MUT_WITNESSED || m->v[1].killed != 0)
            continue;
        nsurv++;
        fprintf(s->f, "- `%s` (%s, %s line %s: `%s` -> `%s`): %s\n", m->cell, m->rule, m->origin, m->line, kbt_md_esc(m->before),
                kbt_md_esc(m->after), m->reason);
    }
    if (!nsurv)
        fprintf(s->f, "(none)\n");
    /* the origins: false rejections */
    fprintf(s->f, "\nThe origins (correct samples): a rejection by a protocol is a false rejection.\n\n"
                 "| origin | bound | standard | paper | strict |\n|---|---|---|---|---|\n");
    long false_rej[3] = {0}, n_orig = 0;
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(M[j].origin, M[i].origin);
        if (seen)
            continue;
        verdict vp, vs;
        read_verdict(paper, M[i].origin, 0, &vp);
        read_verdict(strict, M[i].origin, M[i].tf32, &vs);
        const char *txt[3];
        int k[3] = {vp.std_killed, vp.killed, vs.killed};
        for (int j = 0; j < 3; j++) {
            txt[j] = k[j] < 0 ? "-" : k[j] ? "**rejected**" : "pass";
            false_rej[j] += k[j] == 1;
        }
        n_orig++;
        fprintf(s->f, "| %s | %s | %s | %s | %s%s%s |\n", M[i].origin, M[i].state == -3 ? "-" : M[i].tf32 ? "TF32" : "fp32",
                txt[0], txt[1], txt[2], vs.killed == 1 ? ": " : "", vs.killed == 1 ? vs.why : "");
    }
    fprintf(s->f, "\nFalse rejections of the %ld origins: standard %ld, paper %ld, strict %ld.\n", n_orig, false_rej[0],
            false_rej[1], false_rej[2]);
    tot->all = all;
    tot->nsurv = nsurv;
    tot->n_orig = n_orig;
    memcpy(tot->false_rej, false_rej, sizeof false_rej);
}

int main(int argc, char **argv)
{
    const char *manifest = "submissions/mutants/mutants.csv", *witness = NULL, *paper = NULL, *strict = NULL, *out = NULL,
               *list = NULL;
    kb_opt opts[] = {
        {"manifest", &manifest, NULL, "the mutants' manifest (default submissions/mutants/mutants.csv)"},
        {"witness", &witness, NULL, "* the witness artifacts (kb-witness), separated by spaces: one per problem"},
        {"paper", &paper, NULL, "the paper protocol's tree (artifacts/mutation/paper): <cell>/sanity-check.h5, verify-distributions.h5"},
        {"strict", &strict, NULL, "the strict protocol's tree (artifacts/mutation/strict)"},
        {"out", &out, NULL, "the directory for mutation.csv, mutation-detail.csv and mutation-summary.md"},
        {"list-witnessed", &list, NULL, "write the witnessed mutants and their origins to this file (one cell per line) and stop"},
    };
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(argc, argv,
                            "kb-mutation-report: the mutation report (docs/mutation.md). A mutant is witnessed when a pool\n"
                            "entry on which its origin stays within the rounding bound (fp32, or TF32 for an origin that\n"
                            "needs it) takes it beyond the bound or makes its call fail; each protocol kills it when its\n"
                            "standard check or its distributions reject it (strict: the TF32 verdict for a TF32 origin).\n"
                            "Usage: kb-mutation-report --witness 'W.h5 ...' (--out DIR [--paper TREE --strict TREE] |\n"
                            "       --list-witnessed FILE)\n"
                            "Exit codes: 0 written (mutants without evidence are reported as such); 1 an input could not be\n"
                            "read or an output written; 2 bad command line.",
                            opts, sizeof opts / sizeof opts[0], &cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("mutation-report", &err);
    if (!witness || (!out && !list)) {
        kb_errf(&err, KB_EXIT_USAGE, "--witness and one of --out, --list-witnessed are needed (--help)");
        return kb_stage_fail("mutation-report", &err);
    }
    kbt_csv man;
    if (kbt_csv_read(manifest, &man, &err) != 0)
        return kb_stage_fail("mutation-report", &err);
    const char *need[] = {"sample", "problem", "origin", "family", "rule", "line", "before", "after"};
    int col[8];
    for (int j = 0; j < 8; j++)
        if ((col[j] = kbt_csv_col(&man, need[j])) < 0) {
            kb_errf(&err, KB_EXIT_FAIL, "%s has no column %s (not a kb-mutate manifest?)", manifest, need[j]);
            return kb_stage_fail("mutation-report", &err);
        }
    static wit W[MAX_WIT];
    size_t nw = 0;
    char *wl = strdup(witness);
    for (char *t = strtok(wl, " \t\n"); t; t = strtok(NULL, " \t\n")) {
        if (nw == MAX_WIT) {
            kb_errf(&err, KB_EXIT_USAGE, "more than %d witness artifacts", MAX_WIT);
            return kb_stage_fail("mutation-report", &err);
        }
        if (read_wit(t, &W[nw], &err) != 0)
            return kb_stage_fail("mutation-report", &err);
        nw++;
    }
    size_t nm = man.n ? man.n - 1 : 0;
    mrow *M = calloc(nm ? nm : 1, sizeof *M);
    if (!M) {
        kb_errf(&err, KB_EXIT_FAIL, "out of memory");
        return kb_stage_fail("mutation-report", &err);
    }
    size_t n = 0;
    for (size_t i = 1; i < man.n; i++) {
        if (kbt_csv_blank(&man, i))
            continue;
        mrow *m = &M[n++];
        const char **f[] = {&m->sample, &m->problem, &m->origin, &m->family, &m->rule, &m->line, &m->before, &m->after};
        for (int j = 0; j < 8; j++)
            *f[j] = kbt_csv_cell(&man, i, col[j]);
        classify(m, W, nw);
    }
    if (list)
        return write_list(M, n, list, &err) != 0 ? kb_stage_fail("mutation-report", &err) : 0;
    add_verdicts(M, n, paper, strict);
    kbt_out o, d, s;
    if (kbt_out_open(&o, &err) || kbt_out_open(&d, &err) || kbt_out_open(&s, &err))
        return kb_stage_fail("mutation-report", &err);
    write_rows(&o, &d, M, n, W, nw);
    totals t;
    write_summary(&s, M, n, W, nw, manifest, paper, strict, &t);
    if (kb_mkdirs(out, &err) != 0 || kbt_out_commit(&o, out, "mutation.csv", &err) != 0 ||
        kbt_out_commit(&d, out, "mutation-detail.csv", &err) != 0 || kbt_out_commit(&s, out, "mutation-summary.md", &err) != 0)
        return kb_stage_fail("mutation-report", &err);
    printf("[mutation]     %zu mutants, %ld witnessed; killed: standard %ld, paper %ld, strict %ld (of %ld, %ld, %ld with "
           "artifacts); %ld strict survivors; origins falsely rejected: %ld/%ld/%ld of %ld; %s/mutation.csv\n",
           n, t.all.wit, t.all.kill[0], t.all.kill[1], t.all.kill[2], t.all.known[0], t.all.known[1], t.all.known[2], t.nsurv,
           t.false_rej[0], t.false_rej[1], t.false_rej[2], t.n_orig, out);
    kbt_csv_free(&man);
    free(M);
    free(wl);
    return 0;
}
