/*
 * test_h5.c -- lib/core/kb_h5.h: the artifact writer and reader.
 *
 * Pinned:
 *   - Round trip of every writer function through the matching reader, bit for bit (NaN, -0,
 *     inf, subnormals, int64 extremes, UTF-8, empty strings, empty arrays, 1-D, 2-D and scalar
 *     datasets, units, attributes on the root, groups and datasets, overwritten attributes),
 *     and that arrays of >= 1024 elements are chunked + shuffle + deflate while small ones are
 *     not.
 *   - Atomic commit: nothing at the final path before commit (only <path>.tmp.<pid>); abort
 *     leaves nothing; a second commit replaces the old file whole (no dataset survives from it);
 *     the old file stays readable while the new one is being written; sticky errors.
 *   - Fault injection: a child with RLIMIT_FSIZE small (SIGXFSZ ignored, so write() fails with
 *     EFBIG) writes a multi-MB artifact, or a metadata-only one, over an existing good file:
 *     commit fails with a message naming the file and the reason, the old file is intact and
 *     readable, no temporary file is left, and the process still exits normally (HDF5 1.10's
 *     exit handler used to segfault on the file whose close had failed).
 *   - Errors with messages: a directory that cannot be created (a path under a regular file, so
 *     it fails even as root), a missing file, a non-HDF5 file, a truncated HDF5 file, a missing
 *     attribute / dataset (named in the message), values of the wrong kind.
 */
#include "kbt.h"

#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <hdf5.h>

#include "core/kb_h5.h"

static char *dir; /* per-run temporary directory */

static int setup(void **state)
{
    (void)state;
    dir = kbt_tmpdir("h5");
    return dir ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    kbt_rmtree(dir);
    free(dir);
    return 0;
}

static void path_in(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", dir, name); }

static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* ---- round trip -------------------------------------------------------------------------------- */

static void check_attr_str(kb_h5r *r, const char *obj, const char *name, const char *want)
{
    char buf[16384];
    kb_err err = {0};
    KBT_CHECK(kb_h5r_attr_str(r, obj, name, buf, sizeof buf, &err) == 0, "read %s@%s: %s", obj, name, err.msg);
    KBT_CHECK(strcmp(buf, want) == 0, "%s@%s = \"%s\", want \"%s\"", obj, name, buf, want);
}

static void check_attr_i64(kb_h5r *r, const char *obj, const char *name, int64_t want)
{
    int64_t v = 0;
    kb_err err = {0};
    KBT_CHECK(kb_h5r_attr_i64(r, obj, name, &v, &err) == 0, "read %s@%s: %s", obj, name, err.msg);
    KBT_CHECK(v == want, "%s@%s = %lld, want %lld", obj, name, (long long)v, (long long)want);
}

static void check_attr_f64(kb_h5r *r, const char *obj, const char *name, double want)
{
    double v = 0;
    kb_err err = {0};
    KBT_CHECK(kb_h5r_attr_f64(r, obj, name, &v, &err) == 0, "read %s@%s: %s", obj, name, err.msg);
    KBT_CHECK(same_bits(&v, &want, sizeof v), "%s@%s = %a, want %a", obj, name, v, want);
}

static void check_f64(kb_h5r *r, const char *path, const double *want, size_t n)
{
    double *d = NULL;
    size_t m = 0;
    kb_err err = {0};
    KBT_CHECK(kb_h5r_f64(r, path, &d, &m, &err) == 0, "read %s: %s", path, err.msg);
    KBT_CHECK(m == n, "%s has %zu elements, want %zu", path, m, n);
    KBT_CHECK(n == 0 || same_bits(d, want, n * sizeof *d), "%s differs from what was written", path);
    free(d);
}

static void check_i64(kb_h5r *r, const char *path, const int64_t *want, size_t n)
{
    int64_t *d = NULL;
    size_t m = 0;
    kb_err err = {0};
    KBT_CHECK(kb_h5r_i64(r, path, &d, &m, &err) == 0, "read %s: %s", path, err.msg);
    KBT_CHECK(m == n, "%s has %zu elements, want %zu", path, m, n);
    KBT_CHECK(n == 0 || same_bits(d, want, n * sizeof *d), "%s differs from what was written", path);
    free(d);
}

static void check_strv(kb_h5r *r, const char *path, const char *const *want, size_t n)
{
    char **v = NULL;
    size_t m = 0;
    kb_err err = {0};
    KBT_CHECK(kb_h5r_strv(r, path, &v, &m, &err) == 0, "read %s: %s", path, err.msg);
    KBT_CHECK(m == n, "%s has %zu strings, want %zu", path, m, n);
    for (size_t i = 0; i < n; i++)
        KBT_CHECK(strcmp(v[i], want[i]) == 0, "%s[%zu] = \"%.40s\", want \"%.40s\"", path, i, v[i], want[i]);
    kb_h5r_free_strv(v, m);
}

/* Filters on a dataset's creation property list: -1 if not chunked. */
static int dataset_filters(const char *file, const char *path)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    hid_t p = H5Dget_create_plist(d);
    int n = H5Pget_layout(p) == H5D_CHUNKED ? H5Pget_nfilters(p) : -1;
    int deflate = 0, shuffle = 0;
    for (int i = 0; i < n; i++) {
        unsigned flags;
        size_t nelem = 0;
        unsigned cd[8];
        char name[64];
        H5Z_filter_t id = H5Pget_filter2(p, (unsigned)i, &flags, &nelem, cd, sizeof name, name, NULL);
        deflate |= id == H5Z_FILTER_DEFLATE;
        shuffle |= id == H5Z_FILTER_SHUFFLE;
    }
    H5Pclose(p);
    H5Dclose(d);
    H5Fclose(f);
    return n < 0 ? -1 : (deflate && shuffle) ? 2 : 0;
}

