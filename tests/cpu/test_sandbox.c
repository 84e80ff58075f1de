/*
 * test_sandbox.c -- lib/sandbox/kb_sandbox.h: the child's sandbox and the parent's warden, end to end on
 * the CPU (no CUDA needed: the same code confines kb-runner on the GPU machine).
 *
 * Each case starts this binary again as a probe (`test_sandbox --probe ACTION ARG`) through
 * kb_child_spawn, exactly as a GPU stage starts kb-runner: the probe enters the sandbox, the test
 * attaches the warden when the probe says KB_MSG_WARDEN, then the probe does ACTION and reports
 * what happened (KB_MSG_READY), or dies of it.
 *
 * Pinned:
 *   - code loaded after the sandbox is confined: a shared object whose constructor writes a file
 *     is a violation naming openat and the path, and the file does not exist afterwards; a benign
 *     one loads (the loader's read-only opens work);
 *   - writes through libc and through a raw `syscall` instruction, creates, reads outside the
 *     policy (/etc/passwd), reads of the repository (a relative path), system() (clone, with every
 *     signal blocked by posix_spawn), socket() are each a violation naming the call; a missing file answers ENOENT and the
 *     probe goes on; an allowed read returns the file's bytes;
 *   - a thread that existed before the sandbox (as the CUDA driver's do) is confined too;
 *   - as root the probe runs as uid 65534 afterwards, and it holds no descriptor beyond 0-4 even
 *     when the parent had a file open for writing without O_CLOEXEC;
 *   - flags-only mode (KB_SANDBOX_FLAGS_ONLY=1) still traps writes;
 *   - kb_sandbox_judge on a table of paths.
 */
#include "kbt.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "core/kb_msg.h"
#include "core/kb_proc.h"
#include "sandbox/kb_sandbox.h"

static const char *self_exe;
static char tmpdir[4096];

/* ---- the probe (the child) --------------------------------------------------------------------- */

static int go_fd[2] = {-1, -1};
static char thread_arg[4096];

/* A thread started before the sandbox, like the driver's: it writes a file when told to. */
static void *early_thread(void *arg)
{
    (void)arg;
    char c;
    if (read(go_fd[0], &c, 1) == 1) {
        FILE *f = fopen(thread_arg, "w");
        if (f)
            fclose(f);
    }
    return NULL;
}

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...)
{
    kb_msg_status st;
    memset(&st, 0, sizeof st);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.text, sizeof st.text, fmt, ap);
    va_end(ap);
    kb_msg_send(KB_RUNNER_FD_OUT, KB_MSG_READY, &st, sizeof st);
}

