/*
 * kb_extract.h -- from a model's raw responses to a submission tree (docs/prompts.md).
 *
 * A response is one text file, RESPONSES/levelN/NNN_name/sK.txt: what the model answered to the
 * prompt of that problem (sample K). Extraction takes the ONE fenced code block that is the
 * answer and writes it as submissions/<model>/levelN/NNN_name/sK.py (style kernelbench) or sK.cu
 * (style abi), the layout the Makefile discovers. Every response gets a row in
 * submissions/<model>/extraction.csv (problem,sample,outcome,reason,source); a response that
 * yields no sample is recorded there with its outcome and reason, never dropped:
 *
 *   ok              one candidate block with the entry point: the sample was written
 *   not_text        a NUL byte: not a text response
 *   empty           nothing but white space
 *   truncated       a fence (or a leading <think> section) that never closes: the output was cut
 *   no_code_block   no fenced code block at all
 *   wrong_language  no block in the style's language (python; cuda/c++/c), only other ones
 *   several_blocks  more than one candidate block (the style's language or untagged): ambiguous
 *   wrong_name      the block defines no top-level class ModelNew (kernelbench) / no kb_forward
 *                   (abi)
 *
 * Fences follow CommonMark: a line of at least three ` or ~ indented by at most three spaces
 * opens a block; the info string's first word (lower case) is its language (a backtick fence's
 * info may not hold a backtick: ```python``` on one line is prose); the block closes at a line of
 * the same character, at least as long, with nothing after it; the opening line's indentation is
 * removed from the content. Line ends are normalised to LF and a UTF-8 byte-order mark dropped;
 * a response that begins with <think> is read from after its </think>.
 *
 * Writing is idempotent: a file whose bytes would not change is not touched (its mtime stays),
 * so a second extraction over the same responses changes nothing and Make stays incremental.
 *
 * Ownership: results own their strings (kb_extract_result_free); inputs are only read.
 */
#ifndef KB_EXTRACT_H
#define KB_EXTRACT_H

#include <stddef.h>

#include "llm/kb_prompt.h"
#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kb_extract_outcome {
    KB_EX_OK = 0,
    KB_EX_NOT_TEXT,
    KB_EX_EMPTY,
    KB_EX_TRUNCATED,
    KB_EX_NO_CODE_BLOCK,
    KB_EX_WRONG_LANGUAGE,
    KB_EX_SEVERAL_BLOCKS,
    KB_EX_WRONG_NAME
} kb_extract_outcome;
#define KB_EX_N 8

const char *kb_extract_outcome_name(kb_extract_outcome o); /* "ok", "no_code_block", ... */

typedef struct kb_extract_result {
    kb_extract_outcome outcome;
    char reason[512]; /* why (failures); where the block was (ok) */
    char *code;       /* ok: the sample's bytes, NUL-terminated (malloc'd); else NULL */
    size_t code_len;
} kb_extract_result;

/* Extracts the answer of one response (len bytes, need not be NUL-terminated) for `style`.
 * Returns 0 with the outcome in r (whatever it is), -1 only when out of memory. */
int kb_extract_response(const char *text, size_t len, kb_prompt_style style, kb_extract_result *r, kb_err *err);
/* A whole file taken as the sample, as it is (kb-import: a KernelBench-format file): the checks a
 * response's block gets, on the file (its line ends and byte-order mark read as a block's are):
 * not_text (a NUL byte), empty (nothing but white space), wrong_name (no top-level class ModelNew,
 * or no kb_forward for abi); else ok, and code is the file's bytes, unchanged. Returns 0 with the
 * outcome in r, -1 only when out of memory. */
int kb_extract_file(const char *text, size_t len, kb_prompt_style style, kb_extract_result *r, kb_err *err);
void kb_extract_result_free(kb_extract_result *r);

/* sK.<ext> -> K (decimal digits, at most 9), else -1. */
long kb_sample_number(const char *name, const char *ext);

/* Called once per row of a manifest, in its order (problem, then sample number). */
typedef void (*kb_extract_row_fn)(void *ctx, const char *problem, const char *sample, const kb_extract_result *r,
                                  const char *source);

/* One extraction run: every response under `responses` into <submissions>/<model>/. */
typedef struct kb_extract_opts {
    const char *responses;   /* RESPONSES: levelN/NNN_name/sK.txt */
    const char *submissions; /* the submissions root, "submissions" */
    const char *model;       /* letters, digits, '.', '_', '-' */
    const char *problems;    /* the problems root, "problems": each response must name one */
    kb_prompt_style style;
    kb_extract_row_fn on_row; /* once per response (may be NULL) */
    void *ctx;
} kb_extract_opts;

typedef struct kb_extract_summary {
    size_t responses;          /* rows of the manifest */
    size_t by_outcome[KB_EX_N];
    size_t written;            /* samples whose file was created or changed */
    size_t unchanged;          /* samples already as extracted */
    size_t removed;            /* sample files no longer extracted (stale), deleted */
    size_t ignored;            /* regular files at the root of RESPONSES (not responses) */
    int manifest_changed;
    char manifest[4096];       /* its path */
} kb_extract_summary;

/* Runs the extraction. Nothing is written when the responses directory holds an entry that is
 * no response (a bad name, a problem that does not exist: all listed in err, KB_EXIT_FAIL), when
 * it does not exist (KB_EXIT_MISSING), or when <submissions>/<model>/ exists but was not made by
 * an extraction (no extraction.csv: KB_EXIT_FAIL). In a tree made by an extraction, sample files
 * that this run does not write are deleted: the tree is exactly the responses' ok rows. */
int kb_extract_tree(const kb_extract_opts *o, kb_extract_summary *s, kb_err *err);

/* ---- a submission tree with its manifest: what kb-extract and kb-import share ---------------- */

/* One row of extraction.csv, and with outcome ok the bytes of its sample file. */
typedef struct kb_extract_sample {
    char problem[256]; /* level1/019_relu */
    char sample[32];   /* s0 */
    long num;          /* its number: s2 sorts before s10 */
    char source[4096]; /* the file it came from, as its directory was given */
    kb_extract_result res;
} kb_extract_sample;

/* <submissions>/<model>/ for a tool that owns the whole tree: the model name valid (else
 * KB_EXIT_USAGE), the directory absent, empty or holding an extraction.csv (an earlier
 * extraction's or import's; else KB_EXIT_FAIL, saying what to do). Writes nothing; gives the
 * directory's path and its manifest's. */
int kb_extract_claim(const char *submissions, const char *model, char *mdir, size_t mdir_len, char *manifest,
                     size_t manifest_len, kb_err *err);
/* Writes a claimed tree from rows decided in memory: sorts v (problem, then sample number), writes
 * the manifest, then every ok row's file <mdir>/<problem>/<sample>.<ext> and a level directory for
 * every level a row names, then deletes every sample file no ok row claims (kb_tree_prune). Files
 * whose bytes would not change are not touched. Fills s's counts (s->manifest is the caller's);
 * on_row (may be NULL) sees each row. v stays the caller's. */
int kb_extract_write(const char *mdir, const char *manifest, kb_extract_sample *v, size_t n, const char *ext,
                     kb_extract_row_fn on_row, void *ctx, kb_extract_summary *s, kb_err *err);

#ifdef __cplusplus
}
#endif

#endif /* KB_EXTRACT_H */
