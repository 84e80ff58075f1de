/* sandbox.c -- the child's half of the sandbox (see kb_sandbox.h); the parent's is warden.c. */
#include "sandbox/kb_sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <seccomp.h>

#include "core/kb_artifact.h"
#include "core/kb_msg.h"

/* Trapped outright (SIGSYS): see kb_sandbox.h for the grouping. */
static const char *const denied[] = {
    /* files by name */
    "creat", "openat2", "open_by_handle_at", "name_to_handle_at", "mkdir", "mkdirat", "unlink", "unlinkat",
    "rename", "renameat", "renameat2", "rmdir", "truncate", "link", "linkat", "symlink", "symlinkat", "chmod",
    "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat", "mknod", "mknodat", "utime", "utimes",
    "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
    "fremovexattr", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "mount", "umount2", "chroot", "pivot_root", "quotactl", "acct", "swapon", "swapoff",
    /* network */
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    /* processes */
    "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "tkill", "process_madvise",
    /* escapes */
    "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open", "userfaultfd", "setns",
    "unshare", "personality", "add_key", "request_key", "keyctl", "init_module", "finit_module",
    "delete_module", "kexec_load", "kexec_file_load", "reboot", "syslog", "setuid", "setgid", "setreuid",
    "setregid", "setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid", "capset",
};

/* Names of trapped calls by number, for the async-signal-safe reporter. */
static struct {
    int nr;
    char name[24];
} names[160];
static int n_names;
static int report_fd = -1;

static size_t str_copy(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    while (src[n] && n + 1 < cap) {
        dst[n] = src[n];
        n++;
    }
    dst[n] = '\0';
    return n;
}

static size_t fmt_int(char *dst, long v)
{
    char tmp[24];
    size_t n = 0, k = 0;
    if (v < 0) {
        dst[k++] = '-';
        v = -v;
    }
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof tmp);
    while (n)
        dst[k++] = tmp[--n];
    dst[k] = '\0';
    return k;
}

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    kb_msg_status st;
    memset(&st, 0, sizeof st);
    st.code = 1;
    st.kind = KB_OUT_SANDBOX;
    const char *name = "?";
    for (int i = 0; i < n_names; i++)
        if (names[i].nr == si->si_syscall)
            name = names[i].name;
    size_t k = str_copy(st.text, sizeof st.text, "sandbox: forbidden system call ");
    k += str_copy(st.text + k, sizeof st.text - k, name);
    k += str_copy(st.text + k, sizeof st.text - k, " (");
    k += fmt_int(st.text + k, si->si_syscall);
    str_copy(st.text + k, sizeof st.text - k, ")");
    kb_msg_hdr h = {KB_MSG_MAGIC, KB_MSG_FATAL, sizeof st};
    if (report_fd >= 0) {
        ssize_t w = write(report_fd, &h, sizeof h);
        if (w == (ssize_t)sizeof h)
            w = write(report_fd, &st, sizeof st);
        (void)w;
    }
    _exit(KB_RUNNER_EXIT_SANDBOX);
}

static void add_name(int nr, const char *name)
{
    if (n_names < (int)(sizeof names / sizeof names[0])) {
        names[n_names].nr = nr;
        str_copy(names[n_names].name, sizeof names[n_names].name, name);
        n_names++;
    }
}

/* Step 1: no descriptor that writes a file reachable by name survives. stdout/stderr that point
 * at one are pointed at /dev/null instead (a later open must not land on fd 1). */
static void close_writable_files(int keep_a, int keep_b)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return;
    int fds[256], n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d) || fd == keep_a || fd == keep_b)
            continue;
        fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++) {
        struct stat st;
        int fl = fcntl(fds[i], F_GETFL);
        if (fl < 0 || fstat(fds[i], &st) != 0)
            continue;
        if (!S_ISREG(st.st_mode) || st.st_nlink == 0 || (fl & O_ACCMODE) == O_RDONLY || (fl & O_PATH))
            continue;
        if (fds[i] <= 2) {
            int nul = open("/dev/null", O_WRONLY);
            if (nul >= 0) {
                dup2(nul, fds[i]);
                close(nul);
            }
        } else {
            close(fds[i]);
        }
    }
}

