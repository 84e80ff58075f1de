/* warden.c -- the parent's half of the sandbox (see kb_sandbox.h): it answers the child's open()
 * and openat() calls, which the child's seccomp filter hands to it. */
#include "sandbox/kb_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/seccomp.h>
#include <seccomp.h>

/* ---- the policy ------------------------------------------------------------------------------ */

static const char *const default_reads[] = {
    "/usr/", "/lib/", "/lib64/", "/etc/ld.so.cache", "/etc/ld.so.preload", "/etc/ld.so.conf",
    "/etc/ld.so.conf.d/", "/etc/localtime", "/proc/driver/nvidia/", "/proc/cpuinfo", "/proc/meminfo",
    "/proc/stat", "/proc/sys/vm/", "/proc/sys/kernel/", "/sys/devices/system/cpu/", "/sys/devices/system/node/",
    "/sys/bus/pci/", "/sys/devices/pci", "/sys/module/nvidia", "/dev/null", "/dev/zero", "/dev/urandom",
    "/dev/random", NULL};
static const char *const default_devices[] = {"/dev/nvidia", "/dev/null", NULL};

const char *const *kb_sandbox_default_reads(void) { return default_reads; }
const char *const *kb_sandbox_default_devices(void) { return default_devices; }

/* `path` lies under `pre` (see kb_sandbox_policy for the two forms). */
static int under(const char *path, const char *pre)
{
    size_t n = strlen(pre);
    if (n > 1 && pre[n - 1] == '/' && strlen(path) == n - 1 && !strncmp(path, pre, n - 1))
        return 1; /* "/usr/" covers /usr itself */
    if (!n || strncmp(path, pre, n) != 0)
        return 0;
    return pre[n - 1] == '/' || path[n] == '\0' || path[n] == '/';
}

/* A prefix match for device names ("/dev/nvidia" covers /dev/nvidia0, /dev/nvidiactl, ...). */
static int starts(const char *path, const char *pre) { return strncmp(path, pre, strlen(pre)) == 0; }

static int any_under(const char *path, const char *const *list)
{
    for (; list && *list; list++)
        if (under(path, *list))
            return 1;
    return 0;
}

/* __O_TMPFILE includes O_DIRECTORY's bit: compare it whole. */
static int is_tmpfile(int flags) { return (flags & __O_TMPFILE) == __O_TMPFILE; }

static int wants_write(int flags)
{
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND)) || is_tmpfile(flags);
}

int kb_sandbox_judge(const kb_sandbox_policy *p, const char *path, int flags, unsigned st_mode, pid_t self_pid,
                     char *reason, size_t rlen)
{
    if (wants_write(flags)) {
        int dev = 0;
        for (const char *const *d = p->device_prefixes; d && *d; d++)
            dev |= starts(path, *d);
        if (dev && S_ISCHR(st_mode) && !(flags & O_TRUNC) && !is_tmpfile(flags))
            return 0;
        snprintf(reason, rlen, "%s", st_mode ? "opened for writing" : "creates a file");
        return 1;
    }
    for (const char *const *a = p->allow_files; a && *a; a++)
        if (under(path, *a)) /* the path itself, or inside it if it is a directory */
            return 0;
    if (any_under(path, p->deny_prefixes)) {
        snprintf(reason, rlen, "read of the repository or the artifacts");
        return 1;
    }
    char own[64]; /* the child's own /proc entries (its /proc/self) */
    snprintf(own, sizeof own, "/proc/%d", (int)self_pid);
    if (!any_under(path, p->read_prefixes) && !under(path, own)) {
        snprintf(reason, rlen, "read outside the allowed paths");
        return 1;
    }
    if ((S_ISREG(st_mode) || S_ISDIR(st_mode)) && !(st_mode & S_IROTH) && !under(path, own)) {
        snprintf(reason, rlen, "read of a file not readable by everyone");
        return 1;
    }
    return 0;
}

/* ---- the warden thread ----------------------------------------------------------------------- */

struct kb_warden {
    pid_t pid;
    int listener, mem_fd, log_fd, audit;
    pthread_t th;
    int started;
    volatile int stop;
    pthread_mutex_t mu;
    kb_warden_stats st;
    char **lists[4]; /* the policy's copied strings */
    kb_sandbox_policy pol;
};

static char **copy_list(const char *const *l)
{
    size_t n = 0;
    while (l && l[n])
        n++;
    char **c = calloc(n + 1, sizeof *c);
    for (size_t i = 0; c && i < n; i++)
        c[i] = strdup(l[i]);
    return c;
}

static void free_list(char **l)
{
    for (size_t i = 0; l && l[i]; i++)
        free(l[i]);
    free(l);
}

