/*
 * kb_import.h -- model-written KernelBench files, in KernelBench's own layouts, into a submission
 * tree (docs/prompts.md, "Importing KernelBench files").
 *
 * A directory FROM is walked (at most KB_IMPORT_DEPTH directories deep) and every file is either a
 * sample of (level, problem, sample) or not taken, with a reason that says what to do. The layouts,
 * by the file's path under FROM (L: level 1..3; P: problem id, 1-based, = our NNN; S: sample id,
 * 0-based, = our sK):
 *
 *   a KernelBench run folder  level_{L}_problem_{P}_sample_{S}_kernel.py (generate_samples.py's runs/<run>/)
 *   flattened                 <run>_level_{L}_problem_{P}_sample_{S}_kernel.py (any prefix ending in _)
 *   a raw KernelBench answer  [<run>_]level_{L}_problem_{P}_sample_{S}_response.txt with no kernel file
 *                             beside it: its one python block is extracted (kb_extract_response)
 *   generated_kernels         level_{L}_problem_{P}.py (sample 0), level_{L}_problem_{P}_sample_{S}.py
 *   per problem               level_{L}/problem_{P}/kernel.py (sample 0),
 *                             level_{L}/problem_{P}/sample_{S}/kernel.py
 *   make extract's responses  levelN/NNN_name/sK.txt: extracted (kb_extract_response, kernelbench)
 *   a submission tree         levelN/NNN_name/sK.py
 *
 * The problem must exist: problems/level{L}/{PPP}_<name>.py with PPP = P in three digits; the sample
 * goes to <submissions>/<model>/level{L}/{PPP}_<name>/s{S}.py. A .py file is the sample as it is, byte
 * for byte, when it is KernelBench format (kb_extract_file: text, not empty, a top-level class
 * ModelNew); otherwise the sample failed (not_text, empty, wrong_name), as a response whose
 * extraction failed does. Each sample is one row of <model>/extraction.csv, the manifest that
 * kb-extract writes (the same format, the same writer: kb_extract_write), so the tables count the
 * failed ones as failed samples.
 *
 * Not taken, and so no row (each with its reason, kb_import_skipped): a name no layout has, a level
 * other than 1-3, a problem that problems/ does not have, KernelBench's own records (eval results,
 * pass@k results, the generation config), a prompt, a raw answer beside its kernel file, hidden
 * entries, what is not a regular file or lies too deep, a duplicate (a second file that yields the
 * same sample), and every file of a sample that two different files claim (none of them is written).
 *
 * Ownership: a plan owns everything it holds (kb_import_plan_free); options are only read.
 */
#ifndef KB_IMPORT_H
#define KB_IMPORT_H

#include <stddef.h>

#include "llm/kb_extract.h"
#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How many directories below FROM are read; a deeper one is reported, not read. */
#define KB_IMPORT_DEPTH 8

typedef enum kb_import_layout {
    KB_IM_RUN = 0,      /* level_{L}_problem_{P}_sample_{S}_kernel.py */
    KB_IM_RUN_FLAT,     /* <run>_level_{L}_problem_{P}_sample_{S}_kernel.py */
    KB_IM_RUN_RESPONSE, /* [<run>_]level_{L}_problem_{P}_sample_{S}_response.txt, no kernel beside it */
    KB_IM_GENERATED,    /* level_{L}_problem_{P}[_sample_{S}].py */
    KB_IM_PER_PROBLEM,  /* level_{L}/problem_{P}/[sample_{S}/]kernel.py */
    KB_IM_RESPONSES,    /* levelN/NNN_name/sK.txt */
    KB_IM_TREE          /* levelN/NNN_name/sK.py */
} kb_import_layout;
#define KB_IM_N 7
const char *kb_import_layout_name(kb_import_layout l); /* "KernelBench run", ... */

/* Why a file was not taken. */
typedef enum kb_import_skip {
    KB_SKIP_NO_LAYOUT = 0, /* its name is in no layout */
    KB_SKIP_LEVEL,         /* a level other than 1, 2, 3 */
    KB_SKIP_PROBLEM,       /* a problem id (or problem directory) that problems/ does not have */
    KB_SKIP_RECORD,        /* records, not samples: KernelBench's eval_results.json, pass_at_k_results.json,
                              generation_config.yaml; a tree's extraction.csv */
    KB_SKIP_BESIDE,        /* a prompt, or a raw answer beside its kernel file */
    KB_SKIP_DUPLICATE,     /* yields the very sample another file gives (that one is taken) */
    KB_SKIP_CONFLICT,      /* one of two or more different files that claim one sample (none is taken) */
    KB_SKIP_HIDDEN,        /* a name starting with '.': not read */
    KB_SKIP_UNREADABLE     /* not a regular file, a link to a directory, a directory too deep */
} kb_import_skip;
#define KB_SKIP_N 9
const char *kb_import_skip_name(kb_import_skip k); /* "no layout", "unknown problem", ... */

typedef struct kb_import_skipped {
    char *path; /* as FROM/... */
    char *why;  /* what it is, and what to do */
    kb_import_skip kind;
} kb_import_skipped;

typedef struct kb_import_opts {
    const char *from;        /* the directory of KernelBench files */
    const char *submissions; /* the submissions root, "submissions" */
    const char *model;       /* letters, digits, '.', '_', '-' */
    const char *problems;    /* the problems root, "problems" */
} kb_import_opts;

typedef struct kb_import_plan {
    char mdir[4096], manifest[4096]; /* <submissions>/<model>, its extraction.csv */
    kb_extract_sample *rows;         /* the manifest's rows, sorted (problem, sample number) */
    size_t n;
    size_t by_layout[KB_IM_N];       /* rows per layout */
    kb_import_skipped *skipped;      /* every file not taken, sorted by path */
    size_t n_skipped;
    size_t by_skip[KB_SKIP_N];
    size_t files;                    /* files seen (regular files and links to them) */
    size_t most_per_problem;         /* rows of the problem that has most */
    long max_sample;                 /* the largest sample number, -1 if no row */
    int samples_per_problem;         /* max(most_per_problem, max_sample + 1): the N the files show */
    char config[4096];               /* a KernelBench generation_config.yaml seen, or "" */
} kb_import_plan;

/* Walks o->from and decides everything in memory; writes nothing. Fails (and the caller should
 * still kb_import_plan_free) when FROM is no directory (KB_EXIT_MISSING), the model name is bad
 * (KB_EXIT_USAGE), <submissions>/<model>/ exists and was not made by an extraction or an import
 * (kb_extract_claim: KB_EXIT_FAIL), or a file cannot be read (KB_EXIT_FAIL). A plan with no row
 * is no failure here (its skipped files say why); kb_import_write refuses it. */
int kb_import_plan_make(const kb_import_opts *o, kb_import_plan *p, kb_err *err);

/* Writes the plan's tree (kb_extract_write: the manifest, the samples, stale samples deleted;
 * unchanged files untouched). A plan without a row writes nothing (KB_EXIT_FAIL): an import that
 * found no sample is a wrong FROM, and would otherwise delete an earlier import's tree. */
int kb_import_write(kb_import_plan *p, kb_extract_row_fn on_row, void *ctx, kb_extract_summary *s, kb_err *err);

void kb_import_plan_free(kb_import_plan *p);

#ifdef __cplusplus
}
#endif

#endif /* KB_IMPORT_H */
