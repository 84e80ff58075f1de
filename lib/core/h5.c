/* h5.c -- see kb_h5.h. */
#include "core/kb_h5.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

struct kb_h5w {
    hid_t file;
    char path[4096];
    char tmp[4200];
    int failed;
    kb_err err;
};

struct kb_h5r {
    hid_t file;
    char path[4096];
};

/* HDF5 prints its error stack by default; we report our own messages instead.
 * H5dont_atexit: HDF5 1.10 crashes (SIGSEGV in H5F__close_cb) when its exit handler closes a
 * file whose H5Fclose already failed (disk full, file too large), turning a clean "cannot
 * write" into a segfault of the stage. Every file here is closed explicitly, so its exit
 * cleanup is not needed. It must precede any other HDF5 call (tests/cpu/test_h5.c checks). */
static void quiet_hdf5(void)
{
    static int done;
    if (!done) {
        H5dont_atexit();
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        done = 1;
    }
}

static int wfail(kb_h5w *w, const char *what, const char *obj)
{
    int e = errno; /* the failed write's, when HDF5 failed in write() */
    if (!w->failed) {
        w->failed = 1;
        kb_errf(&w->err, KB_EXIT_FAIL, "HDF5: cannot %s %s in %s%s%s%s", what, obj, w->tmp,
                e == ENOSPC || e == EFBIG ? ": " : "", e == ENOSPC || e == EFBIG ? strerror(e) : "",
                e == ENOSPC || e == EFBIG ? " (disk full or file too large: free space and re-run make; finished results are kept)" : "");
    }
    return -1;
}