/* Step 2. Returns 0 (dropped, or nothing to drop), -1 with a message. */
static int drop_root(char *mode, size_t modelen, char *err, size_t errlen)
{
    if (geteuid() != 0) {
        snprintf(mode, modelen, "uid %d (not root: nothing to drop)", (int)getuid());
        return 0;
    }
    const char *env = getenv("KB_SANDBOX_UID");
    long id = env && env[0] ? strtol(env, NULL, 10) : KB_SANDBOX_UID_DEFAULT;
    if (id <= 0 || id > 0x7fffffff) {
        snprintf(err, errlen, "KB_SANDBOX_UID=%s: give an unprivileged numeric uid (default %d)", env ? env : "",
                 KB_SANDBOX_UID_DEFAULT);
        return -1;
    }
    pid_t parent = getppid();
    if (setgroups(0, NULL) != 0 || setresgid((gid_t)id, (gid_t)id, (gid_t)id) != 0 ||
        setresuid((uid_t)id, (uid_t)id, (uid_t)id) != 0) {
        snprintf(err, errlen, "dropping root to uid/gid %ld: %s", id, strerror(errno));
        return -1;
    }
    if (getuid() != (uid_t)id || geteuid() != (uid_t)id || getegid() != (gid_t)id || setuid(0) == 0) {
        snprintf(err, errlen, "dropping root to uid/gid %ld did not take", id);
        return -1;
    }
    /* a credential change clears the parent-death signal */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    snprintf(mode, modelen, "uid %ld (dropped from root)", id);
    return 0;
}

/* User notification that can install descriptors: libseccomp API 6 (notify with TSYNC) and
 * Linux >= 5.9 (SECCOMP_IOCTL_NOTIF_ADDFD). */
static int can_notify(void)
{
    if (getenv("KB_SANDBOX_FLAGS_ONLY") && getenv("KB_SANDBOX_FLAGS_ONLY")[0] == '1')
        return 0;
    if (seccomp_api_get() < 6)
        return 0;
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
        return 0;
    return major > 5 || (major == 5 && minor >= 9);
}

static int rule(scmp_filter_ctx f, uint32_t action, const char *name, unsigned n, const struct scmp_arg_cmp *c)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR || nr < 0)
        return 0; /* not on this architecture */
    add_name(nr, name);
    return seccomp_rule_add_array(f, action, nr, n, c);
}

/* Flags-only mode: a read-only open passes, anything that writes or creates traps. */
static int open_flag_rules(scmp_filter_ctx f, const char *name, unsigned arg)
{
    static const scmp_datum_t bits[] = {O_CREAT, O_TRUNC, O_APPEND, __O_TMPFILE};
    int rc = 0;
    for (int acc = O_WRONLY; acc <= O_RDWR && rc == 0; acc++) {
        struct scmp_arg_cmp c = {.arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = O_ACCMODE, .datum_b = (scmp_datum_t)acc};
        rc = rule(f, SCMP_ACT_TRAP, name, 1, &c);
    }
    for (size_t i = 0; i < sizeof bits / sizeof bits[0] && rc == 0; i++) {
        struct scmp_arg_cmp c = {.arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = bits[i], .datum_b = bits[i]};
        rc = rule(f, SCMP_ACT_TRAP, name, 1, &c);
    }
    return rc;
}

