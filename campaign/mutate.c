/*
 * kb-mutate -- deterministic fault injection into correct submissions (docs/mutation.md).
 * Needs no GPU (nvcc only, for --compile-check).
 *
 *   kb-mutate --origin 'submissions/demo-naive submissions/demo-kernelbench' --out submissions/mutants
 *
 * writes one mutant per (sample, rule, site) as out/levelN/NNN_name/sK.{cu,py} and out/mutants.csv.
 * The rules are lib/mutation/mutate.c's (kb_mutate.h); --list-rules prints them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutation/kb_mutate.h"
#include "core/kb_stage.h"

int main(int argc, char **argv)
{
    const char *origins = NULL, *out = NULL, *nvcc = "/usr/local/cuda/bin/nvcc", *include = "include", *cache = NULL,
               *gencode = "-gencode=arch=compute_90,code=[sm_90,compute_90]", *jobs = "1", *limit = "0", *per_rule = "0", *per_rule_py = "0";
    int check = 0, list = 0;
    kb_opt opts[] = {
        {"origin", &origins, NULL,
         "* the origins, separated by spaces or commas: model directories (submissions/demo-naive) or samples "
         "(<model>/levelN/NNN_name/sK.cu|py)"},
        {"out", &out, NULL, "* the mutants' model directory (submissions/mutants): absent, empty or an earlier run's"},
        {"compile-check", NULL, &check, "compile every .cu mutant (nvcc, to an object); stillborn ones are recorded"},
        {"nvcc", &nvcc, NULL, "nvcc to use (default /usr/local/cuda/bin/nvcc)"},
        {"gencode", &gencode, NULL, "nvcc's -gencode flags (default sm_90 + compute_90, as kb-compile)"},
        {"include", &include, NULL, "the directory holding kb/submission.h (default include)"},
        {"cache", &cache, NULL, "the compile results by content, a TSV file reused across runs (default none)"},
        {"jobs", &jobs, NULL, "parallel nvcc processes (default 1)"},
        {"limit", &limit, NULL, "compile at most this many unchecked mutants (default 0: all)"},
        {"per-rule", &per_rule, NULL, "at most this many sites per rule and origin sample, spread evenly (default 0: all)"},
        {"per-rule-py", &per_rule_py, NULL, "the same for a .py origin (default 0: as --per-rule)"},
        {"list-rules", NULL, &list, "print the rules (name, family, what each matches) and exit"},
    };
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--list-rules"))
            list = 1;
    int pr = list ? 0
                  : kb_stage_parse(argc, argv,
                                   "kb-mutate: one fault per mutant, from every applicable rule at every applicable site of\n"
                                   "every sample of the origins (.cu: the whole file; .py: the CUDA strings passed to\n"
                                   "load_inline's cuda_sources), never inside comments or string literals. Writes\n"
                                   "OUT/levelN/NNN_name/sK.{cu,py} (numbered per problem: origins as given, samples, rules,\n"
                                   "sites by line) and OUT/mutants.csv (sample,problem,origin,family,rule,line,before,after,\n"
                                   "compiled,compile_error). Deterministic; unchanged files are not touched; stale samples\n"
                                   "are deleted. Families: " KB_MUT_FAMILIES ".\n"
                                   "Usage: kb-mutate --origin 'DIR|SAMPLE ...' --out DIR [--compile-check [--jobs N]]\n"
                                   "Exit codes: 0 the tree and manifest were written (stillborn mutants included); 1 it could\n"
                                   "not (an I/O error, OUT not made by kb-mutate); 2 bad command line; 4 an origin does not exist.",
                                   opts, sizeof opts / sizeof opts[0], &cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("mutate", &err);
    if (list) {
        size_t n;
        const kb_mut_rule *r = kb_mut_rules(&n);
        for (size_t k = 0; k < n; k++)
            printf("%-30s %-11s %s\n", r[k].name, r[k].family, r[k].doc);
        return 0;
    }
    const char *counts[][2] = {{"limit", limit}, {"per-rule", per_rule}, {"per-rule-py", per_rule_py}, {"jobs", jobs}};
    for (size_t k = 0; k < 4; k++)
        if (!counts[k][1][0] || strspn(counts[k][1], "0123456789") != strlen(counts[k][1])) {
            kb_errf(&err, KB_EXIT_USAGE, "--%s %s: a whole number >= 0 is needed", counts[k][0], counts[k][1]);
            return kb_stage_fail("mutate", &err);
        }
    char *buf = strdup(origins);
    const char *names[256];
    size_t n_origins = 0;
    for (char *t = strtok(buf, " ,\t\n"); t && n_origins < 256; t = strtok(NULL, " ,\t\n"))
        names[n_origins++] = t;
    kb_mutate_opts o = {.origins = names, .n_origins = n_origins, .out = out, .compile_check = check, .nvcc = nvcc,
                        .gencode = gencode, .include = include, .cache = cache, .jobs = atoi(jobs),
                        .timeout_s = cfg.compile_timeout_s, .limit = (size_t)strtoull(limit, NULL, 10),
                        .per_rule = (size_t)strtoull(per_rule, NULL, 10),
                        .per_rule_py = (size_t)strtoull(per_rule_py, NULL, 10)};
    kb_mutate_summary s;
    int rc = kb_mutate_tree(&o, &s, &err);
    free(buf);
    if (rc != 0)
        return kb_stage_fail("mutate", &err);
    printf("[mutate]       %zu origin samples -> %zu mutants (%zu written, %zu unchanged, %zu stale deleted):", s.origins,
           s.mutants, s.written, s.unchanged, s.removed);
    const char *fam[] = {"boundary", "sync", "precision", "indexing", "arithmetic", "semantics"};
    for (int f = 0; f < 6; f++)
        printf(" %s %zu", fam[f], s.by_family[f]);
    printf("\n[mutate]       compile: %zu compiled, %zu stillborn (%zu checked now, %zu from the cache); %s%s\n",
           s.compiled, s.stillborn, s.checked, s.cached, s.manifest, s.manifest_changed ? "" : " (unchanged)");
    return 0;
}