#define BIG 200000

static void test_round_trip(void **state)
{
    (void)state;
    char path[4096];
    path_in(path, sizeof path, "round/trip.h5"); /* parent directory created on demand */
    kb_err err = {0};
    kb_h5w *w = kb_h5w_create(path, &err);
    KBT_CHECK(w != NULL, "create %s: %s", path, err.msg);

    const char *utf8 = "r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93 \xce\xbb";
    const double specials[] = {M_PI, -0.0, NAN, INFINITY, -INFINITY, 4.9406564584124654e-324, 1.7976931348623157e308};
    /* attributes */
    assert_int_equal(kb_h5w_attr_str(w, "/", "stage", "compile"), 0);
    assert_int_equal(kb_h5w_attr_str(w, "/", "utf8", utf8), 0);
    assert_int_equal(kb_h5w_attr_str(w, "/", "empty", ""), 0);
    assert_int_equal(kb_h5w_attr_str(w, "/", "null", NULL), 0);
    assert_int_equal(kb_h5w_attr_i64(w, "/", "i64max", INT64_MAX), 0);
    assert_int_equal(kb_h5w_attr_i64(w, "/", "i64min", INT64_MIN), 0);
    assert_int_equal(kb_h5w_attr_i64(w, "/", "overwritten", 1), 0);
    assert_int_equal(kb_h5w_attr_i64(w, "/", "overwritten", 2), 0);
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%zu", i);
        assert_int_equal(kb_h5w_attr_f64(w, "/", name, specials[i]), 0);
    }
    /* groups, with intermediate parents */
    assert_int_equal(kb_h5w_group(w, "/a/b/c"), 0);
    assert_int_equal(kb_h5w_group(w, "/a/b/c"), 0); /* existing: no error */
    assert_int_equal(kb_h5w_group(w, "/"), 0);
    assert_int_equal(kb_h5w_attr_str(w, "/a/b", "what", "group attr"), 0);
    assert_int_equal(kb_h5w_attr_f64(w, "/a/b/c", "x", 0.25), 0);
    /* small arrays: 1-D, 2-D, scalar, empty */
    const double f1[5] = {1.5, -0.0, NAN, INFINITY, 1e-310};
    const int64_t i1[4] = {INT64_MIN, -1, 0, INT64_MAX};
    double f2[3][4];
    int64_t i2[2][3];
    for (int i = 0; i < 12; i++)
        f2[i / 4][i % 4] = i * 0.1 - 0.3;
    for (int i = 0; i < 6; i++)
        i2[i / 3][i % 3] = (int64_t)i * 1000000007LL - 3;
    const uint64_t d2[2] = {3, 4}, di2[2] = {2, 3}, d0[2] = {0, 5};
    const double scal = -2.75;
    const int64_t iscal = 123456789012345LL;
    assert_int_equal(kb_h5w_f64v(w, "/small/f1", f1, 5, "ms"), 0);
    assert_int_equal(kb_h5w_i64v(w, "/small/i1", i1, 4, NULL), 0);
    assert_int_equal(kb_h5w_f64(w, "/small/f2", &f2[0][0], 2, d2, "bytes"), 0);
    assert_int_equal(kb_h5w_i64(w, "/small/i2", &i2[0][0], 2, di2, NULL), 0);
    assert_int_equal(kb_h5w_f64(w, "/small/scalar", &scal, 0, NULL, NULL), 0);
    assert_int_equal(kb_h5w_i64(w, "/small/iscalar", &iscal, 0, NULL, NULL), 0);
    assert_int_equal(kb_h5w_f64v(w, "/small/empty", NULL, 0, NULL), 0);
    assert_int_equal(kb_h5w_i64(w, "/small/empty2d", NULL, 2, d0, NULL), 0);
    assert_int_equal(kb_h5w_attr_str(w, "/small/f1", "extra", "on a dataset"), 0);
    /* large arrays: compressed */
    double *big = malloc(BIG * sizeof *big);
    int64_t *seq = malloc(BIG * sizeof *seq);
    assert_non_null(big);
    assert_non_null(seq);
    uint64_t s = 5;
    for (size_t i = 0; i < BIG; i++) {
        big[i] = (kbt_unif(&s) - 0.5) * 1e6;
        seq[i] = (int64_t)i * 3 - 7;
    }
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        big[i * 1000] = specials[i];
    const uint64_t dbig[2] = {500, 400};
    assert_int_equal(kb_h5w_f64v(w, "/big/samples_ms", big, BIG, "ms"), 0);
    assert_int_equal(kb_h5w_i64(w, "/big/seq2d", seq, 2, dbig, NULL), 0);
    const uint64_t wide[2] = {2, 100000}; /* one row is larger than a 64k-element chunk */
    assert_int_equal(kb_h5w_f64(w, "/big/wide", big, 2, wide, NULL), 0);
    /* text and string arrays */
    char *longtext = malloc(20001);
    assert_non_null(longtext);
    for (int i = 0; i < 20000; i++)
        longtext[i] = (char)('a' + i % 26);
    longtext[20000] = '\0';
    const char *text = "nvcc: line 1\nerror: expected ';'\n\ttab and \xe2\x9c\x93\n";
    assert_int_equal(kb_h5w_text(w, "/nvcc/log", text), 0);
    assert_int_equal(kb_h5w_text(w, "/nvcc/empty", ""), 0);
    assert_int_equal(kb_h5w_text(w, "/nvcc/null", NULL), 0);
    assert_int_equal(kb_h5w_text(w, "/nvcc/long", longtext), 0);
    const char *strs[] = {"kb_forward", "", utf8, longtext, "last"};
    assert_int_equal(kb_h5w_strv(w, "/symbols/exports", strs, 5), 0);
    assert_int_equal(kb_h5w_strv(w, "/symbols/none", NULL, 0), 0);
    KBT_CHECK(kb_h5w_ok(w, &err) == 0, "writer failed: %s", err.msg);
    KBT_CHECK(kb_h5w_commit(w, &err) == 0, "commit: %s", err.msg);

    kb_h5r *r = kb_h5r_open(path, &err);
    KBT_CHECK(r != NULL, "open %s: %s", path, err.msg);
    check_attr_str(r, "/", "stage", "compile");
    check_attr_str(r, "/", "utf8", utf8);
    check_attr_str(r, "/", "empty", "");
    check_attr_str(r, "/", "null", "");
    check_attr_i64(r, "/", "i64max", INT64_MAX);
    check_attr_i64(r, "/", "i64min", INT64_MIN);
    check_attr_i64(r, "/", "overwritten", 2);
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%zu", i);
        check_attr_f64(r, "/", name, specials[i]);
    }
    check_attr_str(r, "/a/b", "what", "group attr");
    check_attr_f64(r, "/a/b/c", "x", 0.25);
    check_attr_f64(r, "/", "i64max", (double)INT64_MAX); /* integers read as f64 convert */
    check_f64(r, "/small/f1", f1, 5);
    check_attr_str(r, "/small/f1", "units", "ms");
    check_attr_str(r, "/small/f1", "extra", "on a dataset");
    check_i64(r, "/small/i1", i1, 4);
    check_f64(r, "/small/f2", &f2[0][0], 12);
    check_attr_str(r, "/small/f2", "units", "bytes");
    check_i64(r, "/small/i2", &i2[0][0], 6);
    check_f64(r, "/small/scalar", &scal, 1);
    check_i64(r, "/small/iscalar", &iscal, 1);
    check_f64(r, "/small/empty", NULL, 0);
    check_i64(r, "/small/empty2d", NULL, 0);
    check_f64(r, "/big/samples_ms", big, BIG);
    check_attr_str(r, "/big/samples_ms", "units", "ms");
    check_i64(r, "/big/seq2d", seq, BIG);
    check_f64(r, "/big/wide", big, 200000);
    char *t = NULL;
    KBT_CHECK(kb_h5r_text(r, "/nvcc/log", &t, &err) == 0 && strcmp(t, text) == 0, "text round trip: %s", t ? t : err.msg);
    free(t);
    KBT_CHECK(kb_h5r_text(r, "/nvcc/empty", &t, &err) == 0 && strcmp(t, "") == 0, "empty text");
    free(t);
    KBT_CHECK(kb_h5r_text(r, "/nvcc/null", &t, &err) == 0 && strcmp(t, "") == 0, "NULL text reads as empty");
    free(t);
    KBT_CHECK(kb_h5r_text(r, "/nvcc/long", &t, &err) == 0 && strcmp(t, longtext) == 0, "20000-char text");
    free(t);
    check_strv(r, "/symbols/exports", strs, 5);
    check_strv(r, "/symbols/none", NULL, 0);
    /* exists */
    const struct {
        const char *p;
        int want;
    } ex[] = {{"/", 1}, {"/a", 1}, {"/a/b/c", 1}, {"/small/f1", 1}, {"/a/b/missing", 0}, {"/nope/deeper/still", 0},
              {"/small/f1x", 0}};
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++)
        KBT_CHECK(kb_h5r_exists(r, ex[i].p) == ex[i].want, "exists(%s) != %d", ex[i].p, ex[i].want);
    kb_h5r_close(r);

    /* layout: >= 1024 elements chunked with shuffle + deflate, small arrays contiguous */
    KBT_CHECK(dataset_filters(path, "/big/samples_ms") == 2, "large f64 array is not chunked+shuffle+deflate");
    KBT_CHECK(dataset_filters(path, "/big/seq2d") == 2, "large 2-D i64 array is not chunked+shuffle+deflate");
    KBT_CHECK(dataset_filters(path, "/small/f1") == -1, "small array is chunked");
    print_message("round trip: 13 attributes (str/i64/f64 incl. NaN, -0, inf, subnormal, INT64_MIN/MAX, UTF-8), "
                  "groups, f64/i64 1-D/2-D/scalar/empty, 2e5-element compressed arrays, texts, string arrays\n");
    free(big);
    free(seq);
    free(longtext);
}