int kb_sandbox_enter(int fd, int ack_fd, char *mode, size_t modelen, char *err, size_t errlen)
{
    char idmode[64] = "", scratch[8];
    if (!mode) {
        mode = scratch;
        modelen = sizeof scratch;
    }
    report_fd = fd;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0) {
        snprintf(err, errlen, "sigaction(SIGSYS): %s", strerror(errno));
        return -1;
    }
    struct rlimit core = {0, 0}, fsize = {16u << 20, 16u << 20};
    setrlimit(RLIMIT_CORE, &core);
    setrlimit(RLIMIT_FSIZE, &fsize);
    close_writable_files(fd, ack_fd);
    if (drop_root(idmode, sizeof idmode, err, errlen) != 0)
        return -1;
    int notify = can_notify();

    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    if (!f) {
        snprintf(err, errlen, "seccomp_init failed");
        return -1;
    }
    int rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1);
    /* With a warden, forbidden calls go to it too: it names them whatever the child did to its
     * signal mask (a blocked SIGSYS kills without a report: posix_spawn blocks every signal). */
    uint32_t deny = notify ? SCMP_ACT_NOTIFY : SCMP_ACT_TRAP;
    n_names = 0;
    for (size_t i = 0; i < sizeof denied / sizeof denied[0] && rc == 0; i++)
        rc = rule(f, deny, denied[i], 0, NULL);
    /* Argument comparisons spelled out (libseccomp's SCMP_A0 macro leaves a field to zero-fill). */
    scmp_datum_t self = (scmp_datum_t)getpid();
    struct scmp_arg_cmp no_thread = {.arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = CLONE_THREAD, .datum_b = 0};
    struct scmp_arg_cmp other_pid = {.arg = 0, .op = SCMP_CMP_NE, .datum_a = self, .datum_b = 0};
    struct scmp_arg_cmp sigsys = {.arg = 0, .op = SCMP_CMP_EQ, .datum_a = SIGSYS, .datum_b = 0};
    /* Processes, not threads: clone without CLONE_THREAD. */
    if (rc == 0)
        rc = rule(f, deny, "clone", 1, &no_thread);
    /* clone3 passes its flags in memory, out of the filter's sight: make libc fall back to clone. */
    if (rc == 0)
        rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* Signals to other processes (a thread of our own is addressed through our pid). */
    if (rc == 0)
        rc = rule(f, deny, "kill", 1, &other_pid);
    if (rc == 0)
        rc = rule(f, deny, "tgkill", 1, &other_pid);
    if (rc == 0)
        rc = rule(f, deny, "rt_sigqueueinfo", 1, &other_pid);
    if (rc == 0)
        rc = rule(f, deny, "rt_tgsigqueueinfo", 1, &other_pid);
    /* Replacing our SIGSYS reporter. */
    if (rc == 0)
        rc = rule(f, deny, "rt_sigaction", 1, &sigsys);
    /* Opens: to the warden, or by their flags. */
    if (rc == 0 && notify) {
        rc = seccomp_rule_add(f, SCMP_ACT_NOTIFY, SCMP_SYS(open), 0);
        if (rc == 0)
            rc = seccomp_rule_add(f, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 0);
    } else if (rc == 0) {
        rc = open_flag_rules(f, "open", 1);
        if (rc == 0)
            rc = open_flag_rules(f, "openat", 2);
    }
    if (rc == 0)
        rc = seccomp_load(f);
    int listener = (rc == 0 && notify) ? seccomp_notify_fd(f) : -1;
    seccomp_release(f);
    if (rc != 0) {
        snprintf(err, errlen, "seccomp: %s", strerror(-rc));
        return -1;
    }
    if (!notify) {
        snprintf(mode, modelen, "seccomp, flags-only opens, %s", idmode);
        return 0;
    }
    if (listener < 0) {
        snprintf(err, errlen, "seccomp: no notification descriptor");
        return -1;
    }
    kb_msg_warden wm;
    memset(&wm, 0, sizeof wm);
    wm.listener_fd = listener;
    wm.uid = (int32_t)getuid();
    wm.gid = (int32_t)getgid();
    snprintf(wm.mode, sizeof wm.mode, "seccomp+warden, %s", idmode);
    snprintf(mode, modelen, "%s", wm.mode);
    kb_msg_status ack;
    uint32_t type = 0;
    size_t len = 0;
    if (kb_msg_send(fd, KB_MSG_WARDEN, &wm, sizeof wm) != 0 ||
        kb_msg_recv(ack_fd, &type, &ack, sizeof ack, &len, 60.0) != 0 || type != KB_MSG_WARDEN_ACK ||
        len != sizeof ack) {
        snprintf(err, errlen, "the parent did not take the sandbox's warden");
        return -1;
    }
    close(listener); /* the parent holds it now; ours would let the submission answer itself */
    if (ack.code != 0) {
        ack.text[sizeof ack.text - 1] = '\0';
        snprintf(err, errlen, "warden: %s", ack.text);
        return -1;
    }
    return 0;
}
