/*
 * kb_mutate.h -- deterministic fault injection into correct submissions (docs/mutation.md).
 *
 * A mutant is an origin sample with exactly one fault: one rule applied at one site. The rules are
 * patterns over the tokens of the CUDA source, never over raw text, so nothing inside a comment, a
 * string literal or a character constant is ever changed:
 *   - a .cu is one CUDA region (the whole file);
 *   - a .py (KernelBench format) has one region per triple-quoted Python string whose value reaches a
 *     load_inline call's cuda_sources= (the literal itself, a name assigned that literal, or a list of
 *     such names); its Python code, its cpp_sources and its other strings are never touched.
 * The scanner (kb_mut_tokenize) knows C/CUDA lexemes: identifiers, numbers, string and character
 * literals (kept whole, never mutated), punctuators (longest match: <<< >>> -> += ...), comments
 * (skipped) and preprocessor lines (their tokens are marked pp; only a #define's body is open to the
 * constant rules).
 *
 * Determinism: kb_mutate_find lists the mutants of a source in a fixed order: the rules in the
 * order of kb_mut_rules(), each rule's sites by position (line, column). A mutant whose text equals
 * the origin or an earlier mutant of the same origin is left out. The same bytes give the same list.
 *
 * Ownership: lists own their strings (kb_mutant_list_free); the source is only read. Offsets are
 * bytes into the whole source file; lines and columns count from 1.
 */
#ifndef KB_MUTATE_H
#define KB_MUTATE_H

#include <stddef.h>

#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the scanner ------------------------------------------------------------------------------ */

typedef enum kb_tok_kind { KB_TK_IDENT, KB_TK_NUMBER, KB_TK_STRING, KB_TK_CHAR, KB_TK_PUNCT } kb_tok_kind;

typedef struct kb_tok {
    kb_tok_kind kind;
    size_t off, len; /* bytes of the source */
    int line, col;
    int pp;     /* 1: on a preprocessor line; 2: in the body of a #define (after its name) */
    long match; /* ( [ {: the index of the closing token, and back; -1 for others (or unbalanced) */
} kb_tok;

typedef struct kb_toks {
    kb_tok *v;
    size_t n, cap;
} kb_toks;

/* Appends the tokens of src[lo, hi) to t; `line` is the line number at lo. -1 only out of memory. */
int kb_mut_tokenize(const char *src, size_t lo, size_t hi, int line, kb_toks *t, kb_err *err);
void kb_toks_free(kb_toks *t);

/* The CUDA regions of a source: [lo, hi) byte ranges. A .cu gives one (the whole file); a .py one
 * per cuda_sources string (above). Returns the count (0: nothing to mutate), -1 out of memory. */
typedef struct kb_region {
    size_t lo, hi;
    int line;
} kb_region;
int kb_mut_regions(const char *src, size_t len, int is_py, kb_region **regions, kb_err *err);

/* ---- rules and mutants ------------------------------------------------------------------------ */

typedef struct kb_mut_rule {
    const char *name;   /* "boundary.lt_to_le": family.rule, stable */
    const char *family; /* boundary, sync, precision, indexing, arithmetic, semantics */
    const char *doc;    /* what it matches and what it writes */
} kb_mut_rule;

/* The rules in their fixed order; *n = their count. */
const kb_mut_rule *kb_mut_rules(size_t *n);
#define KB_MUT_FAMILIES "boundary sync precision indexing arithmetic semantics"

typedef struct kb_edit {
    size_t off, len; /* replace src[off, off+len) ... */
    char *text;      /* ... by this (malloc'd) */
} kb_edit;

typedef struct kb_mutant {
    const kb_mut_rule *rule;
    int line, col;      /* the site (the first token changed) */
    char before[200];   /* the site's text before and after, on one line (for the manifest) */
    char after[200];
    kb_edit edit[2];    /* the fault, and an #include it needs (or len 0, text NULL) */
    int n_edits;
    char *text;         /* the whole mutated source (malloc'd) */
    size_t text_len;
} kb_mutant;

typedef struct kb_mutant_list {
    kb_mutant *v;
    size_t n, cap;
} kb_mutant_list;

/* Every mutant of one source (is_py: KernelBench format), in the canonical order. 0, or -1 out of
 * memory. */
int kb_mutate_find(const char *src, size_t len, int is_py, kb_mutant_list *out, kb_err *err);
void kb_mutant_list_free(kb_mutant_list *l);

/* ---- a tree of mutants (lib/mutation/mutate_tree.c) ---------------------------------------------------- */

/* kb_mutate_tree: every sample of the origins (model directories, or single sample files
 * <model>/levelN/NNN_name/sK.{cu,py}) into out/levelN/NNN_name/sK.{cu,py}, numbered per problem in
 * the order origins (as given) > samples (s0, s1, ... s10) > rules > sites, and out/mutants.csv:
 *   sample,problem,origin,family,rule,line,before,after,compiled,compile_error
 * (RFC 4180; compiled: 1, 0 (stillborn: compile_error is nvcc's first error line) or empty when not
 * checked). Files whose bytes would not change are not touched; samples of an earlier run that this
 * one does not write are deleted. out must be absent, empty or an earlier run's (has mutants.csv). */
typedef struct kb_mutate_opts {
    const char *const *origins;
    size_t n_origins;
    const char *out;
    /* the compile check (compile_check != 0): every .cu mutant through nvcc as kb-compile builds it
     * (-std=c++17 -O3 gencode -Xcompiler -fPIC,-fvisibility=hidden -I include), to an object only;
     * results cached by the mutant's bytes and the flags in `cache` (a TSV file; NULL: none) */
    int compile_check;
    const char *nvcc, *gencode, *include, *cache;
    int jobs;
    double timeout_s;
    size_t limit; /* check at most this many (0: all): the rest stay unchecked */
    /* at most this many sites per rule and origin sample (0: all), spread evenly over the rule's
     * sites in source order (site j of c kept when it is the first at or after (i + 1/2) c / N
     * for some i < N): a sample of the mutants the same on every run */
    size_t per_rule;
    size_t per_rule_py; /* the same for a .py origin (each .py mutant is a 40-90 s extension build); 0: per_rule */
} kb_mutate_opts;

typedef struct kb_mutate_summary {
    size_t origins, mutants, written, unchanged, removed;
    size_t by_family[6];
    size_t checked, compiled, stillborn, cached;
    char manifest[4096];
    int manifest_changed;
} kb_mutate_summary;

int kb_mutate_tree(const kb_mutate_opts *o, kb_mutate_summary *s, kb_err *err);
/* index of a family name in KB_MUT_FAMILIES, -1 if none */
int kb_mut_family_index(const char *family);

#ifdef __cplusplus
}
#endif

#endif /* KB_MUTATE_H */
