/* proc.c -- see kb_proc.h. */
#include "core/kb_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Output capture that keeps the first and the last half of the limit. */
typedef struct capture {
    char *head;
    size_t head_len, limit;
    char *ring;
    size_t ring_len, ring_pos, total;
} capture;

static void capture_add(capture *c, const char *p, size_t n)
{
    size_t half = c->limit / 2;
    for (size_t i = 0; i < n; i++) {
        if (c->head_len < half) {
            c->head[c->head_len++] = p[i];
        } else if (half > 0) {
            c->ring[c->ring_pos] = p[i];
            c->ring_pos = (c->ring_pos + 1) % half;
            if (c->ring_len < half)
                c->ring_len++;
        }
        c->total++;
    }
}

static char *capture_finish(capture *c, size_t *len, int *truncated)
{
    size_t half = c->limit / 2;
    const char *mark = "\n[... output truncated ...]\n";
    int trunc = c->total > c->head_len + c->ring_len;
    size_t n = c->head_len + c->ring_len + (trunc ? strlen(mark) : 0);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    memcpy(out, c->head, c->head_len);
    size_t k = c->head_len;
    if (trunc) {
        memcpy(out + k, mark, strlen(mark));
        k += strlen(mark);
    }
    size_t start = c->ring_len < half ? 0 : c->ring_pos;
    for (size_t i = 0; i < c->ring_len; i++)
        out[k++] = c->ring[(start + i) % (half ? half : 1)];
    out[k] = '\0';
    *len = k;
    *truncated = trunc;
    return out;
}

int kb_run_cmd(char *const argv[], double timeout_s, size_t max_output, kb_cmd_result *res, kb_err *err)
{
    memset(res, 0, sizeof *res);
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return kb_errf(err, KB_EXIT_FAIL, "pipe: %s", strerror(errno));
    double t0 = kb_now_s();
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return kb_errf(err, KB_EXIT_FAIL, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(pfd[1]);
    capture c = {0};
    c.limit = max_output < 2 ? 2 : max_output;
    c.head = malloc(c.limit / 2 + 1);
    c.ring = malloc(c.limit / 2 + 1);
    char buf[65536];
    int status = 0, done = 0;
    while (!done) {
        double left = timeout_s - (kb_now_s() - t0);
        if (left <= 0) {
            kill(-pid, SIGKILL);
            res->timed_out = 1;
            break;
        }
        struct pollfd p = {pfd[0], POLLIN, 0};
        int pr = poll(&p, 1, (int)(left * 1000.0) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr > 0) {
            ssize_t n = read(pfd[0], buf, sizeof buf);
            if (n > 0) {
                if (c.head && c.ring)
                    capture_add(&c, buf, (size_t)n);
            } else if (n == 0 || (n < 0 && errno != EINTR)) {
                done = 1; /* EOF: the child (and everything it started) closed the pipe */
            }
        }
    }
    close(pfd[0]);
    if (res->timed_out)
        kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    res->wall_s = kb_now_s() - t0;
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signal = WTERMSIG(status);
    }
    if (c.head && c.ring)
        res->output = capture_finish(&c, &res->output_len, &res->output_truncated);
    free(c.head);
    free(c.ring);
    if (!res->output)
        res->output = strdup("");
    return 0;
}

void kb_cmd_result_free(kb_cmd_result *res)
{
    free(res->output);
    res->output = NULL;
}

void kb_describe_status(const kb_cmd_result *res, char *buf, size_t len)
{
    if (res->timed_out)
        snprintf(buf, len, "timeout after %.3g s", res->wall_s);
    else if (res->signal)
        snprintf(buf, len, "signal %d (%s)", res->signal, strsignal(res->signal));
    else
        snprintf(buf, len, "exit %d", res->exit_status);
}

/* The child's stdout/stderr pipe, copied into the log by a thread. */
struct kb_pump {
    int out_fd, log_fd;
    pthread_t th;
    volatile int stop; /* set once the child is reaped: drain what is left, then end */
};

static void *pump_main(void *arg)
{
    struct kb_pump *p = arg;
    char buf[65536];
    size_t written = 0;
    int truncated = 0;
    for (;;) {
        struct pollfd pf = {p->out_fd, POLLIN, 0};
        int r = poll(&pf, 1, 50);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r < 0 || p->stop)
                break;
            continue;
        }
        ssize_t n = read(p->out_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* EOF: every writer is gone */
        size_t k = (size_t)n;
        if (written + k > KB_CHILD_LOG_MAX)
            k = KB_CHILD_LOG_MAX - written;
        if (k && kb_write_full(p->log_fd, buf, k) == 0)
            written += k;
        if (k < (size_t)n && !truncated) {
            const char *mark = "\n[... log truncated at 16 MiB ...]\n";
            truncated = kb_write_full(p->log_fd, mark, strlen(mark)) == 0;
        }
    }
    return NULL;
}