static int probe(const char *action, const char *arg)
{
    pthread_t th;
    if (!strcmp(action, "thread")) {
        snprintf(thread_arg, sizeof thread_arg, "%s", arg);
        if (pipe(go_fd) != 0 || pthread_create(&th, NULL, early_thread, NULL) != 0)
            return 2;
    }
    char mode[128], err[512];
    if (kb_sandbox_enter(KB_RUNNER_FD_OUT, KB_RUNNER_FD_IN, mode, sizeof mode, err, sizeof err) != 0) {
        reply("enter failed: %s", err);
        return 1;
    }
    if (!strcmp(action, "dlopen")) {
        void *h = dlopen(arg, RTLD_NOW | RTLD_LOCAL);
        int *v = h ? (int *)dlsym(h, "probe_value") : NULL;
        reply("dlopen %s value %d [%s]", h ? "ok" : dlerror(), v ? *v : -1, mode);
    } else if (!strcmp(action, "read")) {
        int fd = open(arg, O_RDONLY);
        char b[8];
        ssize_t n = fd >= 0 ? read(fd, b, sizeof b) : -1;
        reply("read fd %d n %zd errno %d [%s]", fd, n, fd < 0 ? errno : 0, mode);
    } else if (!strcmp(action, "write")) {
        FILE *f = fopen(arg, "w");
        reply("write %s [%s]", f ? "succeeded" : strerror(errno), mode);
    } else if (!strcmp(action, "raw")) {
        long fd;
        /* openat(AT_FDCWD, arg, O_WRONLY|O_CREAT|O_TRUNC, 0644) with no libc symbol */
        register long mode_r10 __asm__("r10") = 0644;
        __asm__ volatile("syscall"
                         : "=a"(fd)
                         : "a"((long)SYS_openat), "D"((long)AT_FDCWD), "S"(arg), "d"((long)(O_WRONLY | O_CREAT | O_TRUNC)),
                           "r"(mode_r10)
                         : "rcx", "r11", "memory");
        reply("raw openat returned %ld [%s]", fd, mode);
    } else if (!strcmp(action, "system")) {
        int rc = system(arg);
        reply("system returned %d [%s]", rc, mode);
    } else if (!strcmp(action, "socket")) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        reply("socket returned %d [%s]", s, mode);
    } else if (!strcmp(action, "thread")) {
        char c = 'g';
        if (write(go_fd[1], &c, 1) != 1)
            return 2;
        pthread_join(th, NULL);
        reply("thread finished [%s]", mode);
    } else if (!strcmp(action, "ident")) {
        DIR *d = opendir("/proc/self/fd");
        int extra = 0;
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (e->d_name[0] != '.' && atoi(e->d_name) > 4 && atoi(e->d_name) != dirfd(d))
                extra++;
        reply("uid %d euid %d gid %d extra_fds %d dir %s [%s]", (int)getuid(), (int)geteuid(), (int)getgid(), extra,
              d ? "ok" : strerror(errno), mode);
    } else {
        reply("unknown action %s", action);
    }
    return 0;
}

/* ---- the parent ---------------------------------------------------------------------------------- */

typedef struct outcome {
    int ready;        /* the probe reported */
    char text[1024];  /* its report, or the FATAL text */
    int fatal;        /* a SIGSYS report */
    kb_warden_stats ws;
    int status;
    char log[8192];
} outcome;

