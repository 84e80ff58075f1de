/*
 * test_proc.c -- lib/core/kb_proc.h: running nvcc-like commands, and the runner child's pipes.
 *
 * Pinned:
 *   - kb_run_cmd captures stdout and stderr interleaved, the exit status, the terminating signal,
 *     runs with stdin = /dev/null, and reports a program that cannot be started as exit 127 with
 *     a message.
 *   - A time limit of 0.5 s kills `sleep 100` promptly (< 2 s), and kills what the command started
 *     too (`sh -c 'sleep 100 & sleep 100'`, and a background job that keeps the pipe open after
 *     its shell exited): the whole process group.
 *   - Output over the limit keeps the head and the tail (half of the limit each) around a marker;
 *     output at the limit is kept whole; 16 MB through the pipe neither blocks nor grows memory.
 *   - kb_describe_status wording; kb_child_spawn's fd 3 / fd 4 protocol pipes, log file,
 *     read deadline (-2), EOF (-1), wait and kill.
 *   - kb_msg_recv: a message that fits arrives whole; one larger than the room (a TIMED reply
 *     with more samples than the parent allowed for) or with a wrong magic is -3, not -1 (EOF),
 *     with the announced length, so the parent can call it a protocol violation and not the
 *     child's crash; EOF is -1.
 */
#include "kbt.h"

#include <signal.h>
#include <sys/wait.h>

#include "core/kb_msg.h"
#include "core/kb_proc.h"

static kb_cmd_result run_sh(const char *script, double timeout, size_t max_output)
{
    char *argv[] = {"sh", "-c", (char *)script, NULL};
    kb_cmd_result res;
    kb_err err = {0};
    int rc = kb_run_cmd(argv, timeout, max_output, &res, &err);
    KBT_CHECK(rc == 0, "kb_run_cmd(sh -c '%s'): %s", script, err.msg);
    return res;
}

static void test_capture_and_status(void **state)
{
    (void)state;
    kb_cmd_result r = run_sh("echo hello; echo oops >&2; echo bye", 10, 1 << 20);
    KBT_CHECK(r.exited && r.exit_status == 0 && !r.signal && !r.timed_out, "status: exited %d status %d signal %d",
              r.exited, r.exit_status, r.signal);
    KBT_CHECK(!strcmp(r.output, "hello\noops\nbye\n"), "output \"%s\"", r.output);
    KBT_CHECK(r.output_len == strlen(r.output) && !r.output_truncated, "length %zu", r.output_len);
    kb_cmd_result_free(&r);
    KBT_CHECK(r.output == NULL, "kb_cmd_result_free leaves a dangling pointer");

    r = run_sh("echo failing; exit 3", 10, 1 << 20);
    KBT_CHECK(r.exited && r.exit_status == 3, "exit 3: exited %d status %d", r.exited, r.exit_status);
    char d[128];
    kb_describe_status(&r, d, sizeof d);
    KBT_CHECK(!strcmp(d, "exit 3"), "describe: \"%s\"", d);
    kb_cmd_result_free(&r);

    r = run_sh("kill -SEGV $$", 10, 1 << 20);
    KBT_CHECK(!r.exited && r.signal == SIGSEGV, "signal: exited %d signal %d", r.exited, r.signal);
    kb_describe_status(&r, d, sizeof d);
    KBT_CHECK(!strncmp(d, "signal 11 (", 11), "describe: \"%s\"", d);
    print_message("signal: \"%s\"\n", d);
    kb_cmd_result_free(&r);

    /* stdin is /dev/null: cat returns at once. Our own stdin is made a pipe that never delivers,
     * so a child that inherited it would block until the time limit. */
    int pfd[2], saved = dup(0);
    assert_int_equal(pipe(pfd), 0);
    dup2(pfd[0], 0);
    r = run_sh("cat; echo done", 3, 1 << 20);
    dup2(saved, 0);
    close(saved);
    close(pfd[0]);
    close(pfd[1]);
    KBT_CHECK(r.exited && r.exit_status == 0 && !strcmp(r.output, "done\n") && r.wall_s < 2,
              "stdin is not /dev/null: cat %s after %.2f s", r.timed_out ? "timed out" : "returned", r.wall_s);
    kb_cmd_result_free(&r);

    char *argv[] = {"/nonexistent/kb-no-such-program", "x", NULL};
    kb_err err = {0};
    assert_int_equal(kb_run_cmd(argv, 5, 4096, &r, &err), 0);
    KBT_CHECK(r.exited && r.exit_status == 127, "unstartable program: exited %d status %d", r.exited, r.exit_status);
    KBT_MSG_HAS(r.output, "kb-no-such-program");
    print_message("unstartable: exit 127, \"%.*s\"\n", (int)strcspn(r.output, "\n"), r.output);
    kb_cmd_result_free(&r);

    r = run_sh("sleep 0.3", 10, 4096);
    KBT_CHECK(r.wall_s >= 0.29 && r.wall_s < 3, "wall_s %g for sleep 0.3", r.wall_s);
    kb_cmd_result_free(&r);
    print_message("capture: stdout+stderr in order, exit 3, SIGSEGV, stdin /dev/null, exit 127, wall time\n");
}

