/* util.c -- see kb_util.h. */
#include "core/kb_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int kb_errf(kb_err *err, int code, const char *fmt, ...)
{
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

uint64_t kb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double kb_now_s(void) { return (double)kb_now_ns() * 1e-9; }

int kb_retry(int (*try_fn)(void *ctx), void *ctx, double max_s, double sleep_s, void (*on_wait)(void *ctx), int *tries)
{
    const double t0 = kb_now_s();
    int n = 0, rc;
    for (;;) {
        rc = try_fn(ctx);
        n++;
        if (rc != 1 || kb_now_s() - t0 + sleep_s > max_s)
            break;
        if (n == 1 && on_wait)
            on_wait(ctx);
        struct timespec ts = {(time_t)sleep_s, (long)((sleep_s - (double)(time_t)sleep_s) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
    if (tries)
        *tries = n;
    return rc;
}

void kb_utc_iso(char *buf, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char sec[32];
    strftime(sec, sizeof sec, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03ldZ", sec, ts.tv_nsec / 1000000L);
}

int kb_mkdirs(const char *dir, kb_err *err)
{
    char tmp[4096];
    if (kb_fmt(tmp, sizeof tmp, "%s", dir) < 0)
        return kb_errf(err, KB_EXIT_FAIL, "path too long: %s", dir);
    size_t n = strlen(tmp);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] == '/' || tmp[i] == '\0') {
            char c = tmp[i];
            tmp[i] = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return kb_errf(err, KB_EXIT_FAIL, "cannot create directory %s: %s", tmp, strerror(errno));
            tmp[i] = c;
        }
    }
    return 0;
}

int kb_mkdirs_for(const char *path, kb_err *err)
{
    char dir[4096];
    if (kb_fmt(dir, sizeof dir, "%s", path) < 0)
        return kb_errf(err, KB_EXIT_FAIL, "path too long: %s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    return kb_mkdirs(dir, err);
}

char *kb_read_file(const char *path, size_t *len, kb_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        kb_errf(err, errno == ENOENT ? KB_EXIT_MISSING : KB_EXIT_FAIL, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        kb_errf(err, KB_EXIT_FAIL, "cannot read %s", path);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int kb_write_file_atomic(const char *path, const void *data, size_t len, kb_err *err)
{
    char tmp[4200];
    if (kb_mkdirs_for(path, err) != 0)
        return -1;
    if (kb_fmt(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) < 0)
        return kb_errf(err, KB_EXIT_FAIL, "path too long: %s", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return kb_errf(err, KB_EXIT_FAIL, "cannot create %s: %s", tmp, strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return kb_errf(err, KB_EXIT_FAIL, "cannot write %s: %s%s", tmp, strerror(e),
                           e == ENOSPC ? " (disk full: free space and re-run make; finished results are kept)" : "");
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return kb_errf(err, KB_EXIT_FAIL, "cannot flush %s: %s", tmp, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return kb_errf(err, KB_EXIT_FAIL, "cannot rename %s to %s: %s", tmp, path, strerror(e));
    }
    return 0;
}

int kb_write_if_changed(const char *path, const void *data, size_t len, int *changed, kb_err *err)
{
    size_t old_len = 0;
    char *old = kb_read_file(path, &old_len, NULL);
    *changed = !(old && old_len == len && memcmp(old, data, len) == 0);
    free(old);
    return *changed ? kb_write_file_atomic(path, data, len, err) : 0;
}

int kb_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int kb_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return (n < 0 || (size_t)n >= len) ? -1 : n;
}

uint64_t kb_fnv1a64(const void *data, size_t len, uint64_t h)
{
    const unsigned char *p = data;
    if (h == 0)
        h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t kb_mix64(uint64_t x)
{
    /* splitmix64 finaliser */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void kb_fmt_ms(char *buf, size_t len, double ms)
{
    if (ms != ms)
        snprintf(buf, len, "-");
    else if (ms >= 1000.0)
        snprintf(buf, len, "%.2f s", ms / 1000.0);
    else if (ms >= 1.0)
        snprintf(buf, len, "%.3f ms", ms);
    else
        snprintf(buf, len, "%.1f us", ms * 1000.0);
}

void kb_fmt_bytes(char *buf, size_t len, double bytes)
{
    const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", bytes, unit[u]);
}

int kb_version_arg(int argc, char **argv, const char *prog)
{
    int asked = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--version"))
            asked = 1;
    if (!asked)
        return 0;
    char rev[256] = "";
    const char *env = getenv("KB_GIT_REV");
    if (env && env[0]) {
        snprintf(rev, sizeof rev, "%s", env);
    } else {
        char exe[4096], path[4200];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = '\0';
            char *slash = strrchr(exe, '/');
            if (slash)
                *slash = '\0';
            snprintf(path, sizeof path, "%s/../REVISION", exe);
            FILE *f = fopen(path, "r");
            if (f) {
                if (fgets(rev, sizeof rev, f))
                    rev[strcspn(rev, "\n")] = '\0';
                fclose(f);
            }
        }
    }
    printf("%s %s (artifact schema %d)\n", prog, rev[0] ? rev : "unknown", KB_SCHEMA_VERSION);
    return 1;
}

void kb_progress_tag(const char *stage, const char *model, const char *problem, const char *sample, const char *result,
                     char *tag, size_t n)
{
    tag[0] = '\0';
    const char *file = getenv("KB_PROGRESS_FILE"), *tot = getenv("KB_PROGRESS_TOTAL"), *t0s = getenv("KB_PROGRESS_T0");
    if (!file || !file[0] || !tot || !t0s)
        return;
    int fd = open(file, O_RDWR | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return;
    char line[1024];
    char word[64];
    snprintf(word, sizeof word, "%s", result ? result : "");
    word[strcspn(word, " \t:")] = '\0';
    int len = snprintf(line, sizeof line, "%s\t%s\t%s\t%s\t%s\n", stage, model ? model : "", problem ? problem : "",
                       sample && sample[0] ? sample : "-", word);
    long k = 0;
    if (flock(fd, LOCK_EX) == 0) {
        if (len > 0 && write(fd, line, (size_t)len) == len) {
            char buf[65536];
            ssize_t r;
            lseek(fd, 0, SEEK_SET);
            while ((r = read(fd, buf, sizeof buf)) > 0)
                for (ssize_t i = 0; i < r; i++)
                    k += buf[i] == '\n';
        }
        flock(fd, LOCK_UN);
    }
    close(fd);
    long total = strtol(tot, NULL, 10);
    if (k <= 0 || total <= 0)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double elapsed = (double)ts.tv_sec + ts.tv_nsec * 1e-9 - strtod(t0s, NULL);
    if (k < total && elapsed > 0) {
        long eta = (long)(elapsed / (double)k * (double)(total - k) + 0.5);
        snprintf(tag, n, "[%ld/%ld, ETA %ldm%02lds] ", k, total, eta / 60, eta % 60);
    } else {
        snprintf(tag, n, "[%ld/%ld] ", k, total);
    }
}

int kb_tree_claimable(const char *dir, const char *manifest)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode))
        return 2;
    char man[4200];
    snprintf(man, sizeof man, "%s/%s", dir, manifest);
    if (stat(man, &st) == 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 1;
    int others = 0;
    for (struct dirent *e; !others && (e = readdir(d));)
        others = e->d_name[0] != '.';
    closedir(d);
    return others;
}

static int tree_visible(const struct dirent *e) { return e->d_name[0] != '.'; }
static int tree_level(const char *s) { return !strncmp(s, "level", 5) && s[5] >= '1' && s[5] <= '3' && !s[6]; }
/* sK.cu or sK.py, K decimal digits */
static int tree_sample(const char *s)
{
    size_t n = strlen(s), d = s[0] == 's' ? strspn(s + 1, "0123456789") : 0;
    return d > 0 && n == d + 4 && (!strcmp(s + 1 + d, ".cu") || !strcmp(s + 1 + d, ".py"));
}
static void tree_free(struct dirent **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    if (n >= 0)
        free(v);
}

int kb_tree_prune(const char *root, int (*keep)(const char *problem, const char *file, void *ctx), void *ctx,
                  const char *what, size_t *removed, kb_err *err)
{
    struct dirent **lv;
    int nl = scandir(root, &lv, tree_visible, alphasort), rc = 0;
    for (int i = 0; i < nl && rc == 0; i++) {
        char ldir[4096];
        if (!tree_level(lv[i]->d_name) || kb_fmt(ldir, sizeof ldir, "%s/%s", root, lv[i]->d_name) < 0)
            continue;
        struct dirent **pd;
        int np = scandir(ldir, &pd, tree_visible, alphasort);
        for (int j = 0; j < np && rc == 0; j++) {
            char pdir[4096], id[600];
            struct dirent **sf;
            int ns = kb_fmt(pdir, sizeof pdir, "%s/%s", ldir, pd[j]->d_name) >= 0 &&
                             kb_fmt(id, sizeof id, "%s/%s", lv[i]->d_name, pd[j]->d_name) >= 0
                         ? scandir(pdir, &sf, tree_visible, alphasort)
                         : -1;
            int left = 0;
            for (int k = 0; k < ns; k++) {
                char path[4400];
                if (rc != 0 || kb_fmt(path, sizeof path, "%s/%s", pdir, sf[k]->d_name) < 0 || !tree_sample(sf[k]->d_name) ||
                    keep(id, sf[k]->d_name, ctx))
                    left++;
                else if (unlink(path) != 0)
                    rc = kb_errf(err, KB_EXIT_FAIL, "cannot delete the %s %s: %s", what, path, strerror(errno));
                else
                    (*removed)++;
            }
            tree_free(sf, ns);
            if (ns >= 0 && !left)
                rmdir(pdir);
        }
        tree_free(pd, np);
        rmdir(ldir); /* only if empty */
    }
    tree_free(lv, nl);
    return rc;
}
