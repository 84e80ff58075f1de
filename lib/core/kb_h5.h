/*
 * kb_h5.h -- writing and reading the HDF5 artifacts (docs/artifacts.md is the schema).
 *
 * Writing is atomic: kb_h5w_create() opens "<path>.tmp.<pid>", and only kb_h5w_commit() makes
 * <path> appear (flush, fsync, rename, fsync of the directory). A writer that is aborted, or a
 * process that dies, leaves no file at <path>, so Make never mistakes partial work for finished
 * work, and a <path> from an earlier run stays intact until the new one replaces it whole.
 *
 * Errors are sticky: after the first failure every call returns -1 and does nothing, and
 * kb_h5w_commit() reports that first failure; callers may write a whole artifact and check once.
 * Paths of groups and datasets are absolute ("/timing/kernel/samples_ms"); missing parent groups
 * are created. Numeric arrays of 1024 elements or more are chunked and compressed (shuffle +
 * deflate): they are raw samples, kept at full precision.
 */
#ifndef KB_H5_H
#define KB_H5_H

#include <stddef.h>
#include <stdint.h>

#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_h5w kb_h5w;

kb_h5w *kb_h5w_create(const char *path, kb_err *err);
int kb_h5w_group(kb_h5w *w, const char *path);

/* Attributes on an existing object ("/" is the root group). */
int kb_h5w_attr_str(kb_h5w *w, const char *obj, const char *name, const char *value);
int kb_h5w_attr_i64(kb_h5w *w, const char *obj, const char *name, int64_t value);
int kb_h5w_attr_f64(kb_h5w *w, const char *obj, const char *name, double value);

/* Datasets. `units` (may be NULL) becomes the dataset's "units" attribute. dims has ndims
 * entries; ndims == 0 writes a scalar. */
int kb_h5w_f64(kb_h5w *w, const char *path, const double *data, int ndims, const uint64_t *dims, const char *units);
int kb_h5w_i64(kb_h5w *w, const char *path, const int64_t *data, int ndims, const uint64_t *dims, const char *units);
/* 1-D conveniences. */
int kb_h5w_f64v(kb_h5w *w, const char *path, const double *data, size_t n, const char *units);
int kb_h5w_i64v(kb_h5w *w, const char *path, const int64_t *data, size_t n, const char *units);
/* A text (scalar variable-length UTF-8 string) and an array of strings. */
int kb_h5w_text(kb_h5w *w, const char *path, const char *text);
int kb_h5w_strv(kb_h5w *w, const char *path, const char *const *strs, size_t n);

/* 0 if every call so far succeeded; the first error otherwise. */
int kb_h5w_ok(const kb_h5w *w, kb_err *err);
/* Closes, fsyncs and renames into place. Frees w in every case. */
int kb_h5w_commit(kb_h5w *w, kb_err *err);
/* Discards the temporary file. Frees w. */
void kb_h5w_abort(kb_h5w *w);

/* ---- reading ---------------------------------------------------------------------------- */
typedef struct kb_h5r kb_h5r;

kb_h5r *kb_h5r_open(const char *path, kb_err *err);
void kb_h5r_close(kb_h5r *r);
int kb_h5r_exists(kb_h5r *r, const char *path);
/* Attributes: 0 on success, -1 (with err) if missing or of another kind. */
int kb_h5r_attr_str(kb_h5r *r, const char *obj, const char *name, char *buf, size_t len, kb_err *err);
int kb_h5r_attr_i64(kb_h5r *r, const char *obj, const char *name, int64_t *value, kb_err *err);
int kb_h5r_attr_f64(kb_h5r *r, const char *obj, const char *name, double *value, kb_err *err);
/* Whole datasets as flat arrays (malloc'd; caller frees); *n = number of elements. */
int kb_h5r_f64(kb_h5r *r, const char *path, double **data, size_t *n, kb_err *err);
int kb_h5r_i64(kb_h5r *r, const char *path, int64_t **data, size_t *n, kb_err *err);
/* A text dataset (malloc'd). */
int kb_h5r_text(kb_h5r *r, const char *path, char **text, kb_err *err);
/* A string-array dataset: *strs is a malloc'd array of malloc'd strings; free with kb_h5r_free_strv. */
int kb_h5r_strv(kb_h5r *r, const char *path, char ***strs, size_t *n, kb_err *err);
void kb_h5r_free_strv(char **strs, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* KB_H5_H */