static outcome run_probe(const char *action, const char *arg, const char *allow)
{
    outcome o;
    memset(&o, 0, sizeof o);
    char log[4200];
    snprintf(log, sizeof log, "%s/probe.log", tmpdir);
    char *argv[] = {(char *)self_exe, "--probe", (char *)action, (char *)arg, NULL};
    kb_child ch;
    kb_err err = {0};
    KBT_CHECK(kb_child_spawn(argv, log, &ch, &err) == 0, "spawn: %s", err.msg);
    char cwd[4096];
    KBT_CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    const char *allow_files[] = {allow, NULL};
    const char *deny[] = {cwd, NULL};
    kb_sandbox_policy pol = {kb_sandbox_default_reads(), kb_sandbox_default_devices(), allow_files, deny};
    kb_warden *w = NULL;
    for (;;) {
        uint32_t type;
        size_t len;
        char buf[2048];
        if (kb_msg_recv(ch.from_child, &type, buf, sizeof buf, &len, 20.0) != 0)
            break;
        if (type == KB_MSG_WARDEN && len == sizeof(kb_msg_warden) && !w) {
            kb_msg_warden wm;
            memcpy(&wm, buf, sizeof wm);
            w = kb_warden_attach(ch.pid, wm.listener_fd, &pol, ch.log_fd, &err);
            KBT_CHECK(w != NULL, "warden: %s", err.msg);
            kb_msg_status ack = {0, 0, ""};
            kb_msg_send(ch.to_child, KB_MSG_WARDEN_ACK, &ack, sizeof ack);
        } else if ((type == KB_MSG_READY || type == KB_MSG_FATAL) && len == sizeof(kb_msg_status)) {
            kb_msg_status st;
            memcpy(&st, buf, sizeof st);
            o.ready = type == KB_MSG_READY;
            o.fatal = type == KB_MSG_FATAL;
            snprintf(o.text, sizeof o.text, "%s", st.text);
            break;
        }
    }
    if (kb_child_wait(&ch, 10.0, &o.status) != 0)
        kb_child_kill(&ch, &o.status);
    kb_child_kill(&ch, NULL);
    kb_warden_get(w, &o.ws);
    kb_warden_free(w);
    char *text = kb_read_file(log, NULL, &err);
    snprintf(o.log, sizeof o.log, "%s", text ? text : "");
    free(text);
    print_message("%-7s %-40.40s -> %s%s%s\n", action, arg, o.ws.violated ? o.ws.violation : o.text,
                  o.fatal ? " (SIGSYS)" : "", o.ready ? " (reported)" : "");
    return o;
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* A shared object with a constructor; `evil` makes it write `path`. */
static void build_so(const char *so, const char *path, int evil)
{
    char src[4200], cmd[12000];
    snprintf(src, sizeof src, "%s/ctor.c", tmpdir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fprintf(f, "#include <stdio.h>\nint probe_value;\n__attribute__((constructor)) static void init(void) {\n");
    if (evil)
        fprintf(f, "  FILE *f = fopen(\"%s\", \"w\"); if (f) { fputs(\"pwned\", f); fclose(f); }\n", path);
    fprintf(f, "  probe_value = 42;\n}\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "gcc -shared -fPIC -o '%s' '%s'", so, src);
    KBT_CHECK(system(cmd) == 0, "%s failed", cmd);
}

static void test_constructor(void **state)
{
    (void)state;
    char so[4200], trace[4200];
    snprintf(so, sizeof so, "%s/good.so", tmpdir);
    build_so(so, "", 0);
    outcome o = run_probe("dlopen", so, so);
    KBT_CHECK(o.ready && strstr(o.text, "dlopen ok value 42"), "a benign object did not load: %s / %s", o.text, o.log);
    KBT_CHECK(!o.ws.violated && o.ws.opens_allowed >= 1, "benign load: violated %d, %ld opens", o.ws.violated,
              o.ws.opens_allowed);

    snprintf(so, sizeof so, "%s/evil.so", tmpdir);
    snprintf(trace, sizeof trace, "%s/kb-evil-ctor", tmpdir);
    build_so(so, trace, 1);
    o = run_probe("dlopen", so, so);
    KBT_CHECK(o.ws.violated && !o.ready, "the constructor's write was not a violation: \"%s\" status %#x log: %s",
              o.text, o.status, o.log);
    KBT_MSG_HAS(o.ws.violation, "openat");
    KBT_MSG_HAS(o.ws.violation, trace);
    KBT_CHECK(!exists(trace), "%s exists: the constructor ran outside the sandbox", trace);
    KBT_CHECK(WIFSIGNALED(o.status) && WTERMSIG(o.status) == SIGKILL, "status %#x", o.status);
    KBT_MSG_HAS(o.log, "VIOLATION");
}

static void test_writes(void **state)
{
    (void)state;
    char trace[4200];
    snprintf(trace, sizeof trace, "%s/kb-evil-libc", tmpdir);
    outcome o = run_probe("write", trace, NULL);
    KBT_CHECK(o.ws.violated && !exists(trace), "libc write: violated %d, exists %d (%s)", o.ws.violated, exists(trace),
              o.text);
    KBT_MSG_HAS(o.ws.violation, "creates a file");

    snprintf(trace, sizeof trace, "%s/kb-evil-raw", tmpdir);
    o = run_probe("raw", trace, NULL);
    KBT_CHECK(o.ws.violated && !exists(trace), "raw syscall: violated %d, exists %d (%s)", o.ws.violated,
              exists(trace), o.text);
    KBT_MSG_HAS(o.ws.violation, "O_WRONLY|O_CREAT|O_TRUNC");

    /* an existing file, opened for writing: not a create, still a violation */
    FILE *f = fopen(trace, "w");
    assert_non_null(f);
    fputs("keep", f);
    fclose(f);
    o = run_probe("write", trace, NULL);
    KBT_CHECK(o.ws.violated, "write to an existing file allowed: %s", o.text);
    KBT_MSG_HAS(o.ws.violation, "opened for writing");
    char *text = kb_read_file(trace, NULL, NULL);
    KBT_CHECK(text && !strcmp(text, "keep"), "the existing file was changed: \"%s\"", text ? text : "(gone)");
    free(text);
    unlink(trace);

    snprintf(trace, sizeof trace, "%s/kb-evil-system", tmpdir);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "id > %s", trace);
    o = run_probe("system", cmd, NULL);
    KBT_CHECK(o.ws.violated && strstr(o.ws.violation, "forbidden system call clone") && !exists(trace),
              "system(): \"%s\", exists %d", o.ws.violated ? o.ws.violation : o.text, exists(trace));

    o = run_probe("socket", "-", NULL);
    KBT_CHECK(o.ws.violated && strstr(o.ws.violation, "forbidden system call socket"), "socket(): \"%s\"",
              o.ws.violated ? o.ws.violation : o.text);

    /* a thread from before the sandbox, as the CUDA driver starts them (TSYNC) */
    snprintf(trace, sizeof trace, "%s/kb-evil-thread", tmpdir);
    o = run_probe("thread", trace, NULL);
    KBT_CHECK(o.ws.violated && !exists(trace), "early thread: violated %d exists %d (%s)", o.ws.violated,
              exists(trace), o.text);
}

static void test_reads(void **state)
{
    (void)state;
    outcome o = run_probe("read", "/etc/ld.so.cache", NULL);
    KBT_CHECK(o.ready && strstr(o.text, "n 8 ") && !o.ws.violated, "allowed read: %s", o.text);

    o = run_probe("read", "/usr/no/such/file", NULL);
    KBT_CHECK(o.ready && strstr(o.text, "errno 2 ") && !o.ws.violated && o.ws.opens_missing >= 1, "missing file: %s",
              o.text);

    o = run_probe("read", "/etc/passwd", NULL);
    KBT_CHECK(o.ws.violated && !o.ready, "/etc/passwd read allowed: %s", o.text);
    KBT_MSG_HAS(o.ws.violation, "read outside the allowed paths");

    o = run_probe("read", "Makefile", NULL); /* relative: the repository (the test runs from it) */
    KBT_CHECK(o.ws.violated, "the repository's Makefile was readable: %s", o.text);
    KBT_MSG_HAS(o.ws.violation, "read of the repository");

    o = run_probe("read", "/proc/self/status", NULL); /* its own /proc entry, not ours */
    KBT_CHECK(o.ready && !o.ws.violated && strstr(o.text, "n 8 "), "own /proc/self/status: %s", o.text);
}

static void test_identity(void **state)
{
    (void)state;
    /* a descriptor of ours open for writing without O_CLOEXEC must not reach the child */
    char leak[4200];
    snprintf(leak, sizeof leak, "%s/leak", tmpdir);
    int fd = open(leak, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    outcome o = run_probe("ident", "-", NULL);
    close(fd);
    KBT_CHECK(o.ready && strstr(o.text, "extra_fds 0 dir ok"), "descriptors or /proc/self/fd: %s", o.text);
    if (geteuid() == 0)
        KBT_CHECK(strstr(o.text, "uid 65534 euid 65534 gid 65534"), "root was not dropped: %s", o.text);
    KBT_MSG_HAS(o.text, "seccomp+warden");
}

static void test_flags_only(void **state)
{
    (void)state;
    setenv("KB_SANDBOX_FLAGS_ONLY", "1", 1);
    char trace[4200];
    snprintf(trace, sizeof trace, "%s/kb-evil-flags", tmpdir);
    outcome o = run_probe("write", trace, NULL);
    outcome r = run_probe("read", "/etc/ld.so.cache", NULL);
    unsetenv("KB_SANDBOX_FLAGS_ONLY");
    KBT_CHECK(o.fatal && strstr(o.text, "openat") && !exists(trace), "flags-only write: fatal %d \"%s\"", o.fatal, o.text);
    KBT_CHECK(r.ready && strstr(r.text, "n 8 ") && strstr(r.text, "flags-only"), "flags-only read: %s", r.text);
}

static void test_judge(void **state)
{
    (void)state;
    const char *allow[] = {"/work/repo/build/sub/m/level1/x/s0/kernel.so", "/work/repo/build/sub/m/level1/y/s1", NULL};
    const char *deny[] = {"/work/repo", NULL};
    kb_sandbox_policy p = {kb_sandbox_default_reads(), kb_sandbox_default_devices(), allow, deny};
    const struct {
        const char *path;
        int flags;
        unsigned mode;
        int violation;
    } cases[] = {
        {"/usr/lib/x86_64-linux-gnu/libcudnn.so.9", O_RDONLY, S_IFREG | 0644, 0},
        {"/usr/lib/x86_64-linux-gnu/libcudnn.so.9", O_RDWR, S_IFREG | 0644, 1},
        {"/usr/lib/secret", O_RDONLY, S_IFREG | 0600, 1},        /* not world-readable */
        {"/usr", O_RDONLY | O_DIRECTORY, S_IFDIR | 0755, 0},
        {"/usrx/lib", O_RDONLY, S_IFREG | 0644, 1},               /* a prefix is a path, not a string */
        {"/etc/passwd", O_RDONLY, S_IFREG | 0644, 1},
        {"/etc/ld.so.cache", O_RDONLY, S_IFREG | 0644, 0},
        {"/work/repo/Makefile", O_RDONLY, S_IFREG | 0644, 1},
        {"/work/repo/build/sub/m/level1/x/s0/kernel.so", O_RDONLY, S_IFREG | 0644, 0},
        {"/work/repo/build/sub/m/level1/x/s0/kernel.so.map", O_RDONLY, S_IFREG | 0644, 1}, /* a file is not a tree */
        /* a .py sample's directory: its snapshot and extensions, not its neighbours */
        {"/work/repo/build/sub/m/level1/y/s1/ext/k/e.so", O_RDONLY, S_IFREG | 0644, 0},
        {"/work/repo/build/sub/m/level1/y/s1", O_RDONLY | O_DIRECTORY, S_IFDIR | 0755, 0},
        {"/work/repo/build/sub/m/level1/y/s10/kernel.py", O_RDONLY, S_IFREG | 0644, 1},
        {"/work/repo/build/sub/m/level1/y/s1/ext/k/e.so", O_WRONLY, S_IFREG | 0644, 1},
        {"/dev/nvidiactl", O_RDWR, S_IFCHR | 0666, 0},
        {"/dev/nvidia0", O_RDWR | O_TRUNC, S_IFCHR | 0666, 1},
        {"/dev/nvidia-fake", O_RDWR, S_IFREG | 0666, 1},          /* a file named like a device */
        {"/tmp/x", O_WRONLY | O_CREAT, 0, 1},
        {"/proc/4242/maps", O_RDONLY, S_IFREG | 0444, 0},          /* the child's own */
        {"/proc/4243/environ", O_RDONLY, S_IFREG | 0400, 1},       /* another process */
        {"/proc/42420/maps", O_RDONLY, S_IFREG | 0444, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char reason[128] = "";
        int v = kb_sandbox_judge(&p, cases[i].path, cases[i].flags, cases[i].mode, 4242, reason, sizeof reason);
        KBT_CHECK(v == cases[i].violation, "%s flags %#x mode %o: got %d (%s), expected %d", cases[i].path,
                  cases[i].flags, cases[i].mode, v, reason, cases[i].violation);
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--probe"))
        return probe(argv[2], argv[3]);
    static char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 1;
    exe[n] = '\0';
    self_exe = exe;
    char *d = kbt_tmpdir("sandbox");
    if (!d)
        return 1;
    /* the probe drops to uid 65534: it must be able to reach and read its test objects */
    chmod(d, 0755);
    snprintf(tmpdir, sizeof tmpdir, "%s", d);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judge),      cmocka_unit_test(test_constructor), cmocka_unit_test(test_writes),
        cmocka_unit_test(test_reads),      cmocka_unit_test(test_identity),    cmocka_unit_test(test_flags_only),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    kbt_rmtree(d);
    free(d);
    return rc;
}