static void wlog(kb_warden *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wlog(kb_warden *w, const char *fmt, ...)
{
    if (w->log_fd < 0)
        return;
    char line[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t r = write(w->log_fd, line, (size_t)n); /* O_APPEND: one line per write */
    (void)r;
}

/* The NUL-terminated string at `addr` in the child, page by page. 0, or -1. */
static int read_path(kb_warden *w, uint64_t addr, char *out, size_t cap)
{
    size_t got = 0;
    while (got + 1 < cap) {
        uint64_t a = addr + got;
        size_t chunk = 4096 - (size_t)(a & 4095);
        if (chunk > cap - 1 - got)
            chunk = cap - 1 - got;
        ssize_t n = pread(w->mem_fd, out + got, chunk, (off_t)a);
        if (n <= 0)
            return -1;
        void *z = memchr(out + got, '\0', (size_t)n);
        if (z)
            return 0;
        got += (size_t)n;
    }
    return -1; /* longer than PATH_MAX: ENAMETOOLONG for the child */
}

static const char *flags_text(int flags, char *buf, size_t len)
{
    int acc = flags & O_ACCMODE;
    snprintf(buf, len, "%s%s%s%s%s", acc == O_RDONLY ? "O_RDONLY" : acc == O_WRONLY ? "O_WRONLY" : "O_RDWR",
             flags & O_CREAT ? "|O_CREAT" : "", flags & O_TRUNC ? "|O_TRUNC" : "", flags & O_APPEND ? "|O_APPEND" : "",
             is_tmpfile(flags) ? "|O_TMPFILE" : "");
    return buf;
}

/* The path as the child means it, for absolute paths naming the child's own /proc entries. */
static void as_child(const kb_warden *w, pid_t tid, const char *path, char *out, size_t cap)
{
    static const struct {
        const char *from;
        int task;
    } alias[] = {{"/proc/self", 0}, {"/proc/thread-self", 1}, {"/dev/fd", 2}, {"/dev/stdin", 3}, {"/dev/stdout", 4},
                 {"/dev/stderr", 5}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++) {
        size_t n = strlen(alias[i].from);
        if (strncmp(path, alias[i].from, n) != 0 || (path[n] != '\0' && path[n] != '/'))
            continue;
        const char *rest = path + n;
        switch (alias[i].task) {
        case 0: snprintf(out, cap, "/proc/%d%s", (int)w->pid, rest); return;
        case 1: snprintf(out, cap, "/proc/%d/task/%d%s", (int)w->pid, (int)tid, rest); return;
        case 2: snprintf(out, cap, "/proc/%d/fd%s", (int)w->pid, rest); return;
        default: snprintf(out, cap, "/proc/%d/fd/%d%s", (int)w->pid, alias[i].task - 3, rest); return;
        }
    }
    snprintf(out, cap, "%s", path);
}

static void respond(kb_warden *w, struct seccomp_notif *req, struct seccomp_notif_resp *resp, int error)
{
    resp->id = req->id;
    resp->error = -error;
    resp->val = 0;
    resp->flags = 0;
    ioctl(w->listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

/* Records the first violation (`what`, without the "sandbox: " prefix), logs it and kills the
 * child: the refused call never returns to it. */
static void violation(kb_warden *w, const char *what)
{
    pthread_mutex_lock(&w->mu);
    if (!w->st.violated) {
        w->st.violated = 1;
        snprintf(w->st.violation, sizeof w->st.violation, "sandbox: %.1000s", what);
    }
    pthread_mutex_unlock(&w->mu);
    wlog(w, "[warden] VIOLATION %s; process killed", what);
    kill(w->pid, SIGKILL);
}

static void serve(kb_warden *w, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
    int nr = req->data.nr, dirfd, flags;
    uint64_t addr;
    const char *call;
    if (nr == SCMP_SYS(openat)) {
        call = "openat";
        dirfd = (int)req->data.args[0];
        addr = req->data.args[1];
        flags = (int)req->data.args[2];
    } else if (nr == SCMP_SYS(open)) {
        call = "open";
        dirfd = AT_FDCWD;
        addr = req->data.args[0];
        flags = (int)req->data.args[1];
    } else {
        /* a call the filter forbids outright: name it (the child cannot mask this, unlike SIGSYS) */
        char *name = seccomp_syscall_resolve_num_arch(req->data.arch, nr);
        char what[160];
        snprintf(what, sizeof what, "forbidden system call %s (%d)", name ? name : "?", nr);
        free(name);
        violation(w, what);
        respond(w, req, resp, EPERM);
        return;
    }
    char path[PATH_MAX], want[PATH_MAX + 64], canon[PATH_MAX], link[64], fl[64];
    if (read_path(w, addr, path, sizeof path) != 0) {
        respond(w, req, resp, EFAULT);
        return;
    }
    if (ioctl(w->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) != 0)
        return; /* the caller is gone */
    /* Resolve it here, in the child's terms, without following a final symlink's target blindly:
     * O_PATH opens nothing's contents; the canonical name comes from the descriptor. */
    int base = AT_FDCWD;
    if (path[0] != '/') {
        char b[64];
        if (dirfd == AT_FDCWD)
            snprintf(b, sizeof b, "/proc/%d/cwd", (int)req->pid);
        else
            snprintf(b, sizeof b, "/proc/%d/fd/%d", (int)req->pid, dirfd);
        base = open(b, O_PATH | O_CLOEXEC);
        if (base < 0) {
            respond(w, req, resp, EBADF);
            return;
        }
        snprintf(want, sizeof want, "%s", path);
    } else {
        as_child(w, (pid_t)req->pid, path, want, sizeof want);
    }
    int pfd = openat(base, want, O_PATH | O_CLOEXEC | (flags & (O_NOFOLLOW | O_DIRECTORY)));
    int perr = errno;
    if (base >= 0)
        close(base);
    struct stat st;
    memset(&st, 0, sizeof st);
    canon[0] = '\0';
    if (pfd >= 0) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", pfd);
        ssize_t n = readlink(link, canon, sizeof canon - 1);
        canon[n > 0 ? n : 0] = '\0';
        if (fstat(pfd, &st) != 0)
            st.st_mode = 0;
    }
    const char *shown = canon[0] ? canon : path;
    char reason[128];
    if (pfd < 0 && !wants_write(flags)) {
        /* a missing file reveals nothing; loaders and importers probe many */
        pthread_mutex_lock(&w->mu);
        w->st.opens_missing++;
        pthread_mutex_unlock(&w->mu);
        if (w->audit)
            wlog(w, "[warden] %s(\"%s\", %s): %s", call, path, flags_text(flags, fl, sizeof fl), strerror(perr));
        respond(w, req, resp, perr);
        return;
    }
    if (kb_sandbox_judge(&w->pol, shown, flags, pfd >= 0 ? st.st_mode : 0, w->pid, reason, sizeof reason)) {
        if (pfd >= 0)
            close(pfd);
        char what[1024];
        snprintf(what, sizeof what, "%s(\"%.700s\", %s): %s", call, shown, flags_text(flags, fl, sizeof fl), reason);
        violation(w, what); /* kills first: the call never returns */
        respond(w, req, resp, EACCES);
        return;
    }
    /* Allowed: open what was judged (through the O_PATH descriptor) and give it to the child. */
    int oflags = (flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW | O_PATH)) | O_CLOEXEC | O_NOCTTY;
    int fd = open(link, oflags);
    int oerr = errno;
    close(pfd);
    if (fd < 0) {
        respond(w, req, resp, oerr);
        return;
    }
    /* counted before the answer: the answer lets the child run on, and a reader of the counts after
     * the child has ended (kb_warden_get) must see this open (counted after it, a loaded host
     * read 0 opens of a child that had finished) */
    pthread_mutex_lock(&w->mu);
    w->st.opens_allowed++;
    pthread_mutex_unlock(&w->mu);
    struct seccomp_notif_addfd add;
    memset(&add, 0, sizeof add);
    add.id = req->id;
    add.flags = SECCOMP_ADDFD_FLAG_SEND;
    add.srcfd = (uint32_t)fd;
    add.newfd_flags = (uint32_t)(flags & O_CLOEXEC);
    int r = ioctl(w->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
    if (r < 0 && errno == EINVAL) { /* Linux < 5.14: install, then answer with the number */
        add.flags = 0;
        r = ioctl(w->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
        if (r >= 0) {
            resp->id = req->id;
            resp->error = 0;
            resp->val = r;
            resp->flags = 0;
            ioctl(w->listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
        }
    }
    close(fd);
    if (r < 0) {
        pthread_mutex_lock(&w->mu);
        w->st.opens_allowed--;
        pthread_mutex_unlock(&w->mu);
        respond(w, req, resp, EMFILE);
        return;
    }
    if (w->audit)
        wlog(w, "[warden] %s(\"%s\", %s): allowed as %s", call, path, flags_text(flags, fl, sizeof fl), shown);
}

static void *warden_main(void *arg)
{
    kb_warden *w = arg;
    /* The kernel's structures may be larger than these headers' (it says how large), and it
     * wants the request zeroed before every receive. */
    struct seccomp_notif_sizes sz = {sizeof(struct seccomp_notif), sizeof(struct seccomp_notif_resp), 0};
    syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz);
    size_t nreq = sz.seccomp_notif > sizeof(struct seccomp_notif) ? sz.seccomp_notif : sizeof(struct seccomp_notif);
    size_t nresp = sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ? sz.seccomp_notif_resp
                                                                             : sizeof(struct seccomp_notif_resp);
    struct seccomp_notif *req = calloc(1, nreq);
    struct seccomp_notif_resp *resp = calloc(1, nresp);
    while (req && resp && !w->stop) {
        struct pollfd p = {w->listener, POLLIN, 0};
        int r = poll(&p, 1, 100);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        if (!(p.revents & POLLIN))
            break; /* POLLHUP: every task under the filter is gone */
        memset(req, 0, nreq);
        if (ioctl(w->listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
            if (errno == ENOENT || errno == EINTR)
                continue; /* the caller vanished, or an interruption */
            wlog(w, "[warden] cannot receive: %s; the child's opens now fail", strerror(errno));
            break;
        }
        memset(resp, 0, nresp);
        serve(w, req, resp);
    }
    free(req);
    free(resp);
    return NULL;
}

kb_warden *kb_warden_attach(pid_t pid, int child_fd, const kb_sandbox_policy *policy, int log_fd, kb_err *err)
{
    kb_warden *w = calloc(1, sizeof *w);
    if (!w) {
        kb_errf(err, KB_EXIT_FAIL, "out of memory");
        return NULL;
    }
    w->pid = pid;
    w->listener = w->mem_fd = -1;
    w->log_fd = log_fd >= 0 ? fcntl(log_fd, F_DUPFD_CLOEXEC, 3) : -1; /* outlives the child's */
    const char *a = getenv("KB_SANDBOX_AUDIT");
    w->audit = a && a[0] == '1';
    pthread_mutex_init(&w->mu, NULL);
    char **const *lists = w->lists;
    w->lists[0] = copy_list(policy->read_prefixes);
    w->lists[1] = copy_list(policy->device_prefixes);
    w->lists[2] = copy_list(policy->allow_files);
    w->lists[3] = copy_list(policy->deny_prefixes);
    w->pol.read_prefixes = (const char *const *)lists[0];
    w->pol.device_prefixes = (const char *const *)lists[1];
    w->pol.allow_files = (const char *const *)lists[2];
    w->pol.deny_prefixes = (const char *const *)lists[3];
    if (!lists[0] || !lists[1] || !lists[2] || !lists[3]) {
        kb_errf(err, KB_EXIT_FAIL, "out of memory");
        goto fail;
    }
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) {
        kb_errf(err, KB_EXIT_FAIL, "sandbox warden: pidfd_open(%d): %s (Linux >= 5.6 needed)", (int)pid, strerror(errno));
        goto fail;
    }
    w->listener = (int)syscall(SYS_pidfd_getfd, pidfd, child_fd, 0);
    int e = errno;
    close(pidfd);
    if (w->listener < 0) {
        kb_errf(err, KB_EXIT_FAIL,
                "sandbox warden: pidfd_getfd: %s (the stage needs ptrace rights over its child: run it as root or "
                "as the same user without a ptrace-restricting LSM)",
                strerror(e));
        goto fail;
    }
    fcntl(w->listener, F_SETFD, FD_CLOEXEC);
    char mem[64];
    snprintf(mem, sizeof mem, "/proc/%d/mem", (int)pid);
    w->mem_fd = open(mem, O_RDONLY | O_CLOEXEC);
    if (w->mem_fd < 0) {
        kb_errf(err, KB_EXIT_FAIL, "sandbox warden: %s: %s", mem, strerror(errno));
        goto fail;
    }
    if (pthread_create(&w->th, NULL, warden_main, w) != 0) {
        kb_errf(err, KB_EXIT_FAIL, "sandbox warden: pthread_create failed");
        goto fail;
    }
    w->started = 1;
    return w;
fail:
    kb_warden_free(w);
    return NULL;
}

void kb_warden_get(kb_warden *w, kb_warden_stats *st)
{
    if (!w) {
        memset(st, 0, sizeof *st);
        return;
    }
    pthread_mutex_lock(&w->mu);
    *st = w->st;
    pthread_mutex_unlock(&w->mu);
}

void kb_warden_free(kb_warden *w)
{
    if (!w)
        return;
    if (w->started) {
        w->stop = 1;
        pthread_join(w->th, NULL);
    }
    if (w->listener >= 0)
        close(w->listener);
    if (w->mem_fd >= 0)
        close(w->mem_fd);
    if (w->log_fd >= 0)
        close(w->log_fd);
    for (int i = 0; i < 4; i++)
        free_list(w->lists[i]);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
