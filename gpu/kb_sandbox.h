/*
 * kb_sandbox.h -- the sandbox kb-runner enters after CUDA is initialised and the submission is
 * loaded, before kb_forward first runs.
 *
 * Mechanism: a seccomp-BPF filter built with libseccomp (the kernel's own system-call filter:
 * it cannot be undone by the filtered process, needs no privileges, and works inside containers
 * and VMs where namespaces or Landlock may be missing), plus resource limits. CUDA keeps
 * working because its device files are already open and it needs only ioctl/mmap/futex-style
 * calls afterwards. Denied (the call traps with SIGSYS; the runner reports which call and exits
 * with KB_RUNNER_EXIT_SANDBOX):
 *   files      open, openat, openat2, creat, mkdir*, unlink*, rename*, rmdir, truncate, link*,
 *              symlink*, chmod*, chown*, mknod*
 *   network    socket, socketpair, connect, bind, listen, accept*
 *   processes  execve*, fork, vfork, clone without CLONE_THREAD (clone3 answers ENOSYS so that
 *              libc falls back to clone), kill of another process, ptrace, process_vm_*
 *   escapes    io_uring_* (bypasses seccomp), bpf, perf_event_open, userfaultfd, mount, chroot,
 *              pivot_root, setns, unshare, personality, rt_sigaction(SIGSYS) (would silence the
 *              sandbox)
 * Left allowed on purpose: prctl, memfd_create and ftruncate (the CUDA driver names threads it
 * starts later and backs stream-ordered memory pools with anonymous files; none of them
 * reaches a file by name, and nothing escapes without exec, which is denied).
 * Limits: no core files, files may not grow beyond 16 MiB (stdout/stderr log).
 */
#ifndef KB_SANDBOX_H
#define KB_SANDBOX_H

#include <stddef.h>

#define KB_RUNNER_EXIT_SANDBOX 86

/* Installs the SIGSYS reporter (writes a KB_MSG_FATAL message on report_fd) and the filter.
 * Returns 0, or -1 with a message. */
int kb_sandbox_enter(int report_fd, char *err, size_t errlen);

#endif /* KB_SANDBOX_H */
