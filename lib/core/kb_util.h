/*
 * kb_util.h -- errors as values, time, paths and small string helpers for the host library.
 *
 * Errors: functions that can fail take a kb_err * (may be NULL) and return 0 / -1 or a pointer /
 * NULL. The message says what failed and, where the fix is knowable, what to do. The library
 * never exits; only stage mains choose exit codes (kb_exit_code below).
 */
#ifndef KB_UTIL_H
#define KB_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_err {
    int code;       /* one of kb_exit_code, for the stage main */
    char msg[1024]; /* "" when no error */
} kb_err;

/* Exit codes shared by every stage (documented in each --help). */
typedef enum kb_exit_code {
    KB_EXIT_OK = 0,      /* the stage's artifact was written (whatever the cell's verdict) */
    KB_EXIT_FAIL = 1,    /* the stage could not do its job (I/O error, bad artifact, ...) */
    KB_EXIT_USAGE = 2,   /* bad command line */
    KB_EXIT_NO_GPU = 3,  /* a GPU stage found no usable CUDA device */
    KB_EXIT_MISSING = 4  /* a needed input (problem, submission, artifact) does not exist */
} kb_exit_code;

int kb_errf(kb_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Monotonic clock in nanoseconds / seconds. */
uint64_t kb_now_ns(void);
double kb_now_s(void);
/* Retry a step that can fail for a while (device memory held by the stages beside this one):
 * try() returns 0 (done), 1 (transient: try again) or -1 (permanent). It is called until it
 * returns 0 or -1, or until max_s seconds have passed since the first call, sleeping sleep_s
 * between calls; the first call is always made. Returns try()'s last value; *tries (may be
 * NULL) the number of calls. on_wait (may be NULL) is called once, after the first transient
 * failure, before the first sleep. */
int kb_retry(int (*try_fn)(void *ctx), void *ctx, double max_s, double sleep_s, void (*on_wait)(void *ctx), int *tries);
/* Current UTC time as ISO 8601 ("2026-11-29T14:37:40Z"). */
/* Progress of a make run: when make sets KB_PROGRESS_FILE, KB_PROGRESS_TOTAL and KB_PROGRESS_T0,
 * appends "stage<TAB>model<TAB>problem<TAB>sample<TAB>result" to the file (under a lock) and
 * writes "[k/N, ETA 3m05s] " to tag (k: lines so far; the ETA from the run's mean pace), else "". */
void kb_progress_tag(const char *stage, const char *model, const char *problem, const char *sample, const char *result,
                     char *tag, size_t n);

/* The artifact format's version (root attribute schema_version of every file). */
#define KB_SCHEMA_VERSION 1

/* `--version`: "<prog> <revision> (artifact schema N)"; the revision is $KB_GIT_REV (make exports
 * it) or the REVISION file make writes beside bin/ (BUILD/REVISION), else "unknown". Returns 1
 * if argv holds --version (printed), else 0. */
int kb_version_arg(int argc, char **argv, const char *prog);
/* Now, UTC, ISO 8601 with milliseconds: 2026-12-01T13:46:12.345Z */
void kb_utc_iso(char *buf, size_t len);

/* mkdir -p for the directory part of `path` (everything before the last '/'). */
int kb_mkdirs_for(const char *path, kb_err *err);
int kb_mkdirs(const char *dir, kb_err *err);

/* Reads a whole file (NUL-terminated); *len excludes the NUL. NULL + err on failure. */
char *kb_read_file(const char *path, size_t *len, kb_err *err);
/* Writes a whole file atomically (temp file in the same directory, fsync, rename). */
int kb_write_file_atomic(const char *path, const void *data, size_t len, kb_err *err);
/* kb_write_file_atomic unless path already holds exactly these bytes (its date then stays, so
 * Make sees nothing new); *changed says which. */
int kb_write_if_changed(const char *path, const void *data, size_t len, int *changed, kb_err *err);
/* Whether a tool that owns a whole tree (kb-extract, kb-mutate: they delete what they did not
 * write) may write it at `dir`: 0 when dir is absent, an empty directory, or holds `manifest` (the
 * tool's own earlier tree); 1 when it holds anything else; 2 when it exists and is not a
 * directory. Entries starting with '.' do not count. */
int kb_tree_claimable(const char *dir, const char *manifest);
/* Such a tool's clean-up: deletes every sample file (sK.cu, sK.py) under root/levelN/<problem>/
 * that keep(problem id "levelN/NNN_name", file name, ctx) does not claim, then the problem and
 * level directories left empty; other files stay. `what` names a sample in the error ("stale
 * mutant"); *removed counts the deletions. 0, or -1 with err at the first file it cannot delete. */
int kb_tree_prune(const char *root, int (*keep)(const char *problem, const char *file, void *ctx), void *ctx,
                  const char *what, size_t *removed, kb_err *err);
int kb_file_exists(const char *path);

/* snprintf into a fixed buffer; returns -1 if truncated. */
int kb_fmt(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* FNV-1a 64-bit hash, and a mixing step for deriving seeds. */
uint64_t kb_fnv1a64(const void *data, size_t len, uint64_t h);
uint64_t kb_mix64(uint64_t x);

/* "1.23 ms", "45.6 us": a duration for humans. */
void kb_fmt_ms(char *buf, size_t len, double ms);
/* "6.00 GiB": a byte count for humans. */
void kb_fmt_bytes(char *buf, size_t len, double bytes);

#ifdef __cplusplus
}
#endif

#endif /* KB_UTIL_H */
