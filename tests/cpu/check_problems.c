/*
 * check_problems.c -- a checker for tests/cpu/compile_all.sh (built by the Makefile's test rule:
 * `make $BUILD/tests/check_problems`; it is not a cmocka test and `make test-unit` does not run it).
 *
 *   check_problems problems ROOT SO...   load every problem object with kb_problem_load (dlopen,
 *                                        descriptor validation), check that its id is its path
 *                                        under ROOT (ROOT/level1/019_relu.so -> level1/019_relu),
 *                                        that it exports only kb_problem_descriptor, that flops
 *                                        and bytes are positive, and print a table.
 *   check_problems specs SO...           print every tensor of each descriptor (id, kind, name,
 *                                        dtype, shape, generator), for tests/cpu/spec_match.py
 *   check_problems outcomes H5...        print "outcome<TAB>verdict<TAB>reasons<TAB>wall_s<TAB>detail"
 *                                        of each compile.h5, one line per file.
 * Exit 0 if every object / artifact could be checked and passed, 1 otherwise.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/kb_elf.h"
#include "core/kb_h5.h"
#include "core/kb_problem_load.h"
#include "core/kb_util.h"

static int check_problem(const char *root, const char *so)
{
    kb_err err = {0};
    void *h = NULL;
    const kb_problem *p = kb_problem_load(so, &h, &err);
    if (!p) {
        printf("FAIL %s: %s\n", so, err.msg);
        return 1;
    }
    int bad = 0;
    char want[512];
    size_t rl = strlen(root);
    const char *rel = strncmp(so, root, rl) == 0 ? so + rl + (so[rl] == '/') : so;
    snprintf(want, sizeof want, "%.*s", (int)(strlen(rel) > 3 ? strlen(rel) - 3 : 0), rel);
    if (strcmp(want, p->id) != 0) {
        printf("FAIL %s: descriptor id \"%s\", but the file says \"%s\"\n", so, p->id, want);
        bad = 1;
    }
    kb_elf_syms syms;
    if (kb_elf_read(so, &syms, &err) != 0) {
        printf("FAIL %s: %s\n", so, err.msg);
        bad = 1;
    } else {
        if (syms.n_exports != 1 || strcmp(syms.exports[0], KB_PROBLEM_SYMBOL) != 0) {
            printf("FAIL %s: exports %zu symbols (", so, syms.n_exports);
            for (size_t i = 0; i < syms.n_exports && i < 8; i++)
                printf("%s%s", i ? " " : "", syms.exports[i]);
            printf("), want only %s\n", KB_PROBLEM_SYMBOL);
            bad = 1;
        }
        kb_elf_free(&syms);
    }
    if (!(p->flops > 0) || !(kb_problem_bytes(p) > 0)) {
        printf("FAIL %s: flops %g, bytes %g must be positive\n", so, p->flops, kb_problem_bytes(p));
        bad = 1;
    }
    char res[32];
    kb_fmt_bytes(res, sizeof res, (double)kb_problem_resident_bytes(p));
    printf("%-4s %-32s %-28.28s %2u in %u out  resident %10s  %9.3g FLOP  %9.3g B%s\n", bad ? "FAIL" : "ok", p->id,
           p->title, p->n_inputs, p->n_outputs, res, p->flops, kb_problem_bytes(p),
           p->flags & KB_PROB_EXCLUDED ? "  (excluded)" : "");
    /* dlclose is skipped on purpose: CUDA libraries do not like being unloaded mid-process */
    return bad;
}

static int print_outcome(const char *path)
{
    kb_err err = {0};
    kb_h5r *r = kb_h5r_open(path, &err);
    if (!r) {
        printf("unreadable\t-\t-\t-\t%s\n", err.msg);
        return 1;
    }
    char outcome[64] = "?", verdict[64] = "?", reasons[512] = "", detail[1024] = "";
    double wall = -1;
    int rc = kb_h5r_attr_str(r, "/", "outcome", outcome, sizeof outcome, &err);
    kb_h5r_attr_f64(r, "/", "wall_s", &wall, NULL);
    kb_h5r_attr_str(r, "/symbols", "verdict", verdict, sizeof verdict, NULL);
    kb_h5r_attr_str(r, "/symbols", "reasons", reasons, sizeof reasons, NULL);
    kb_h5r_attr_str(r, "/", "outcome_detail", detail, sizeof detail, NULL);
    kb_h5r_close(r);
    for (char *c = detail; *c; c++)
        if (*c == '\t' || *c == '\n')
            *c = ' ';
    printf("%s\t%s\t%s\t%.1f\t%s\n", rc == 0 ? outcome : "unreadable", verdict, reasons[0] ? reasons : "-", wall,
           rc == 0 ? detail : err.msg);
    return rc != 0;
}

/* One line per tensor: id, kind (input/param/state/output), name, dtype, shape (comma-separated, "" for
 * 0-d), generator kind -- what tests/cpu/spec_match.py compares with the problem's .py. */
static int print_specs(const char *so)
{
    kb_err err = {0};
    void *h = NULL;
    const kb_problem *p = kb_problem_load(so, &h, &err);
    if (!p) {
        printf("FAIL\t%s\t%s\n", so, err.msg);
        return 1;
    }
    static const char *dt[] = {"float32", "float16", "bfloat16", "float64", "int64", "int32", "bool"};
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t n = k ? p->n_outputs : p->n_inputs;
        const kb_tensor_spec *t = k ? p->outputs : p->inputs;
        for (uint32_t i = 0; i < n; i++) {
            printf("%s\t%s\t%s\t%s\t", p->id, k ? "output" : t[i].role == KB_ROLE_PARAM ? "param" : t[i].role == KB_ROLE_STATE ? "state" : "input",
                   t[i].name, (unsigned)t[i].dtype < 7 ? dt[t[i].dtype] : "?");
            for (int d = 0; d < t[i].ndim; d++)
                printf("%s%lld", d ? "," : "", (long long)t[i].shape[d]);
            printf("\t%d\n", (int)t[i].gen.kind);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "specs")) {
        int bad = 0;
        for (int i = 2; i < argc; i++)
            bad |= print_specs(argv[i]);
        return bad;
    }
    if (argc >= 3 && !strcmp(argv[1], "problems")) {
        int bad = 0;
        for (int i = 3; i < argc; i++)
            bad |= check_problem(argv[2], argv[i]);
        return bad;
    }
    if (argc >= 2 && !strcmp(argv[1], "outcomes")) {
        int bad = 0;
        for (int i = 2; i < argc; i++)
            bad |= print_outcome(argv[i]);
        return bad;
    }
    fprintf(stderr, "usage: check_problems problems ROOT SO... | check_problems specs SO... | check_problems outcomes H5...\n");
    return 2;
}