static void pump_finish(kb_child *child)
{
    struct kb_pump *p = child->pump;
    if (!p)
        return;
    p->stop = 1;
    pthread_join(p->th, NULL);
    close(p->out_fd);
    free(p);
    child->pump = NULL;
    if (child->log_fd >= 0)
        close(child->log_fd);
    child->log_fd = -1;
}

int kb_child_spawn(char *const argv[], const char *log_path, kb_child *child, kb_err *err)
{
    int req[2], rep[2], out[2];
    child->pid = -1;
    child->to_child = child->from_child = child->log_fd = -1;
    child->pump = NULL;
    if (pipe2(req, O_CLOEXEC) != 0)
        return kb_errf(err, KB_EXIT_FAIL, "pipe: %s", strerror(errno));
    if (pipe2(rep, O_CLOEXEC) != 0) {
        close(req[0]);
        close(req[1]);
        return kb_errf(err, KB_EXIT_FAIL, "pipe: %s", strerror(errno));
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(req[0]);
        close(req[1]);
        close(rep[0]);
        close(rep[1]);
        return kb_errf(err, KB_EXIT_FAIL, "pipe: %s", strerror(errno));
    }
    int logfd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644); /* several children may share it */
    struct kb_pump *pump = calloc(1, sizeof *pump);
    if (logfd < 0 || !pump) {
        int e = errno;
        close(req[0]);
        close(req[1]);
        close(rep[0]);
        close(rep[1]);
        close(out[0]);
        close(out[1]);
        if (logfd >= 0)
            close(logfd);
        free(pump);
        return kb_errf(err, KB_EXIT_FAIL, "cannot create %s: %s", log_path, strerror(e));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(req[0]);
        close(req[1]);
        close(rep[0]);
        close(rep[1]);
        close(out[0]);
        close(out[1]);
        close(logfd);
        free(pump);
        return kb_errf(err, KB_EXIT_FAIL, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0);
        /* fds 3 and 4 are the protocol; dup2 clears O_CLOEXEC on the copies. Move the
         * originals out of the way first in case they are 3 or 4 themselves. */
        int a = fcntl(req[0], F_DUPFD_CLOEXEC, 10), b = fcntl(rep[1], F_DUPFD_CLOEXEC, 10);
        int l = fcntl(out[1], F_DUPFD_CLOEXEC, 10);
        int devnull = open("/dev/null", O_RDONLY);
        if (a < 0 || b < 0 || l < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(l, 1) < 0 || dup2(l, 2) < 0 ||
            dup2(a, 3) < 0 || dup2(b, 4) < 0)
            _exit(126);
        /* nothing else crosses: not the stage's artifacts, locks or logs, whatever their flags */
        if (close_range(5, ~0U, 0) != 0)
            for (int fd = 5; fd < 65536; fd++)
                close(fd);
        execvp(argv[0], argv); /* a .py target starts $KB_PYTHON, found on PATH */
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(req[0]);
    close(rep[1]);
    close(out[1]);
    pump->out_fd = out[0];
    pump->log_fd = logfd;
    child->pid = pid;
    child->to_child = req[1];
    child->from_child = rep[0];
    child->log_fd = logfd;
    if (pthread_create(&pump->th, NULL, pump_main, pump) != 0) {
        close(out[0]);
        free(pump);
        kb_child_kill(child, NULL);
        close(logfd);
        child->log_fd = -1;
        return kb_errf(err, KB_EXIT_FAIL, "pthread_create failed (log pump)");
    }
    child->pump = pump;
    return 0;
}

void kb_child_kill(kb_child *child, int *status)
{
    int st = 0;
    if (child->pid > 0) {
        kill(-child->pid, SIGKILL);
        kill(child->pid, SIGKILL);
        while (waitpid(child->pid, &st, 0) < 0 && errno == EINTR) {
        }
        child->pid = -1;
    }
    if (child->to_child >= 0)
        close(child->to_child);
    if (child->from_child >= 0)
        close(child->from_child);
    child->to_child = child->from_child = -1;
    pump_finish(child);
    if (status)
        *status = st;
}

int kb_child_wait(kb_child *child, double timeout_s, int *status)
{
    double t0 = kb_now_s();
    for (;;) {
        int st;
        pid_t r = waitpid(child->pid, &st, WNOHANG);
        if (r == child->pid) {
            child->pid = -1;
            pump_finish(child);
            if (status)
                *status = st;
            return 0;
        }
        if (r < 0 && errno != EINTR)
            return -1;
        if (kb_now_s() - t0 > timeout_s)
            return -1;
        usleep(2000);
    }
}

int kb_read_full(int fd, void *buf, size_t len, double timeout_s)
{
    char *p = buf;
    double t0 = kb_now_s();
    while (len > 0) {
        double left = timeout_s - (kb_now_s() - t0);
        if (left <= 0)
            return -2;
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000.0) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0)
            return -1;
        if (pr == 0)
            continue;
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int kb_write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}