/* ---- atomicity -------------------------------------------------------------------------------- */

static int write_generation(const char *path, int64_t gen, const char *only, kb_err *err)
{
    kb_h5w *w = kb_h5w_create(path, err);
    if (!w)
        return -1;
    kb_h5w_attr_i64(w, "/", "generation", gen);
    const double v[3] = {1, 2, 3};
    kb_h5w_f64v(w, only, v, 3, NULL);
    return kb_h5w_commit(w, err);
}

static int64_t read_generation(const char *path)
{
    kb_h5r *r = kb_h5r_open(path, NULL);
    int64_t g = -1;
    if (r) {
        if (kb_h5r_attr_i64(r, "/", "generation", &g, NULL) != 0)
            g = -2;
        kb_h5r_close(r);
    }
    return g;
}

static void test_atomic_commit(void **state)
{
    (void)state;
    char path[4096], tmp[4200];
    path_in(path, sizeof path, "atomic.h5");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    kb_err err = {0};

    kb_h5w *w = kb_h5w_create(path, &err);
    KBT_CHECK(w != NULL, "create: %s", err.msg);
    kb_h5w_attr_i64(w, "/", "generation", 1);
    KBT_CHECK(!kb_file_exists(path), "%s exists before commit", path);
    KBT_CHECK(kb_file_exists(tmp), "the writer is not writing %s", tmp);
    KBT_CHECK(kb_h5w_commit(w, &err) == 0, "commit: %s", err.msg);
    KBT_CHECK(kb_file_exists(path) && !kb_file_exists(tmp), "after commit: final %d, tmp %d", kb_file_exists(path),
              kb_file_exists(tmp));
    KBT_CHECK(read_generation(path) == 1, "generation %lld", (long long)read_generation(path));

    /* abort: nothing new, the old file untouched */
    char p2[4096];
    path_in(p2, sizeof p2, "aborted.h5");
    w = kb_h5w_create(p2, &err);
    KBT_CHECK(w != NULL, "create: %s", err.msg);
    kb_h5w_attr_i64(w, "/", "generation", 9);
    kb_h5w_abort(w);
    KBT_CHECK(!kb_file_exists(p2), "abort left %s", p2);
    w = kb_h5w_create(path, &err);
    kb_h5w_attr_i64(w, "/", "generation", 9);
    kb_h5w_abort(w);
    KBT_CHECK(read_generation(path) == 1, "abort changed the committed file");

    /* a second commit replaces the old file whole; the old one is readable until then */
    KBT_CHECK(write_generation(path, 1, "/only_in_1", &err) == 0, "gen 1: %s", err.msg);
    w = kb_h5w_create(path, &err);
    KBT_CHECK(w != NULL, "create: %s", err.msg);
    kb_h5w_attr_i64(w, "/", "generation", 2);
    const double v[2] = {4, 5};
    kb_h5w_f64v(w, "/only_in_2", v, 2, NULL);
    KBT_CHECK(read_generation(path) == 1, "old file not readable while the new one is written");
    KBT_CHECK(kb_h5w_commit(w, &err) == 0, "commit: %s", err.msg);
    kb_h5r *r = kb_h5r_open(path, &err);
    KBT_CHECK(r != NULL, "open: %s", err.msg);
    KBT_CHECK(!kb_h5r_exists(r, "/only_in_1") && kb_h5r_exists(r, "/only_in_2"), "the commit merged instead of replacing");
    kb_h5r_close(r);
    KBT_CHECK(read_generation(path) == 2, "generation after replace");

    /* sticky errors: the first failure is kept, later calls do nothing, commit reports it and
     * leaves the committed file alone */
    w = kb_h5w_create(path, &err);
    KBT_CHECK(w != NULL, "create: %s", err.msg);
    kb_h5w_attr_i64(w, "/", "generation", 3);
    assert_int_equal(kb_h5w_f64v(w, "/dup", v, 2, NULL), 0);
    KBT_CHECK(kb_h5w_f64v(w, "/dup", v, 2, NULL) == -1, "writing a dataset twice succeeded");
    KBT_CHECK(kb_h5w_attr_i64(w, "/", "after", 1) == -1, "a call after a failure succeeded (errors must be sticky)");
    KBT_CHECK(kb_h5w_group(w, "/g") == -1, "group after a failure succeeded");
    kb_err e1 = {0}, e2 = {0};
    KBT_CHECK(kb_h5w_ok(w, &e1) == -1, "kb_h5w_ok after a failure");
    KBT_MSG_HAS(e1.msg, "/dup");
    KBT_CHECK(kb_h5w_commit(w, &e2) == -1, "commit after a failure succeeded");
    KBT_CHECK(strcmp(e1.msg, e2.msg) == 0 && e2.code == KB_EXIT_FAIL, "commit reports \"%s\", first error was \"%s\"",
              e2.msg, e1.msg);
    KBT_CHECK(read_generation(path) == 2 && !kb_file_exists(tmp), "failed commit touched the old file or left %s", tmp);
    KBT_CHECK(kbt_count_entries(dir, ".tmp.") == 0, "temporary files left in %s", dir);
    print_message("atomic: no file before commit, abort leaves nothing, replace is whole, sticky error \"%s\"\n", e1.msg);
}

