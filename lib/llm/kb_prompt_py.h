/*
 * kb_prompt_py.h -- a small, static reader of Python source: enough to cut a KernelBench problem
 * file into its top-level statements (imports, classes, functions, assignments) for the prompts,
 * and to find `class ModelNew` in an extracted answer. Nothing is imported or run.
 *
 * What it understands: strings (', ", ''', """, any prefix; escapes), comments, bracket nesting
 * and backslash continuations, so that a statement is one LOGICAL line plus its indented body.
 * What it does not: f-string nesting beyond quotes, tabs vs spaces semantics (any leading white
 * space is "indented"), encodings other than ASCII-compatible ones. Errors do not occur: invalid
 * Python gives some split, never a crash (an unterminated string ends at its line, or at the end
 * of the source for a triple-quoted one).
 *
 * Ownership: a kb_py_module points into the caller's source (which must outlive it) and owns
 * its mask and statement array (kb_py_free). Offsets are bytes into that source.
 */
#ifndef KB_PROMPT_PY_H
#define KB_PROMPT_PY_H

#include <stddef.h>

#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kb_py_kind {
    KB_PY_BLANK = 0,   /* an empty line */
    KB_PY_COMMENT = 1, /* a line that holds only a comment (any indentation) */
    KB_PY_IMPORT = 2,  /* import x / from x import y */
    KB_PY_CLASS = 3,   /* class NAME...: and its body */
    KB_PY_DEF = 4,     /* def NAME(...): / async def, and its body */
    KB_PY_ASSIGN = 5,  /* NAME = ... (also a = b = ..., a, b = ...) */
    KB_PY_OTHER = 6    /* anything else (a call, a decorator line, if __name__ ...) */
} kb_py_kind;

/* One top-level statement: whole lines [begin, end) of the source (end is after its last
 * newline, or the source's end). Blank and comment lines between statements are statements of
 * their own; those inside a body (followed by more of it) belong to the body. */
typedef struct kb_py_stmt {
    kb_py_kind kind;
    size_t begin, end;
    int line;       /* first line, 1-based */
    char name[64];  /* CLASS / DEF: its name; ASSIGN: the first target; else "" */
} kb_py_stmt;

typedef struct kb_py_module {
    const char *src; /* not owned */
    size_t len;
    char *mask;      /* src with comments blanked and string bytes as '$' (newlines kept) */
    kb_py_stmt *stmts;
    size_t n;
} kb_py_module;

/* Splits src. -1 (err: out of memory) only if an allocation fails. */
int kb_py_parse(const char *src, size_t len, kb_py_module *m, kb_err *err);
void kb_py_free(kb_py_module *m);

/* The index of the first statement of `kind` named `name`, or -1. */
long kb_py_find(const kb_py_module *m, kb_py_kind kind, const char *name);

/* The targets of assignment statement k (up to max names of up to 64 bytes each) and where its
 * value starts (*rhs: an offset; the value runs to the end of the statement). Returns the
 * number of targets; 0 if k is no assignment. A chained `a = b = v` gives a and b; a tuple
 * `a, b = v` gives a and b too (*single = 0: the value is not theirs one to one). */
size_t kb_py_assign_targets(const kb_py_module *m, size_t k, char (*names)[64], size_t max, size_t *rhs, int *single);

/* The code of [begin, end) as one line: comments dropped, runs of white space outside strings
 * made one space, leading and trailing space trimmed. Identifiers listed in `names` (n of them,
 * not after a '.') are replaced by values[i] (already flattened). Returns a malloc'd string, or
 * NULL (out of memory). */
char *kb_py_flatten(const kb_py_module *m, size_t begin, size_t end, const char *const *names, const char *const *values,
                    size_t n);

/* [*b, *e) of the bracket group whose opening bracket is at offset `open` (its contents, without
 * the brackets); -1 if it does not close before `limit`. */
int kb_py_group(const kb_py_module *m, size_t open, size_t limit, size_t *b, size_t *e);

/* Splits [begin, end) at its top-level commas into at most max items ([b, e) pairs, trimmed,
 * empty items dropped: a trailing comma). Returns the number of items. */
size_t kb_py_split_commas(const kb_py_module *m, size_t begin, size_t end, size_t (*items)[2], size_t max);

/* The offset of the identifier `word` (whole word, in code) in [begin, end), or -1. */
long kb_py_find_word(const kb_py_module *m, size_t begin, size_t end, const char *word);

/* Is byte i code (not a string, not a comment)? */
int kb_py_is_code(const kb_py_module *m, size_t i);

#ifdef __cplusplus
}
#endif

#endif /* KB_PROMPT_PY_H */
