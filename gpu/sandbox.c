/* sandbox.c -- see kb_sandbox.h. */
#include "kb_sandbox.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <seccomp.h>

#include "kb_artifact.h"
#include "kb_msg.h"

static const char *const denied[] = {
    "open", "openat", "openat2", "creat", "mkdir", "mkdirat", "unlink", "unlinkat", "rename", "renameat",
    "renameat2", "rmdir", "truncate", "link", "linkat", "symlink", "symlinkat", "chmod", "fchmod",
    "fchmodat", "chown", "fchown", "lchown", "fchownat", "mknod", "mknodat", "socket", "socketpair", "connect",
    "bind", "listen", "accept", "accept4", "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv",
    "process_vm_writev", "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open",
    "userfaultfd", "mount", "umount2", "chroot", "pivot_root", "setns", "unshare", "personality",
};

/* Names of denied calls by number, for the async-signal-safe reporter. */
static struct {
    int nr;
    char name[24];
} names[96];
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

int kb_sandbox_enter(int fd, char *err, size_t errlen)
{
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

    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
    if (!f) {
        snprintf(err, errlen, "seccomp_init failed");
        return -1;
    }
    int rc = 0;
    n_names = 0;
    for (size_t i = 0; i < sizeof denied / sizeof denied[0] && rc == 0; i++) {
        int nr = seccomp_syscall_resolve_name(denied[i]);
        if (nr == __NR_SCMP_ERROR || nr < 0)
            continue; /* not on this architecture */
        rc = seccomp_rule_add(f, SCMP_ACT_TRAP, nr, 0);
        if (n_names < (int)(sizeof names / sizeof names[0])) {
            names[n_names].nr = nr;
            str_copy(names[n_names].name, sizeof names[n_names].name, denied[i]);
            n_names++;
        }
    }
    /* Argument comparisons spelled out (libseccomp's SCMP_A0 macro leaves a field to zero-fill). */
    struct scmp_arg_cmp no_thread = {.arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = CLONE_THREAD, .datum_b = 0};
    struct scmp_arg_cmp other_pid = {.arg = 0, .op = SCMP_CMP_NE, .datum_a = (scmp_datum_t)getpid(), .datum_b = 0};
    struct scmp_arg_cmp sigsys = {.arg = 0, .op = SCMP_CMP_EQ, .datum_a = SIGSYS, .datum_b = 0};
    /* Processes, not threads: clone without CLONE_THREAD. */
    if (rc == 0)
        rc = seccomp_rule_add(f, SCMP_ACT_TRAP, SCMP_SYS(clone), 1, no_thread);
    /* clone3 passes its flags in memory, out of the filter's sight: make libc fall back to clone. */
    if (rc == 0)
        rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* Signals to other processes. */
    if (rc == 0)
        rc = seccomp_rule_add(f, SCMP_ACT_TRAP, SCMP_SYS(kill), 1, other_pid);
    /* Replacing our SIGSYS reporter. */
    if (rc == 0)
        rc = seccomp_rule_add(f, SCMP_ACT_TRAP, SCMP_SYS(rt_sigaction), 1, sigsys);
    const char *extra[] = {"clone", "kill", "rt_sigaction"};
    for (size_t i = 0; i < 3 && n_names < (int)(sizeof names / sizeof names[0]); i++) {
        names[n_names].nr = seccomp_syscall_resolve_name(extra[i]);
        str_copy(names[n_names].name, sizeof names[n_names].name, extra[i]);
        n_names++;
    }
    if (rc == 0)
        rc = seccomp_load(f);
    seccomp_release(f);
    if (rc != 0) {
        snprintf(err, errlen, "seccomp: %s", strerror(-rc));
        return -1;
    }
    return 0;
}