/* ---- fault injection ------------------------------------------------------------------------------ */

/* In a child with a file-size limit: write an artifact over `path`. Returns the child's commit
 * result and message. */
static int write_with_fsize_limit(const char *path, rlim_t limit, size_t n_doubles, char *msg, size_t len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        /* cmocka's handlers would turn a crash of this child into a run of the remaining tests */
        const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
        for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
            signal(sigs[k], SIG_DFL);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {limit, limit};
        setrlimit(RLIMIT_FSIZE, &rl);
        kb_err err = {0};
        int rc = -1;
        kb_h5w *w = kb_h5w_create(path, &err);
        if (w) {
            kb_h5w_attr_i64(w, "/", "generation", 666);
            kb_h5w_attr_str(w, "/", "padding", "metadata that must reach the disk at flush time");
            if (n_doubles) {
                double *d = malloc(n_doubles * sizeof *d);
                uint64_t s = 31337;
                for (size_t i = 0; d && i < n_doubles; i++) {
                    uint64_t b = kbt_next(&s); /* random bits: incompressible */
                    memcpy(&d[i], &b, sizeof b);
                }
                if (d)
                    kb_h5w_f64v(w, "/timing/samples_ms", d, n_doubles, "ms");
                free(d);
            }
            rc = kb_h5w_commit(w, &err);
        }
        char out[1100];
        snprintf(out, sizeof out, "%d %s", rc, err.msg);
        ssize_t wr = write(p[1], out, strlen(out) + 1);
        (void)wr;
        exit(0); /* a normal exit, running HDF5's exit handlers as a stage's main would */
    }
    close(p[1]);
    char buf[1100] = "";
    size_t got = 0;
    ssize_t k;
    while (got < sizeof buf - 1 && (k = read(p[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)k;
    buf[got] = '\0';
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    KBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "the writer child %s %d after the failed commit (a stage would crash instead of reporting)",
              WIFSIGNALED(st) ? "died of signal" : "exited", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    int rc = atoi(buf);
    const char *sp = strchr(buf, ' ');
    snprintf(msg, len, "%s", sp ? sp + 1 : "");
    return rc;
}

static void test_fault_file_size_limit(void **state)
{
    (void)state;
    char path[4096];
    path_in(path, sizeof path, "faulty/cell/sanity-check.h5");
    kb_err err = {0};
    const struct {
        const char *what;
        rlim_t limit;
        size_t n;
    } faults[] = {
        {"4 MiB of samples, 64 KiB limit (fails while writing data)", 64 << 10, 512 * 1024},
        {"metadata only, 1 KiB limit (fails at flush/close)", 1 << 10, 0},
        {"4 MiB of samples, 3 MiB limit (fails late)", 3 << 20, 512 * 1024},
    };
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++) {
        KBT_CHECK(write_generation(path, 1, "/good", &err) == 0, "good file: %s", err.msg);
        char msg[1100];
        int rc = write_with_fsize_limit(path, faults[f].limit, faults[f].n, msg, sizeof msg);
        KBT_CHECK(rc == -1, "%s: commit succeeded", faults[f].what);
        KBT_CHECK(msg[0] != '\0', "%s: commit failed without a message", faults[f].what);
        KBT_MSG_HAS(msg, path); /* the message names the artifact (its temporary file) */
        KBT_MSG_HAS(msg, "too large"); /* and why: EFBIG */
        int64_t g = read_generation(path);
        KBT_CHECK(g == 1, "%s: the old file is damaged (generation %lld)", faults[f].what, (long long)g);
        char d[4096];
        snprintf(d, sizeof d, "%s/faulty/cell", dir);
        KBT_CHECK(kbt_count_entries(d, ".tmp.") == 0, "%s: temporary file left in %s", faults[f].what, d);
        print_message("fault: %s -> \"%s\"; old file intact, no .tmp left\n", faults[f].what, msg);
    }
}

/* ---- errors ------------------------------------------------------------------------------------ */

static void test_errors(void **state)
{
    (void)state;
    char file[4096], path[4200];
    kb_err err = {0};
    path_in(file, sizeof file, "regular-file");
    assert_int_equal(kbt_write_text(file, "not a directory\n"), 0);

    /* a directory that cannot be created: a path through a regular file (fails as root too) */
    snprintf(path, sizeof path, "%s/sub/cell/compile.h5", file);
    kb_h5w *w = kb_h5w_create(path, &err);
    KBT_CHECK(w == NULL, "created an artifact under a regular file");
    KBT_MSG_HAS(err.msg, file);
    KBT_CHECK(err.code == KB_EXIT_FAIL, "code %d", err.code);
    print_message("unwritable directory: \"%s\"\n", err.msg);
    snprintf(path, sizeof path, "%s/compile.h5", file);
    memset(&err, 0, sizeof err);
    w = kb_h5w_create(path, &err);
    KBT_CHECK(w == NULL, "created an artifact inside a regular file");
    KBT_MSG_HAS(err.msg, path);
    print_message("parent is a file: \"%s\"\n", err.msg);

    /* missing file: KB_EXIT_MISSING */
    path_in(path, sizeof path, "does-not-exist.h5");
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5r_open(path, &err) == NULL, "opened a missing file");
    KBT_CHECK(err.code == KB_EXIT_MISSING, "missing file code %d, want %d", err.code, KB_EXIT_MISSING);
    KBT_MSG_HAS(err.msg, path);

    /* not HDF5 */
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5r_open(file, &err) == NULL, "opened a text file as HDF5");
    KBT_MSG_HAS(err.msg, file);
    KBT_MSG_HAS(err.msg, "HDF5");
    print_message("not HDF5: \"%s\"\n", err.msg);

    /* a valid artifact to probe */
    path_in(path, sizeof path, "probe.h5");
    w = kb_h5w_create(path, &err);
    assert_non_null(w);
    kb_h5w_attr_i64(w, "/", "n", 3);
    kb_h5w_attr_str(w, "/", "s", "text");
    const double v[1200] = {1};
    kb_h5w_f64v(w, "/x", v, 1200, NULL);
    kb_h5w_text(w, "/t", "hello");
    KBT_CHECK(kb_h5w_commit(w, &err) == 0, "commit: %s", err.msg);
    kb_h5r *r = kb_h5r_open(path, &err);
    assert_non_null(r);
    int64_t i = 0;
    double d = 0;
    char s[64];
    double *arr = NULL;
    char **sv = NULL;
    size_t n = 0;
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5r_attr_i64(r, "/", "missing_attr", &i, &err) == -1, "read a missing attribute");
    KBT_MSG_HAS(err.msg, "missing_attr");
    print_message("missing attribute: \"%s\"\n", err.msg);
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5r_attr_str(r, "/no/such/group", "s", s, sizeof s, &err) == -1, "attribute of a missing object");
    KBT_MSG_HAS(err.msg, "/no/such/group");
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5r_attr_str(r, "/", "n", s, sizeof s, &err) == -1, "read an integer attribute as a string");
    KBT_MSG_HAS(err.msg, "not a string");
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5r_attr_f64(r, "/", "s", &d, &err) == -1, "read a string attribute as a number");
    KBT_MSG_HAS(err.msg, "not a number");
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5r_f64(r, "/missing_ds", &arr, &n, &err) == -1 && arr == NULL, "read a missing dataset");
    KBT_MSG_HAS(err.msg, "/missing_ds");
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5r_f64(r, "/t", &arr, &n, &err) == -1, "read a text dataset as numbers");
    KBT_MSG_HAS(err.msg, "/t");
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5r_strv(r, "/x", &sv, &n, &err) == -1, "read numbers as strings");
    KBT_MSG_HAS(err.msg, "/x");
    kb_h5r_close(r);

    /* a truncated artifact: an error (at open or at read), never a crash or garbage */
    size_t len = 0;
    char *bytes = kb_read_file(path, &len, &err);
    assert_non_null(bytes);
    const size_t cuts[] = {0, 8, 100, 512, len / 2, len - 1};
    int opened = 0;
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        char tp[4200];
        snprintf(tp, sizeof tp, "%.4000s.cut%zu", path, c);
        FILE *f = fopen(tp, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(bytes, 1, cuts[c], f), cuts[c]);
        fclose(f);
        memset(&err, 0, sizeof err);
        kb_h5r *t = kb_h5r_open(tp, &err);
        if (!t) {
            KBT_MSG_HAS(err.msg, tp);
            continue;
        }
        opened++;
        double *x = NULL;
        size_t m = 0;
        int rc = kb_h5r_f64(t, "/x", &x, &m, &err);
        KBT_CHECK(rc == -1 || (m == 1200 && x[0] == 1.0), "truncated file at %zu bytes read garbage", cuts[c]);
        free(x);
        kb_h5r_close(t);
    }
    free(bytes);
    print_message("errors: missing file (code 4), non-HDF5, missing attribute/dataset/object, wrong kinds, "
                  "%zu truncations (%d opened, then read or failed cleanly)\n",
                  sizeof cuts / sizeof cuts[0], opened);

    /* too long a path */
    char longp[5000];
    memset(longp, 'x', sizeof longp - 1);
    longp[0] = '/';
    longp[sizeof longp - 1] = '\0';
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_h5w_create(longp, &err) == NULL && err.msg[0], "a 5000-character path was accepted");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_atomic_commit),
        cmocka_unit_test(test_fault_file_size_limit),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("h5", tests, setup, teardown);
}
