/*
 * kbt.h -- small helpers shared by the cmocka tests in tests/cpu/ (header-only, static inline).
 *
 * KBT_CHECK(cond, fmt, ...) fails the current test with a message that shows the values, where
 * cmocka's assert_true() would only print the expression. Temporary directories live under
 * $TMPDIR (or /tmp) and are removed by kbt_rmtree().
 */
#ifndef KBT_H
#define KBT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KBT_CHECK(cond, ...)                                                                                          \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            print_error("check failed: %s\n  ", #cond);                                                               \
            fail_msg(__VA_ARGS__);                                                                                    \
        }                                                                                                             \
    } while (0)

/* The error message must mention `needle` (the field, file or option it is about). */
#define KBT_MSG_HAS(msg, needle)                                                                                      \
    KBT_CHECK(strstr((msg), (needle)) != NULL, "message \"%s\" does not mention \"%s\"", (msg), (needle))

/* A fresh directory "$TMPDIR/kbt-<tag>-XXXXXX" (malloc'd path). */
static inline char *kbt_tmpdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/kbt-%s-XXXXXX", base && base[0] ? base : "/tmp", tag);
    if (!mkdtemp(buf)) {
        print_error("mkdtemp %s: %s\n", buf, strerror(errno));
        return NULL;
    }
    return strdup(buf);
}

/* rm -rf of a tree this test made (no symlink following: lstat). */
static inline void kbt_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                char sub[4096];
                if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < (int)sizeof sub)
                    kbt_rmtree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* Number of directory entries whose name contains `needle`. */
static inline int kbt_count_entries(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, needle))
            n++;
    closedir(d);
    return n;
}

static inline int kbt_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* The build directory: $BUILD (as `make test-sh` sets it) or "build". */
static inline const char *kbt_build_dir(void)
{
    const char *b = getenv("BUILD");
    return b && b[0] ? b : "build";
}

/* splitmix64: an independent generator for sampling test inputs (not the code under test). */
static inline uint64_t kbt_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1) from the test's own generator. */
static inline double kbt_unif(uint64_t *s) { return (double)(kbt_next(s) >> 11) * 0x1p-53; }

#endif /* KBT_H */