kb_h5w *kb_h5w_create(const char *path, kb_err *err)
{
    quiet_hdf5();
    kb_h5w *w = calloc(1, sizeof *w);
    if (!w) {
        kb_errf(err, KB_EXIT_FAIL, "out of memory");
        return NULL;
    }
    if (kb_fmt(w->path, sizeof w->path, "%s", path) < 0 ||
        kb_fmt(w->tmp, sizeof w->tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
        free(w);
        kb_errf(err, KB_EXIT_FAIL, "artifact path too long: %s", path);
        return NULL;
    }
    if (kb_mkdirs_for(path, err) != 0) {
        free(w);
        return NULL;
    }
    w->file = H5Fcreate(w->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (w->file < 0) {
        kb_errf(err, KB_EXIT_FAIL, "HDF5: cannot create %s (is the directory writable? %s)", w->tmp, strerror(errno));
        free(w);
        return NULL;
    }
    return w;
}

static hid_t lcpl_parents(void)
{
    hid_t p = H5Pcreate(H5P_LINK_CREATE);
    if (p >= 0)
        H5Pset_create_intermediate_group(p, 1);
    return p;
}

int kb_h5w_group(kb_h5w *w, const char *path)
{
    if (w->failed)
        return -1;
    if (strcmp(path, "/") == 0)
        return 0;
    htri_t exists = H5Lexists(w->file, path, H5P_DEFAULT);
    if (exists > 0)
        return 0;
    hid_t lcpl = lcpl_parents();
    hid_t g = H5Gcreate2(w->file, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    if (g < 0)
        return wfail(w, "create group", path);
    H5Gclose(g);
    return 0;
}

static hid_t vlen_str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static int write_attr(kb_h5w *w, const char *obj, const char *name, hid_t type, const void *buf)
{
    if (w->failed)
        return -1;
    hid_t space = H5Screate(H5S_SCALAR);
    if (H5Aexists_by_name(w->file, obj, name, H5P_DEFAULT) > 0)
        H5Adelete_by_name(w->file, obj, name, H5P_DEFAULT);
    hid_t a = H5Acreate_by_name(w->file, obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = 0;
    if (a < 0 || H5Awrite(a, type, buf) < 0)
        rc = -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    if (rc) {
        char where[512];
        snprintf(where, sizeof where, "%s@%s", obj, name);
        return wfail(w, "write attribute", where);
    }
    return 0;
}

int kb_h5w_attr_str(kb_h5w *w, const char *obj, const char *name, const char *value)
{
    hid_t t = vlen_str_type();
    const char *v = value ? value : "";
    int rc = write_attr(w, obj, name, t, &v);
    H5Tclose(t);
    return rc;
}

int kb_h5w_attr_i64(kb_h5w *w, const char *obj, const char *name, int64_t value)
{
    return write_attr(w, obj, name, H5T_NATIVE_INT64, &value);
}

int kb_h5w_attr_f64(kb_h5w *w, const char *obj, const char *name, double value)
{
    return write_attr(w, obj, name, H5T_NATIVE_DOUBLE, &value);
}

static int write_dataset(kb_h5w *w, const char *path, hid_t mem_type, hid_t file_type, const void *data, int ndims,
                         const uint64_t *dims, const char *units)
{
    if (w->failed)
        return -1;
    hsize_t hd[8] = {0}, chunk[8] = {0};
    uint64_t total = 1;
    if (ndims < 0 || ndims > 8)
        return wfail(w, "write (bad rank)", path);
    for (int i = 0; i < ndims; i++) {
        hd[i] = dims[i];
        total *= dims[i];
    }
    hid_t space = ndims ? H5Screate_simple(ndims, hd, NULL) : H5Screate(H5S_SCALAR);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (ndims > 0 && total >= 1024) {
        /* Chunks of about 64k elements along the first dimension. */
        uint64_t row = total / (hd[0] ? hd[0] : 1);
        uint64_t rows = row ? 65536 / row : 1;
        if (rows < 1)
            rows = 1;
        chunk[0] = rows < hd[0] ? rows : hd[0];
        for (int i = 1; i < ndims; i++)
            chunk[i] = hd[i];
        H5Pset_chunk(dcpl, ndims, chunk);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 4);
    }
    hid_t lcpl = lcpl_parents();
    hid_t d = H5Dcreate2(w->file, path, file_type, space, lcpl, dcpl, H5P_DEFAULT);
    int rc = 0;
    if (d < 0 || (total > 0 && H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0))
        rc = -1;
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (rc)
        return wfail(w, "write dataset", path);
    if (units)
        return kb_h5w_attr_str(w, path, "units", units);
    return 0;
}

int kb_h5w_f64(kb_h5w *w, const char *path, const double *data, int ndims, const uint64_t *dims, const char *units)
{
    return write_dataset(w, path, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, data, ndims, dims, units);
}

int kb_h5w_i64(kb_h5w *w, const char *path, const int64_t *data, int ndims, const uint64_t *dims, const char *units)
{
    return write_dataset(w, path, H5T_NATIVE_INT64, H5T_STD_I64LE, data, ndims, dims, units);
}

int kb_h5w_f64v(kb_h5w *w, const char *path, const double *data, size_t n, const char *units)
{
    uint64_t d = n;
    return kb_h5w_f64(w, path, data, 1, &d, units);
}

int kb_h5w_i64v(kb_h5w *w, const char *path, const int64_t *data, size_t n, const char *units)
{
    uint64_t d = n;
    return kb_h5w_i64(w, path, data, 1, &d, units);
}

int kb_h5w_text(kb_h5w *w, const char *path, const char *text)
{
    hid_t t = vlen_str_type();
    const char *v = text ? text : "";
    int rc = write_dataset(w, path, t, t, &v, 0, NULL, NULL);
    H5Tclose(t);
    return rc;
}

int kb_h5w_strv(kb_h5w *w, const char *path, const char *const *strs, size_t n)
{
    hid_t t = vlen_str_type();
    uint64_t d = n;
    int rc;
    if (n == 0) {
        /* An empty array still has a dataset, so "none" is explicit. */
        rc = write_dataset(w, path, t, t, NULL, 1, &d, NULL);
    } else {
        rc = write_dataset(w, path, t, t, strs, 1, &d, NULL);
    }
    H5Tclose(t);
    return rc;
}

int kb_h5w_ok(const kb_h5w *w, kb_err *err)
{
    if (w->failed) {
        if (err)
            *err = w->err;
        return -1;
    }
    return 0;
}

static int fsync_path(const char *path, int dir)
{
    int fd = open(path, (dir ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int kb_h5w_commit(kb_h5w *w, kb_err *err)
{
    int rc = 0;
    if (w->failed) {
        if (err)
            *err = w->err;
        rc = -1;
    }
    if (rc == 0 && H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "HDF5: cannot flush %s: %s%s", w->tmp, strerror(errno),
                     errno == ENOSPC || errno == EFBIG ? " (disk full or file too large: free space and re-run make; finished results are kept)" : "");
    if (H5Fclose(w->file) < 0 && rc == 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "HDF5: cannot close %s: %s (disk full? free space and re-run make; finished results are kept)",
                     w->tmp, strerror(errno));
    if (rc == 0 && fsync_path(w->tmp, 0) != 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "cannot fsync %s: %s", w->tmp, strerror(errno));
    if (rc == 0 && rename(w->tmp, w->path) != 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "cannot rename %s to %s: %s", w->tmp, w->path, strerror(errno));
    if (rc == 0) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", w->path);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = '\0';
            fsync_path(dir[0] ? dir : "/", 1);
        }
    } else {
        unlink(w->tmp);
    }
    free(w);
    return rc;
}

void kb_h5w_abort(kb_h5w *w)
{
    if (!w)
        return;
    H5Fclose(w->file);
    unlink(w->tmp);
    free(w);
}

/* ---- reading ----------------------------------------------------------------------------- */

kb_h5r *kb_h5r_open(const char *path, kb_err *err)
{
    quiet_hdf5();
    if (access(path, R_OK) != 0) {
        kb_errf(err, errno == ENOENT ? KB_EXIT_MISSING : KB_EXIT_FAIL, "cannot read artifact %s: %s", path, strerror(errno));
        return NULL;
    }
    kb_h5r *r = calloc(1, sizeof *r);
    if (!r) {
        kb_errf(err, KB_EXIT_FAIL, "out of memory");
        return NULL;
    }
    snprintf(r->path, sizeof r->path, "%s", path);
    r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r->file < 0) {
        kb_errf(err, KB_EXIT_FAIL, "%s is not a readable HDF5 file (delete it and re-run make to recreate it)", path);
        free(r);
        return NULL;
    }
    return r;
}

void kb_h5r_close(kb_h5r *r)
{
    if (!r)
        return;
    H5Fclose(r->file);
    free(r);
}

int kb_h5r_exists(kb_h5r *r, const char *path)
{
    if (strcmp(path, "/") == 0)
        return 1;
    /* H5Lexists needs every parent to exist: walk the path. */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (H5Lexists(r->file, buf, H5P_DEFAULT) <= 0)
                return 0;
            if (c == '\0')
                return 1;
            *p = c;
        }
    }
}

static hid_t open_attr(kb_h5r *r, const char *obj, const char *name, kb_err *err)
{
    if (!kb_h5r_exists(r, obj) || H5Aexists_by_name(r->file, obj, name, H5P_DEFAULT) <= 0) {
        kb_errf(err, KB_EXIT_FAIL, "%s: no attribute %s on %s", r->path, name, obj);
        return -1;
    }
    hid_t a = H5Aopen_by_name(r->file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0)
        kb_errf(err, KB_EXIT_FAIL, "%s: cannot open attribute %s on %s", r->path, name, obj);
    return a;
}

int kb_h5r_attr_str(kb_h5r *r, const char *obj, const char *name, char *buf, size_t len, kb_err *err)
{
    hid_t a = open_attr(r, obj, name, err);
    if (a < 0)
        return -1;
    hid_t ft = H5Aget_type(a);
    int rc = -1;
    if (H5Tget_class(ft) == H5T_STRING) {
        if (H5Tis_variable_str(ft) > 0) {
            hid_t mt = vlen_str_type();
            char *s = NULL;
            if (H5Aread(a, mt, &s) >= 0 && s) {
                snprintf(buf, len, "%s", s);
                H5free_memory(s);
                rc = 0;
            }
            H5Tclose(mt);
        } else {
            size_t sz = H5Tget_size(ft);
            char *s = calloc(1, sz + 1);
            if (s && H5Aread(a, ft, s) >= 0) {
                snprintf(buf, len, "%s", s);
                rc = 0;
            }
            free(s);
        }
    }
    H5Tclose(ft);
    H5Aclose(a);
    if (rc)
        kb_errf(err, KB_EXIT_FAIL, "%s: attribute %s on %s is not a string", r->path, name, obj);
    return rc;
}

static int read_attr_num(kb_h5r *r, const char *obj, const char *name, hid_t mt, void *v, kb_err *err)
{
    hid_t a = open_attr(r, obj, name, err);
    if (a < 0)
        return -1;
    hid_t ft = H5Aget_type(a);
    H5T_class_t c = H5Tget_class(ft);
    int rc = -1;
    if ((c == H5T_INTEGER || c == H5T_FLOAT) && H5Aread(a, mt, v) >= 0)
        rc = 0;
    H5Tclose(ft);
    H5Aclose(a);
    if (rc)
        kb_errf(err, KB_EXIT_FAIL, "%s: attribute %s on %s is not a number", r->path, name, obj);
    return rc;
}

int kb_h5r_attr_i64(kb_h5r *r, const char *obj, const char *name, int64_t *value, kb_err *err)
{
    return read_attr_num(r, obj, name, H5T_NATIVE_INT64, value, err);
}

int kb_h5r_attr_f64(kb_h5r *r, const char *obj, const char *name, double *value, kb_err *err)
{
    return read_attr_num(r, obj, name, H5T_NATIVE_DOUBLE, value, err);
}

static int read_num(kb_h5r *r, const char *path, hid_t mt, size_t esz, void **data, size_t *n, kb_err *err)
{
    *data = NULL;
    *n = 0;
    if (!kb_h5r_exists(r, path))
        return kb_errf(err, KB_EXIT_FAIL, "%s: no dataset %s", r->path, path);
    hid_t d = H5Dopen2(r->file, path, H5P_DEFAULT);
    if (d < 0)
        return kb_errf(err, KB_EXIT_FAIL, "%s: cannot open dataset %s", r->path, path);
    hid_t s = H5Dget_space(d);
    hssize_t np = H5Sget_simple_extent_npoints(s);
    int rc = 0;
    void *buf = malloc((np > 0 ? (size_t)np : 1) * esz);
    if (!buf || np < 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "%s: cannot size dataset %s", r->path, path);
    else if (np > 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = kb_errf(err, KB_EXIT_FAIL, "%s: cannot read dataset %s as numbers", r->path, path);
    H5Sclose(s);
    H5Dclose(d);
    if (rc) {
        free(buf);
        return -1;
    }
    *data = buf;
    *n = (size_t)np;
    return 0;
}

int kb_h5r_f64(kb_h5r *r, const char *path, double **data, size_t *n, kb_err *err)
{
    return read_num(r, path, H5T_NATIVE_DOUBLE, sizeof(double), (void **)data, n, err);
}

int kb_h5r_i64(kb_h5r *r, const char *path, int64_t **data, size_t *n, kb_err *err)
{
    return read_num(r, path, H5T_NATIVE_INT64, sizeof(int64_t), (void **)data, n, err);
}

int kb_h5r_strv(kb_h5r *r, const char *path, char ***strs, size_t *n, kb_err *err)
{
    *strs = NULL;
    *n = 0;
    if (!kb_h5r_exists(r, path))
        return kb_errf(err, KB_EXIT_FAIL, "%s: no dataset %s", r->path, path);
    hid_t d = H5Dopen2(r->file, path, H5P_DEFAULT);
    if (d < 0)
        return kb_errf(err, KB_EXIT_FAIL, "%s: cannot open dataset %s", r->path, path);
    hid_t s = H5Dget_space(d);
    hssize_t np = H5Sget_simple_extent_npoints(s);
    hid_t mt = vlen_str_type();
    int rc = 0;
    char **raw = calloc(np > 0 ? (size_t)np : 1, sizeof *raw);
    char **out = calloc(np > 0 ? (size_t)np : 1, sizeof *out);
    if (!raw || !out || np < 0)
        rc = -1;
    else if (np > 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) < 0)
        rc = -1;
    if (rc == 0) {
        for (hssize_t i = 0; i < np; i++) {
            out[i] = strdup(raw[i] ? raw[i] : "");
            if (raw[i])
                H5free_memory(raw[i]);
            if (!out[i])
                rc = -1;
        }
    }
    free(raw);
    H5Tclose(mt);
    H5Sclose(s);
    H5Dclose(d);
    if (rc) {
        kb_h5r_free_strv(out, np > 0 ? (size_t)np : 0);
        return kb_errf(err, KB_EXIT_FAIL, "%s: cannot read %s as strings", r->path, path);
    }
    *strs = out;
    *n = (size_t)np;
    return 0;
}

void kb_h5r_free_strv(char **strs, size_t n)
{
    if (!strs)
        return;
    for (size_t i = 0; i < n; i++)
        free(strs[i]);
    free(strs);
}

int kb_h5r_text(kb_h5r *r, const char *path, char **text, kb_err *err)
{
    char **v;
    size_t n;
    *text = NULL;
    if (kb_h5r_strv(r, path, &v, &n, err) != 0)
        return -1;
    *text = n ? v[0] : strdup("");
    for (size_t i = 1; i < n; i++)
        free(v[i]);
    free(v);
    return *text ? 0 : kb_errf(err, KB_EXIT_FAIL, "out of memory");
}