/* Is the process gone (or a zombie waiting for init)? Waits up to 2 s. */
static int gone(pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        if (kill(pid, 0) != 0)
            return 1;
        char p[64], buf[512];
        snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(p, "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = '\0';
            const char *close_paren = strrchr(buf, ')');
            if (close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z')
                return 1;
        }
        usleep(10000);
    }
    return 0;
}

static void test_timeout_kills_group(void **state)
{
    (void)state;
    const struct {
        const char *what, *script;
    } cases[] = {
        {"sleep 100", "exec sleep 100"},
        {"sh -c 'sleep 100 & sleep 100'", "sleep 100 & echo $!; sleep 100"},
        {"background job holding the pipe after its shell exited", "sleep 100 & echo $!; exit 0"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kb_cmd_result r = run_sh(cases[c].script, 0.5, 4096);
        KBT_CHECK(r.timed_out, "%s: not reported as timed out", cases[c].what);
        KBT_CHECK(r.wall_s >= 0.45 && r.wall_s < 2.0, "%s: returned after %.3f s (limit 0.5 s)", cases[c].what, r.wall_s);
        char d[128];
        kb_describe_status(&r, d, sizeof d);
        KBT_CHECK(!strncmp(d, "timeout after", 13), "%s: describe \"%s\"", cases[c].what, d);
        int bg = atoi(r.output);
        if (bg > 0)
            KBT_CHECK(gone((pid_t)bg), "%s: the background sleep (pid %d) survived the time limit", cases[c].what, bg);
        print_message("timeout: %-56s killed after %.3f s%s; \"%s\"\n", cases[c].what, r.wall_s,
                      bg > 0 ? ", background child killed too" : "", d);
        kb_cmd_result_free(&r);
    }
}

static void test_output_limit(void **state)
{
    (void)state;
    /* seq 1 100000: 588895 bytes */
    kb_cmd_result r = run_sh("seq 1 100000", 10, 1000);
    size_t full_len = 0;
    char *full = NULL;
    {
        kb_cmd_result f = run_sh("seq 1 100000", 10, 1 << 20);
        full = f.output;
        full_len = f.output_len;
        KBT_CHECK(!f.output_truncated && full_len == 588895, "reference output %zu bytes", full_len);
    }
    const char *mark = "\n[... output truncated ...]\n";
    KBT_CHECK(r.output_truncated, "588895 bytes with a 1000-byte limit not marked truncated");
    KBT_CHECK(r.output_len == 1000 + strlen(mark) && strlen(r.output) == r.output_len, "kept %zu bytes", r.output_len);
    KBT_CHECK(!memcmp(r.output, full, 500), "the head is not the first 500 bytes");
    KBT_CHECK(!memcmp(r.output + 500, mark, strlen(mark)), "no marker after the head");
    KBT_CHECK(!memcmp(r.output + 500 + strlen(mark), full + full_len - 500, 500), "the tail is not the last 500 bytes");
    print_message("output limit 1000 on 588895 bytes: first 500 bytes, marker, last 500 bytes (%zu kept)\n",
                  r.output_len);
    kb_cmd_result_free(&r);

    /* exactly at the limit: whole, not marked; one byte over: marked */
    r = run_sh("head -c 1000 /dev/zero | tr '\\0' x", 10, 1000);
    KBT_CHECK(!r.output_truncated && r.output_len == 1000, "1000 bytes at limit 1000: truncated %d, %zu bytes",
              r.output_truncated, r.output_len);
    kb_cmd_result_free(&r);
    r = run_sh("head -c 1001 /dev/zero | tr '\\0' x", 10, 1000);
    KBT_CHECK(r.output_truncated, "1001 bytes at limit 1000 not marked truncated");
    kb_cmd_result_free(&r);

    /* 16 MB: drained without blocking the child, memory stays at the limit */
    r = run_sh("head -c 16000000 /dev/zero | tr '\\0' y; echo; echo END", 20, 1 << 16);
    KBT_CHECK(r.exited && r.exit_status == 0 && r.output_truncated && r.wall_s < 10, "16 MB output: status %d, %.2f s",
              r.exit_status, r.wall_s);
    KBT_CHECK(r.output_len <= (1 << 16) + strlen(mark), "kept %zu bytes with a 64 KiB limit", r.output_len);
    KBT_CHECK(strstr(r.output, "END\n") != NULL, "the tail lost the last line");
    kb_cmd_result_free(&r);
    free(full);
    print_message("output at the limit kept whole; 16 MB drained in the limit\n");
}

static void test_child_pipes(void **state)
{
    (void)state;
    char *dir = kbt_tmpdir("proc");
    assert_non_null(dir);
    char log[4200];
    snprintf(log, sizeof log, "%s/child.log", dir);
    /* echo one request line back on fd 4 with a suffix; log something; exit 7 */
    char *argv[] = {"/bin/sh", "-c", "read x <&3; printf '%s!\\n' \"$x\" >&4; echo logged; echo err >&2; exit 7", NULL};
    kb_child ch;
    kb_err err = {0};
    KBT_CHECK(kb_child_spawn(argv, log, &ch, &err) == 0, "spawn: %s", err.msg);
    assert_int_equal(kb_write_full(ch.to_child, "ping\n", 5), 0);
    char buf[16] = "";
    KBT_CHECK(kb_read_full(ch.from_child, buf, 6, 5.0) == 0, "no reply on fd 4");
    KBT_CHECK(!memcmp(buf, "ping!\n", 6), "reply \"%.6s\"", buf);
    int st = 0;
    KBT_CHECK(kb_child_wait(&ch, 5.0, &st) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 7, "child status %#x", st);
    KBT_CHECK(kb_read_full(ch.from_child, buf, 1, 1.0) == -1, "EOF after exit not reported as -1");
    char *text = kb_read_file(log, NULL, &err);
    KBT_CHECK(text && !strcmp(text, "logged\nerr\n"), "log \"%s\"", text ? text : err.msg);
    free(text);
    kb_child_kill(&ch, NULL); /* closes the pipes of an already reaped child */

    /* a silent child: the read deadline, then kill */
    char *argv2[] = {"/bin/sleep", "100", NULL};
    KBT_CHECK(kb_child_spawn(argv2, log, &ch, &err) == 0, "spawn: %s", err.msg);
    double t0 = kb_now_s();
    KBT_CHECK(kb_read_full(ch.from_child, buf, 4, 0.3) == -2, "no timeout from a silent child");
    double dt = kb_now_s() - t0;
    KBT_CHECK(dt >= 0.29 && dt < 2, "read deadline took %.3f s", dt);
    KBT_CHECK(kb_child_wait(&ch, 0.1, &st) == -1, "a sleeping child reported as exited");
    pid_t pid = ch.pid;
    kb_child_kill(&ch, &st);
    KBT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "kill status %#x", st);
    KBT_CHECK(kill(pid, 0) != 0, "the killed child still exists");

    /* an unstartable child: exit 127 and a message in the log */
    char *argv3[] = {"/nonexistent/kb-runner", NULL};
    KBT_CHECK(kb_child_spawn(argv3, log, &ch, &err) == 0, "spawn: %s", err.msg);
    KBT_CHECK(kb_child_wait(&ch, 5.0, &st) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127, "status %#x", st);
    kb_child_kill(&ch, NULL);
    text = kb_read_file(log, NULL, &err);
    KBT_CHECK(text && strstr(text, "kb-runner"), "log of an unstartable child: \"%s\"", text ? text : "");
    /* children of one stage share its log: a later one appends (the stage truncates it once) */
    KBT_CHECK(text && !strncmp(text, "logged\nerr\n", 11), "the first child's lines were lost: \"%s\"", text ? text : "");
    free(text);

    /* a log that cannot be created */
    char badlog[4300];
    snprintf(badlog, sizeof badlog, "%s/no/such/dir/log", dir);
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_child_spawn(argv2, badlog, &ch, &err) == -1, "spawned with an impossible log path");
    KBT_MSG_HAS(err.msg, badlog);
    kbt_rmtree(dir);
    free(dir);
    print_message("child: fd 3 request / fd 4 reply, log, exit 7, EOF -1, deadline -2 after %.2f s, SIGKILL, exit 127\n",
                  dt);
}

