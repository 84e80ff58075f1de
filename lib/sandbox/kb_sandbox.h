/*
 * kb_sandbox.h -- confinement of untrusted code. docs/threat-model.md says what a submission may
 * do, what it cannot, and which test proves each line.
 *
 * Two halves, because the process that runs untrusted code cannot be trusted to police itself:
 *
 * The child (kb-runner) calls kb_sandbox_enter() after its trusted set-up (CUDA context, library
 * handles, the problem) and BEFORE it loads any code of the submission, so the submission's
 * static constructors, .init_array and everything after run confined. In order:
 *   1. descriptors that can write a file reachable by name are closed (stdout and stderr are a
 *      pipe to the parent, which writes the log; memfds and deleted files stay);
 *   2. as root, it drops to an unprivileged identity (uid/gid 65534, no supplementary groups;
 *      KB_SANDBOX_UID overrides), so files the stages own cannot be written even if a path
 *      slipped through; the parent-death signal is set again (a credential change clears it);
 *   3. a seccomp-BPF filter, synchronised onto every thread of the process (the CUDA driver's
 *      threads run callbacks such as cudaLaunchHostFunc), traps (SIGSYS -> a FATAL report naming
 *      the call on report_fd, exit KB_RUNNER_EXIT_SANDBOX):
 *        files      creat, openat2, open_by_handle_at, mkdir*, unlink*, rename*, rmdir, truncate,
 *                   link*, symlink*, chmod*, chown*, mknod*, utime*, *xattr, mount API
 *        network    socket, socketpair, connect, bind, listen, accept*
 *        processes  execve*, fork, vfork, clone without CLONE_THREAD (clone3 answers ENOSYS so
 *                   that libc falls back to clone), signals to other processes (kill, tgkill,
 *                   tkill, rt_*sigqueueinfo), pidfd_*, ptrace, process_vm_*, kcmp
 *        escapes    io_uring_* (bypasses seccomp), bpf, perf_event_open, userfaultfd, chroot,
 *                   pivot_root, setns, unshare, personality, keyrings, module and kexec calls,
 *                   set*id, setgroups, capset, rt_sigaction(SIGSYS) (would silence the sandbox)
 *      and hands every open() and openat() to the warden (SCMP_ACT_NOTIFY). With a warden, the
 *      calls above go to it too (it names them even when the child blocked SIGSYS, as
 *      posix_spawn does); only flags-only mode traps them with SIGSYS;
 *   4. it sends the listener's descriptor number (KB_MSG_WARDEN) on report_fd, waits for the
 *      parent's KB_MSG_WARDEN_ACK on ack_fd, and closes its own copy of the listener (else the
 *      submission could answer its own notifications).
 * Where the kernel has no user notification (or no SECCOMP_IOCTL_NOTIF_ADDFD, Linux < 5.9), the
 * filter instead allows read-only opens by their flags and traps the rest ("flags-only" mode:
 * reads are not confined to paths there; the mode is recorded in every artifact).
 *
 * The parent (trusted) runs the warden (kb_warden_*): a thread that reads each notified path
 * from the child's memory, resolves it itself (relative paths against the child's cwd or
 * directory descriptor, /proc/self and /dev/fd as the child's), and checks the canonical path
 * and flags against a policy (kb_sandbox_policy). Allowed: the warden opens the file and
 * installs the descriptor in the child (SECCOMP_IOCTL_NOTIF_ADDFD), so what is opened is what
 * was checked, whatever the child does to the path's memory meanwhile. A missing file answers
 * ENOENT. Anything else -- a write, a create, a read outside the policy -- is a violation: the
 * warden records the call, path and reason, kills the child, and the session reports
 * sandbox_violation with that text.
 *
 * Left allowed on purpose: ioctl and mmap (the driver), prctl, memfd_create and ftruncate (the
 * driver names the threads it starts and backs stream-ordered pools with anonymous files; none
 * of them reaches a file by name), read/write on descriptors the child holds (pipes, memfds, the
 * driver's files), seccomp (it can only add filters), stat-like calls (they reveal metadata
 * only). Limits: no core files; files may not grow beyond 16 MiB.
 */
#ifndef KB_SANDBOX_H
#define KB_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KB_RUNNER_EXIT_SANDBOX 86
#define KB_SANDBOX_UID_DEFAULT 65534

/* ---- the child --------------------------------------------------------------------------------- */

/* Enters the sandbox (steps 1-4 above). report_fd carries the SIGSYS reports and KB_MSG_WARDEN;
 * ack_fd the parent's answer. `mode` (may be NULL) receives what is in force. Returns 0, or -1
 * with a message (the caller must then not load the submission). */
int kb_sandbox_enter(int report_fd, int ack_fd, char *mode, size_t modelen, char *err, size_t errlen);

/* ---- the parent -------------------------------------------------------------------------------- */

/* What the warden lets a child open. Paths are canonical (no symlinks, no "..") and absolute;
 * a prefix ending in '/' covers a directory tree, one without covers that exact path and, if it
 * is a directory, its tree. Precedence: allow_files, then deny_prefixes, then the rest. */
typedef struct kb_sandbox_policy {
    const char *const *read_prefixes;   /* readable (regular files and directories must also be
                                           readable by everyone: mode o+r) */
    const char *const *device_prefixes; /* character devices that may be opened read-write (the
                                           driver's /dev/nvidia*), never created or truncated */
    const char *const *allow_files;     /* readable whatever the rest says (the submission; for a
                                           .py, its sample directory and its problem's spec): a
                                           file, or a directory and its tree */
    const char *const *deny_prefixes;   /* never (the repository, the artifacts) */
} kb_sandbox_policy;

/* The defaults: system libraries and data (/usr, /lib, /lib64, /etc/ld.so.*), the CUDA
 * toolkit, the process's own /proc entries, the driver's /proc and /sys entries, /dev/null,
 * /dev/zero, /dev/urandom; devices /dev/nvidia*. NULL-terminated arrays, static storage. */
const char *const *kb_sandbox_default_reads(void);
const char *const *kb_sandbox_default_devices(void);

typedef struct kb_warden kb_warden;

typedef struct kb_warden_stats {
    long opens_allowed;  /* descriptors installed */
    long opens_missing;  /* answered ENOENT (or another resolution error) */
    int violated;        /* 1 once a violation was recorded (the child was killed) */
    char violation[1024];/* "openat(\"/etc/passwd\", O_RDONLY): read outside the allowed paths" */
} kb_warden_stats;

/* Takes the child's listener (descriptor `child_fd` of process `pid`, through pidfd_getfd) and
 * starts serving it in a thread. The policy's strings are copied. log_fd (or -1): where the
 * warden writes one line per violation, and per decision when KB_SANDBOX_AUDIT=1 is set. */
kb_warden *kb_warden_attach(pid_t pid, int child_fd, const kb_sandbox_policy *policy, int log_fd, kb_err *err);
/* A snapshot (thread-safe). */
void kb_warden_get(kb_warden *w, kb_warden_stats *st);
/* Stops the thread and frees everything. NULL is fine. */
void kb_warden_free(kb_warden *w);

/* One path decision, for tests: 0 = allowed, 1 = violation (reason filled). `path` must be
 * canonical; `st_mode` its mode (0 if it does not exist); `self_pid` the child's pid. */
int kb_sandbox_judge(const kb_sandbox_policy *p, const char *path, int flags, unsigned st_mode, pid_t self_pid,
                     char *reason, size_t rlen);

#ifdef __cplusplus
}
#endif

#endif /* KB_SANDBOX_H */
