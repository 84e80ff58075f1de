/*
 * kb_proc.h -- running other programs: a command with a time limit and captured output
 * (nvcc), and a long-lived child connected by pipes (the runner that loads a submission).
 * Children run in their own process group, so a time limit kills everything they started.
 */
#ifndef KB_PROC_H
#define KB_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_cmd_result {
    int exited;      /* 1 if the process exited normally */
    int exit_status; /* its exit status */
    int signal;      /* the signal that ended it, or 0 */
    int timed_out;   /* killed by us after the time limit */
    double wall_s;
    char *output;    /* stdout and stderr interleaved, NUL-terminated, malloc'd; at most
                        max_output bytes (the head and the tail are kept) */
    size_t output_len;
    int output_truncated;
} kb_cmd_result;

/* Runs argv[0] (searched in PATH) with a time limit. Returns 0 if it could be started and
 * waited for (whatever its status), -1 with err otherwise. */
int kb_run_cmd(char *const argv[], double timeout_s, size_t max_output, kb_cmd_result *res, kb_err *err);
void kb_cmd_result_free(kb_cmd_result *res);

/* "exit 2", "signal 11 (Segmentation fault)", "timeout after 300 s". */
void kb_describe_status(const kb_cmd_result *res, char *buf, size_t len);

/* A child process with a request pipe (its fd 3, read end) and a reply pipe (its fd 4, write
 * end); its stdout and stderr are a pipe that a thread of ours copies into `log_path` (created
 * if missing, appended to: the children of one stage share its log, which the stage truncates
 * once; at most KB_CHILD_LOG_MAX bytes per child, then a marker), so the child holds no descriptor
 * of any file: it inherits fds 0 (/dev/null) to 4 and nothing else. */
#define KB_CHILD_LOG_MAX (16u << 20)
typedef struct kb_child {
    pid_t pid;
    int to_child;   /* our write end */
    int from_child; /* our read end */
    int log_fd;     /* the log, O_APPEND: others (the sandbox's warden) may add lines */
    struct kb_pump *pump;
} kb_child;

int kb_child_spawn(char *const argv[], const char *log_path, kb_child *child, kb_err *err);
/* Kills the child's process group (SIGKILL) and reaps it; *status as from waitpid. Both this
 * and kb_child_wait (once it reaped the child) finish the log: everything the child wrote is in
 * the file when they return. */
void kb_child_kill(kb_child *child, int *status);
/* Waits up to timeout_s for the child to exit; 0 and *status if it did, -1 if not. */
int kb_child_wait(kb_child *child, double timeout_s, int *status);

/* Pipe I/O with a deadline. Return 0, or -1 on EOF/error, -2 on timeout. */
int kb_read_full(int fd, void *buf, size_t len, double timeout_s);
int kb_write_full(int fd, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* KB_PROC_H */