static void test_msg_room(void **state)
{
    (void)state;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    char payload[100], buf[100];
    memset(payload, 7, sizeof payload);
    uint32_t type = 0;
    size_t len = 0;
    assert_int_equal(kb_msg_send(fd[1], KB_MSG_TIMED, payload, 40), 0);
    KBT_CHECK(kb_msg_recv(fd[0], &type, buf, sizeof buf, &len, 5.0) == 0 && type == KB_MSG_TIMED && len == 40,
              "a fitting message: type %u len %zu", type, len);
    assert_int_equal(kb_msg_send(fd[1], KB_MSG_TIMED, payload, 100), 0);
    int rc = kb_msg_recv(fd[0], &type, buf, 64, &len, 5.0);
    KBT_CHECK(rc == -3 && type == KB_MSG_TIMED && len == 100, "over the room: rc %d type %u len %zu", rc, type, len);
    close(fd[0]);
    close(fd[1]);
    assert_int_equal(pipe(fd), 0);
    kb_msg_hdr h = {0x12345678u, KB_MSG_TIMED, 4};
    assert_int_equal(kb_write_full(fd[1], &h, sizeof h), 0);
    rc = kb_msg_recv(fd[0], &type, buf, sizeof buf, &len, 5.0);
    KBT_CHECK(rc == -3 && len == 0, "wrong magic: rc %d len %zu", rc, len);
    close(fd[1]);
    char rest[8];
    while (read(fd[0], rest, sizeof rest) > 0) {
    }
    KBT_CHECK(kb_msg_recv(fd[0], &type, buf, sizeof buf, &len, 5.0) == -1, "EOF not -1");
    close(fd[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_and_status),
        cmocka_unit_test(test_timeout_kills_group),
        cmocka_unit_test(test_output_limit),
        cmocka_unit_test(test_child_pipes),
        cmocka_unit_test(test_msg_room),
    };
    return cmocka_run_group_tests_name("proc", tests, NULL, NULL);
}
