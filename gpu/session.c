/* session.c -- see kb_session.h. */
#include "kb_session.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "kb_gpu.h"
#include "kb/ref.h"
#include "core/kb_problem_load.h"
#include "core/kb_proc.h"
#include "sandbox/kb_sandbox.h"

struct kb_session {
    kb_session_opts o;
    void *handle;
    const kb_problem *p;
    cudaStream_t stream;
    kb_ctx *ctx;
    /* per tensor (inputs: in; outputs: out, ref, mag), sized from the descriptor: any number */
    void **in, **out, **ref, **mag;
    kb_input *ref_ins;   /* the reference call's arguments */
    kb_output *ref_outs;
    uint32_t n_in, n_out; /* what the arrays hold */
    kb_child child;
    int alive;
    kb_call_outcome death; /* how the child ended, once it has */
    char log_path[4096];
    kb_warden *warden;     /* answers the sandboxed child's opens (lib/sandbox/kb_sandbox.h) */
    char sandbox_mode[96];
    char py_spec[4096];    /* a .py target: the problem's spec */
    char py_runner[4096];  /* ... and py/kbpy/runner.py */
    int init_failed;       /* INIT could not be sent (started says why) */
    kb_call_outcome started; /* what kb_session_init saw */
    int hello;             /* the child's HELLO has been read */
    uint8_t *replay_prev;  /* the dropout mask read from the previous call (kb_session_replay) */
    int64_t replay_prev_n;
};

const kb_problem *kb_session_problem(const kb_session *s) { return s->p; }
int kb_session_alive(const kb_session *s) { return s->alive; }

static uint64_t out_bytes(const kb_session *s, uint32_t i) { return kb_spec_bytes(&s->p->outputs[i]); }

/* The child is gone or unusable: reap it and describe why, once. */
static void child_ended(kb_session *s, int timed_out, const kb_msg_status *fatal)
{
    if (!s->alive)
        return;
    s->alive = 0;
    int status = 0;
    if (timed_out || kb_child_wait(&s->child, 5.0, &status) != 0) {
        kb_child_kill(&s->child, &status);
    } else {
        close(s->child.to_child);
        close(s->child.from_child);
        s->child.to_child = s->child.from_child = -1;
    }
    kb_call_outcome *d = &s->death;
    kb_warden_stats ws;
    kb_warden_get(s->warden, &ws);
    if (ws.violated) {
        /* the warden killed it for an open it refused: that, not SIGKILL, is what happened */
        d->outcome = KB_OUT_SANDBOX;
        snprintf(d->detail, sizeof d->detail, "%s", ws.violation);
    } else if (fatal && fatal->code) {
        d->outcome = (fatal->kind > 0 && fatal->kind < KB_OUT__COUNT) ? (kb_outcome)fatal->kind : KB_OUT_CRASH;
        snprintf(d->detail, sizeof d->detail, "%s", fatal->text);
    } else if (timed_out) {
        d->outcome = KB_OUT_TIMEOUT;
        snprintf(d->detail, sizeof d->detail, "no answer within %.3g s: process killed", s->o.call_timeout_s);
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGSYS) {
            d->outcome = KB_OUT_SANDBOX;
            snprintf(d->detail, sizeof d->detail, "killed by SIGSYS (forbidden system call)");
        } else if (sig == SIGABRT) {
            d->outcome = KB_OUT_EXITED;
            snprintf(d->detail, sizeof d->detail, "aborted (SIGABRT) inside kb_forward");
        } else if (sig == SIGXFSZ) {
            d->outcome = KB_OUT_SANDBOX;
            snprintf(d->detail, sizeof d->detail, "exceeded the output file size limit (SIGXFSZ)");
        } else {
            d->outcome = KB_OUT_CRASH;
            snprintf(d->detail, sizeof d->detail, "signal %d (%s)", sig, strsignal(sig));
        }
    } else if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) == KB_RUNNER_EXIT_SANDBOX) {
            d->outcome = KB_OUT_SANDBOX;
            snprintf(d->detail, sizeof d->detail, "forbidden system call");
        } else {
            d->outcome = KB_OUT_EXITED;
            snprintf(d->detail, sizeof d->detail, "the process exited with status %d inside kb_forward",
                     WEXITSTATUS(status));
        }
    } else {
        d->outcome = KB_OUT_CRASH;
        snprintf(d->detail, sizeof d->detail, "the process ended (status 0x%x)", status);
    }
}

static char last_sandbox[96];
static const char *last_kind = "";
static int n_started; /* children this process started */

const char *kb_session_last_kind(void) { return last_kind; }
const char *kb_session_last_sandbox(void) { return last_sandbox; }

/* The policy of a sandboxed child: the system's libraries and the driver, the submission's own
 * object, nothing of the repository or the artifacts (the stages run from the repository). */
int kb_submission_is_py(const char *submission)
{
    size_t n = submission ? strlen(submission) : 0;
    return n > 3 && !strcmp(submission + n - 3, ".py");
}

static const char *py_exe(void)
{
    const char *p = getenv("KB_PYTHON");
    return p && p[0] ? p : "python3";
}

/* Where the Python interpreter's own files live (its prefixes and site-packages: the standard
 * library, torch and its CUDA libraries), canonical: readable inside the sandbox of a .py
 * target. Asked of the interpreter once per process, before any untrusted code runs. */
static char py_reads[16][4096];
static size_t n_py_reads;
static int py_reads_known;

static void python_paths(void)
{
    if (py_reads_known)
        return;
    py_reads_known = 1;
    char cmd[4096 + 512];
    snprintf(cmd, sizeof cmd,
             "'%s' -c 'import sys, site\nfor p in sorted({sys.prefix, sys.base_prefix, sys.exec_prefix, "
             "sys.base_exec_prefix, *site.getsitepackages(), site.getusersitepackages()}): print(p)' 2>/dev/null",
             py_exe());
    FILE *f = popen(cmd, "r");
    if (!f)
        return;
    char line[4096];
    while (n_py_reads < sizeof py_reads / sizeof py_reads[0] && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '/' && realpath(line, py_reads[n_py_reads]))
            n_py_reads++;
    }
    pclose(f);
}

static int attach_warden(kb_session *s, const void *msg, size_t len, kb_msg_status *ack)
{
    memset(ack, 0, sizeof *ack);
    ack->code = 1;
    ack->kind = KB_OUT_HARNESS_ERROR;
    if (len != sizeof(kb_msg_warden)) {
        snprintf(ack->text, sizeof ack->text, "malformed WARDEN message");
        return -1;
    }
    kb_msg_warden wm;
    memcpy(&wm, msg, sizeof wm);
    wm.mode[sizeof wm.mode - 1] = '\0';
    char sub[4096] = "", cwd[4096] = "", cuda[4096] = "";
    if (s->o.submission_so && !realpath(s->o.submission_so, sub))
        sub[0] = '\0';
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';
    const char *cuda_env = getenv("CUDA_HOME");
    if (!realpath(cuda_env && cuda_env[0] ? cuda_env : "/usr/local/cuda", cuda))
        cuda[0] = '\0';
    const char *const *defaults = kb_sandbox_default_reads();
    const char *reads[64];
    size_t n = 0;
    for (; defaults[n] && n < 62; n++)
        reads[n] = defaults[n];
    if (cuda[0])
        reads[n++] = cuda;
    /* a .py target: the interpreter's files, and the sample's build directory (its snapshot,
     * manifest and extensions) and the problem's spec instead of one object */
    char subdir[4096] = "", spec[4096] = "", kbpy[4096] = "";
    int py = kb_submission_is_py(s->o.submission_so);
    if (py) {
        for (size_t i = 0; i < n_py_reads && n < 62; i++)
            reads[n++] = py_reads[i];
        if (sub[0]) {
            snprintf(subdir, sizeof subdir, "%s", sub);
            char *slash = strrchr(subdir, '/');
            if (slash && slash != subdir)
                *slash = '\0';
        }
        if (!realpath(s->py_spec, spec))
            spec[0] = '\0';
        /* the harness's own Python package (py/kbpy): Python reads its sources for tracebacks
         * and warnings; nothing in it is secret */
        if (realpath(s->py_runner, kbpy)) {
            char *sl = strrchr(kbpy, '/');
            if (sl && sl != kbpy)
                *sl = '\0';
        } else {
            kbpy[0] = '\0';
        }
    }
    reads[n] = NULL;
    const char *cand[] = {py ? subdir : sub, spec, kbpy};
    const char *allow[4];
    size_t na = 0;
    for (size_t i = 0; i < 3; i++)
        if (cand[i][0])
            allow[na++] = cand[i];
    allow[na] = NULL;
    const char *deny[] = {cwd[0] ? cwd : NULL, NULL};
    kb_sandbox_policy pol = {reads, kb_sandbox_default_devices(), allow, deny};
    kb_err err = {0};
    s->warden = kb_warden_attach(s->child.pid, wm.listener_fd, &pol, s->child.log_fd, &err);
    if (!s->warden) {
        snprintf(ack->text, sizeof ack->text, "%s", err.msg);
        return -1;
    }
    snprintf(s->sandbox_mode, sizeof s->sandbox_mode, "%s", wm.mode);
    snprintf(last_sandbox, sizeof last_sandbox, "%s", wm.mode);
    ack->code = 0;
    ack->kind = 0;
    return 0;
}

/* Receives the reply to a request; on death or timeout fills co from the death record. Returns
 * 0 with type and len set on a normal reply, 1 if the child is gone (co filled). */
static int await(kb_session *s, uint32_t want, void *buf, size_t cap, size_t *len, double timeout_s, kb_call_outcome *co)
{
    if (!s->alive) {
        *co = s->death;
        return 1;
    }
    uint32_t type;
    /* A FATAL report may be larger than the expected reply: receive into room for either. */
    size_t room = cap > sizeof(kb_msg_status) ? cap : sizeof(kb_msg_status);
    char *tmp = malloc(room);
    if (!tmp) {
        kb_msg_status st = {1, KB_OUT_HARNESS_ERROR, "out of host memory"};
        child_ended(s, 1, &st);
        *co = s->death;
        return 1;
    }
    int rc;
    for (;;) {
        rc = kb_msg_recv(s->child.from_child, &type, tmp, room, len, timeout_s);
        if (rc != 0 || type != KB_MSG_WARDEN || want != KB_MSG_READY || s->warden)
            break;
        /* the child's sandbox is in force and waits for its warden (once, before READY) */
        kb_msg_status ack;
        if (attach_warden(s, tmp, *len, &ack) != 0 || kb_msg_send(s->child.to_child, KB_MSG_WARDEN_ACK, &ack, sizeof ack) != 0) {
            child_ended(s, 1, &ack);
            free(tmp);
            *co = s->death;
            return 1;
        }
    }
    if (rc == -2) {
        child_ended(s, 1, NULL);
    } else if (rc == -3) {
        /* a reply the protocol does not allow: the harness's fault as much as the child's, and
         * never the submission's crash (the child is killed: the stream is out of step) */
        kb_msg_status st = {1, KB_OUT_HARNESS_ERROR, ""};
        snprintf(st.text, sizeof st.text, "protocol violation: message %u of %zu bytes, room for %zu (expected %u)",
                 type, *len, room, want);
        child_ended(s, 1, &st);
    } else if (rc != 0) {
        child_ended(s, 0, NULL);
    } else if (type == KB_MSG_FATAL && *len == sizeof(kb_msg_status)) {
        kb_msg_status st;
        memcpy(&st, tmp, sizeof st);
        st.text[sizeof st.text - 1] = '\0';
        child_ended(s, 0, &st);
    } else if (type != want || *len > cap) {
        kb_msg_status st = {1, KB_OUT_HARNESS_ERROR, ""};
        snprintf(st.text, sizeof st.text, "protocol violation: got message %u of %zu bytes, expected %u", type, *len, want);
        child_ended(s, 1, &st);
    } else {
        memcpy(buf, tmp, *len);
        free(tmp);
        return 0;
    }
    free(tmp);
    *co = s->death;
    return 1;
}

static int send_req(kb_session *s, uint32_t type, const void *p, size_t len, kb_call_outcome *co)
{
    if (!s->alive) {
        *co = s->death;
        return 1;
    }
    if (kb_msg_send(s->child.to_child, type, p, len) != 0) {
        child_ended(s, 0, NULL);
        *co = s->death;
        return 1;
    }
    return 0;
}

/* The children of one stage share its log: the first of this process truncates it (a re-run
 * replaces the log of the run before), each starts with a line saying which child it is. */
static int start_log(const char *path, const char *kind, kb_err *err)
{
    static char truncated[4096];
    int first = strcmp(truncated, path) != 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (first ? O_TRUNC : 0), 0644);
    if (fd < 0)
        return kb_errf(err, KB_EXIT_FAIL, "cannot create %s: %s", path, strerror(errno));
    snprintf(truncated, sizeof truncated, "%s", path);
    char line[128];
    int n = snprintf(line, sizeof line, "== child %d of this stage: %s target\n", ++n_started, kind);
    int rc = kb_write_full(fd, line, (size_t)n);
    close(fd);
    return rc == 0 ? 0 : kb_errf(err, KB_EXIT_FAIL, "writing %s: %s", path, strerror(errno));
}

/* The per-GPU memory-admission lock (beside the GPU lock of kb_gpu_acquire). */
static int admit_lock(int device)
{
    const char *dir = getenv("KB_LOCK_DIR");
    char path[512];
    snprintf(path, sizeof path, "%s/kb-gpu%d.mem.lock", dir && dir[0] ? dir : "/tmp", device);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0)
        flock(fd, LOCK_EX);
    return fd;
}

static void free_tensors(kb_session *s)
{
    for (uint32_t i = 0; s->in && i < s->n_in; i++) {
        if (s->in[i])
            cudaFree(s->in[i]);
        s->in[i] = NULL;
    }
    for (uint32_t i = 0; s->out && i < s->n_out; i++) {
        if (s->out[i])
            cudaFree(s->out[i]);
        if (s->ref[i])
            cudaFree(s->ref[i]);
        if (s->mag[i])
            cudaFree(s->mag[i]);
        s->out[i] = s->ref[i] = s->mag[i] = NULL;
    }
}

static cudaError_t alloc_tensors(kb_session *s, const kb_session_opts *o)
{
    cudaError_t e = cudaSuccess;
    for (uint32_t i = 0; i < s->p->n_inputs && e == cudaSuccess; i++)
        e = cudaMalloc(&s->in[i], kb_spec_bytes(&s->p->inputs[i]));
    for (uint32_t i = 0; i < s->p->n_outputs && e == cudaSuccess; i++) {
        uint64_t b = out_bytes(s, i);
        e = cudaMalloc(&s->out[i], b);
        if (e == cudaSuccess)
            e = cudaMemset(s->out[i], 0, b);
        if (e == cudaSuccess && o->need_reference)
            e = cudaMalloc(&s->ref[i], b);
        if (e == cudaSuccess && o->need_magnitude)
            e = cudaMalloc(&s->mag[i], b);
    }
    return e;
}

kb_session *kb_session_spawn(const kb_session_opts *o, kb_err *err)
{
    signal(SIGPIPE, SIG_IGN);
    kb_session *s = calloc(1, sizeof *s);
    if (!s) {
        kb_errf(err, KB_EXIT_FAIL, "out of memory");
        return NULL;
    }
    s->o = *o;
    s->child.pid = -1;
    s->child.to_child = s->child.from_child = s->child.log_fd = -1;
    snprintf(s->log_path, sizeof s->log_path, "%s", o->log_path);
    s->p = kb_problem_load(o->problem_so, &s->handle, err);
    if (!s->p)
        goto fail;
    s->n_in = s->p->n_inputs;
    s->n_out = s->p->n_outputs;
    s->in = calloc(s->n_in + 1, sizeof *s->in);
    s->out = calloc(s->n_out, sizeof *s->out);
    s->ref = calloc(s->n_out, sizeof *s->ref);
    s->mag = calloc(s->n_out, sizeof *s->mag);
    s->ref_ins = calloc(s->n_in + 1, sizeof *s->ref_ins);
    s->ref_outs = calloc(s->n_out, sizeof *s->ref_outs);
    if (!s->in || !s->out || !s->ref || !s->mag || !s->ref_ins || !s->ref_outs) {
        kb_errf(err, KB_EXIT_FAIL, "out of host memory for the %u tensors of %s", s->n_in + s->n_out, s->p->id);
        goto fail;
    }
    last_kind = o->target == KB_TARGET_REFERENCE      ? "reference"
                : !kb_submission_is_py(o->submission_so) ? "cu"
                : (o->py_class && !strcmp(o->py_class, "Model")) ? "torch"
                                                           : "py";
    /* The child: kb-runner, or for a .py target the same loop hosted by Python. */
    char *argv[20];
    int k = 0;
    char lib[4096 + 32], pyrunner[4096];
    if (o->target == KB_TARGET_SUBMISSION && kb_submission_is_py(o->submission_so)) {
        const char *pd = getenv("KB_PROBLEMS_DIR"), *pr = getenv("KB_PYRUNNER");
        snprintf(s->py_spec, sizeof s->py_spec, "%s/%s.py", pd && pd[0] ? pd : "problems", s->p->id);
        snprintf(pyrunner, sizeof pyrunner, "%s", pr && pr[0] ? pr : "py/kbpy/runner.py");
        snprintf(s->py_runner, sizeof s->py_runner, "%s", pyrunner);
        snprintf(lib, sizeof lib, "%s", o->runner);
        char *slash = strrchr(lib, '/');
        snprintf(slash ? slash + 1 : lib, sizeof lib - (slash ? (size_t)(slash + 1 - lib) : 0), "../lib/libkbrunner.so");
        struct stat sb;
        if (stat(pyrunner, &sb) != 0 || stat(lib, &sb) != 0 || stat(s->py_spec, &sb) != 0) {
            kb_errf(err, KB_EXIT_USAGE, "a .py submission needs %s, %s and the problem's spec %s (run from the "
                    "repository root after make build, or set KB_PYRUNNER / KB_PROBLEMS_DIR)", pyrunner, lib, s->py_spec);
            goto fail;
        }
        python_paths();
        argv[k++] = (char *)py_exe();
        argv[k++] = pyrunner;
        argv[k++] = "--lib";
        argv[k++] = lib;
        argv[k++] = "--spec";
        argv[k++] = s->py_spec;
        argv[k++] = "--class";
        argv[k++] = (char *)(o->py_class ? o->py_class : "ModelNew");
        if (o->py_float64) {
            argv[k++] = "--float64";
            argv[k++] = "1";
        }
    } else {
        argv[k++] = (char *)o->runner;
    }
    argv[k++] = "--problem";
    argv[k++] = (char *)o->problem_so;
    if (o->target == KB_TARGET_SUBMISSION) {
        argv[k++] = "--submission";
        argv[k++] = (char *)o->submission_so;
    }
    argv[k] = NULL;
    if (kb_mkdirs_for(o->log_path, err) != 0 || start_log(o->log_path, last_kind, err) != 0 ||
        kb_child_spawn(argv, o->log_path, &s->child, err) != 0)
        goto fail;
    s->alive = 1;
    return s;
fail:
    kb_session_close(s);
    return NULL;
}

void kb_session_started(kb_session *s, double timeout_s)
{
    if (s->hello || !s->alive)
        return;
    char none[1];
    size_t got;
    kb_call_outcome co;
    if (await(s, KB_MSG_HELLO, none, 0, &got, timeout_s, &co) == 0)
        s->hello = 1;
}

int kb_session_init(kb_session *s, int device, kb_call_outcome *ready, kb_err *err)
{
    memset(ready, 0, sizeof *ready);
    kb_session_started(s, 120.0 + s->o.call_timeout_s);
    s->o.device = device;
    const kb_session_opts *o = &s->o;
    if (cudaStreamCreate(&s->stream) != cudaSuccess) {
        kb_errf(err, KB_EXIT_FAIL, "cudaStreamCreate: %s", cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    /* Device memory: several stages may share a GPU (checks run side by side), so allocation
     * is admitted under a per-GPU memory lock when enough is free, with headroom for the
     * children's own scratch; an allocation that still fails is retried after others finish. */
    {
        uint64_t need = 0;
        for (uint32_t i = 0; i < s->p->n_inputs; i++)
            need += kb_spec_bytes(&s->p->inputs[i]);
        for (uint32_t i = 0; i < s->p->n_outputs; i++)
            /* the shared output, the reference and magnitude buffers, and the child's own copy
             * of the output (gpu/runner.c; a .py child's returned tensor alike), which the child
             * allocates after this admission */
            need += out_bytes(s, i) * (2u + (o->need_reference ? 1u : 0u) + (o->need_magnitude ? 1u : 0u));
        double t_wait = kb_now_s();
        int said = 0;
        for (;;) {
            int mfd = admit_lock(o->device);
            size_t free_b = 0, total_b = 0;
            cudaMemGetInfo(&free_b, &total_b);
            uint64_t headroom = (16ull << 30) + total_b / 20;
            cudaError_t e = cudaSuccess;
            if ((uint64_t)free_b >= need + headroom || kb_now_s() - t_wait > 1800.0)
                e = alloc_tensors(s, o);
            else
                e = cudaErrorMemoryAllocation;
            if (mfd >= 0)
                close(mfd); /* releases the flock */
            if (e == cudaSuccess)
                break;
            free_tensors(s);
            cudaGetLastError();
            if (e != cudaErrorMemoryAllocation || kb_now_s() - t_wait > 1800.0) {
                kb_errf(err, KB_EXIT_FAIL, "allocating the tensors of %s (%llu bytes with the child's output copies): %s",
                        s->p->id, (unsigned long long)need, cudaGetErrorString(e));
                return -1;
            }
            if (!said) {
                fprintf(stderr, "waiting for %.1f GiB of device memory (other stages hold it) ...\n",
                        (double)need / (1u << 30));
                said = 1;
            }
            usleep(500000);
        }
    }
    if (o->need_reference) {
        char msg[512];
        s->ctx = kb_ctx_create(s->stream, o->ref_math, KB_CTX_CACHING, msg, sizeof msg);
        if (!s->ctx) {
            kb_errf(err, KB_EXIT_FAIL, "%s", msg);
            return -1;
        }
    }
    size_t n_t = s->p->n_inputs + s->p->n_outputs;
    size_t len = sizeof(kb_msg_init) + n_t * sizeof(kb_msg_tensor);
    char *buf = calloc(1, len);
    if (!buf) {
        kb_errf(err, KB_EXIT_FAIL, "out of memory");
        return -1;
    }
    kb_msg_init *ini = (kb_msg_init *)buf;
    ini->target = (uint32_t)o->target;
    ini->flags = o->init_flags;
    /* Benchmark only (bench/sandbox-ab.sh measures what the sandbox costs): the artifact then
     * records sandbox = "none", so such a result can never pass for a confined one. */
    const char *off = getenv("KB_BENCH_UNSANDBOXED");
    if (off && off[0] == '1')
        ini->flags &= ~KB_INIT_SANDBOX;
    ini->device = o->device;
    ini->matmul_tf32 = o->target_math.matmul_tf32;
    ini->cudnn_tf32 = o->target_math.cudnn_tf32;
    ini->n_tensors = (uint32_t)n_t;
    kb_msg_tensor *t = (kb_msg_tensor *)(buf + sizeof *ini);
    for (size_t i = 0; i < n_t; i++) {
        void *ptr = i < s->p->n_inputs ? s->in[i] : s->out[i - s->p->n_inputs];
        const kb_tensor_spec *sp = i < s->p->n_inputs ? &s->p->inputs[i] : &s->p->outputs[i - s->p->n_inputs];
        cudaIpcMemHandle_t h;
        cudaError_t e = cudaIpcGetMemHandle(&h, ptr);
        if (e != cudaSuccess) {
            free(buf);
            kb_errf(err, KB_EXIT_FAIL, "cudaIpcGetMemHandle: %s", cudaGetErrorString(e));
            return -1;
        }
        memcpy(t[i].ipc_handle, &h, sizeof h);
        t[i].bytes = kb_spec_bytes(sp);
    }
    int sent = send_req(s, KB_MSG_INIT, buf, len, ready);
    free(buf);
    s->init_failed = sent;
    s->started = *ready;
    return 0;
}

int kb_session_ready(kb_session *s, kb_call_outcome *ready, kb_err *err)
{
    const kb_session_opts *o = &s->o;
    *ready = s->started;
    if (!s->init_failed) {
        kb_msg_status st;
        size_t got;
        /* Context creation, library loading and the submission's initialisers: generous. */
        if (await(s, KB_MSG_READY, &st, sizeof st, &got, 120.0 + o->call_timeout_s, ready) == 0) {
            if (got != sizeof st) {
                ready->outcome = KB_OUT_HARNESS_ERROR;
                snprintf(ready->detail, sizeof ready->detail, "malformed READY");
            } else if (st.code == 0 && st.text[0] && !s->warden) {
                /* flags-only mode: no warden, the child says what is in force */
                st.text[sizeof st.text - 1] = '\0';
                snprintf(s->sandbox_mode, sizeof s->sandbox_mode, "%.95s", st.text);
                snprintf(last_sandbox, sizeof last_sandbox, "%.95s", st.text);
            } else if (st.code) {
                ready->outcome = (st.kind > 0 && st.kind < KB_OUT__COUNT) ? (kb_outcome)st.kind : KB_OUT_LOAD_ERROR;
                snprintf(ready->detail, sizeof ready->detail, "%s", st.text);
                child_ended(s, 0, &st);
            }
        }
    }
    if (ready->outcome == KB_OUT_HARNESS_ERROR) {
        char *tail = kb_session_log_tail(s, 2000);
        kb_errf(err, KB_EXIT_FAIL, "kb-runner failed to start: %s\n%s", ready->detail, tail ? tail : "");
        free(tail);
        return -1;
    }
    return 0;
}

kb_session *kb_session_open(const kb_session_opts *o, kb_call_outcome *ready, kb_err *err)
{
    kb_session *s = kb_session_spawn(o, err);
    if (s && (kb_session_init(s, o->device, ready, err) != 0 || kb_session_ready(s, ready, err) != 0)) {
        kb_session_close(s);
        return NULL;
    }
    return s;
}

void kb_session_close(kb_session *s)
{
    if (!s)
        return;
    if (s->alive) {
        kb_msg_send(s->child.to_child, KB_MSG_QUIT, NULL, 0);
        int st;
        if (kb_child_wait(&s->child, 10.0, &st) != 0)
            kb_child_kill(&s->child, &st);
        s->alive = 0;
    }
    kb_child_kill(&s->child, NULL); /* reaped already: closes what is left, finishes the log */
    kb_warden_free(s->warden);
    if (s->ctx)
        kb_ctx_destroy(s->ctx);
    free_tensors(s);
    free(s->in);
    free(s->out);
    free(s->ref);
    free(s->replay_prev);
    free(s->mag);
    free(s->ref_ins);
    free(s->ref_outs);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

int kb_session_draw(kb_session *s, const kb_draw *inputs, const kb_draw *params, kb_err *err)
{
    /* module state keeps the values its generator gives, whatever the draw: never scaled nor
     * perturbed (a mask stays a mask), and drawn again with every draw, so that what a call
     * updated in place (BatchNorm's running statistics) starts the next from the same values */
    const kb_draw state = {KB_STATE_SEED, 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    for (uint32_t i = 0; i < s->p->n_inputs; i++) {
        const kb_tensor_spec *sp = &s->p->inputs[i];
        const kb_draw *d = sp->role == KB_ROLE_INPUT ? inputs : sp->role == KB_ROLE_PARAM ? params : &state;
        if (kb_dev_generate(s->in[i], sp, i, d, s->stream, err) != 0)
            return -1;
    }
    KB_CUDA_CHECK(err, cudaStreamSynchronize(s->stream));
    if (s->ctx)
        kb_ctx_clear_dropout_mask(s->ctx); /* new inputs: the reference draws its own mask again */
    return 0;
}

/* The reference's arguments: the session's inputs, and out[i] as the outputs. */
static kb_args ref_args(kb_session *s, void *const *out)
{
    for (uint32_t i = 0; i < s->p->n_inputs; i++) {
        const kb_tensor_spec *sp = &s->p->inputs[i];
        s->ref_ins[i] = (kb_input){.name = sp->name, .dtype = sp->dtype, .ndim = sp->ndim, .data = s->in[i]};
        memcpy(s->ref_ins[i].shape, sp->shape, sizeof s->ref_ins[i].shape);
    }
    for (uint32_t i = 0; i < s->p->n_outputs; i++) {
        const kb_tensor_spec *sp = &s->p->outputs[i];
        s->ref_outs[i] = (kb_output){.name = sp->name, .dtype = sp->dtype, .ndim = sp->ndim, .data = out[i]};
        memcpy(s->ref_outs[i].shape, sp->shape, sizeof s->ref_outs[i].shape);
    }
    return (kb_args){KB_ABI_VERSION, s->p->n_inputs, s->ref_ins, s->p->n_outputs, s->ref_outs, s->stream};
}

/* The reference of the current inputs into the magnitude buffers (to_mag) or the reference
 * buffers; abs_inputs first replaces every input by |x| (the magnitude reference). */
static int reference_into(kb_session *s, int abs_inputs, int to_mag, int *nonfinite, kb_err *err)
{
    if (!s->ctx)
        return kb_errf(err, KB_EXIT_FAIL, "session opened without need_reference");
    if (to_mag && !s->mag[0])
        return kb_errf(err, KB_EXIT_FAIL, "session opened without need_magnitude");
    for (uint32_t i = 0; abs_inputs && i < s->p->n_inputs; i++) {
        const kb_tensor_spec *sp = &s->p->inputs[i];
        if (kb_dev_abs(s->in[i], sp->dtype, kb_shape_numel(sp->ndim, sp->shape), s->stream, err) != 0)
            return -1;
    }
    kb_args a = ref_args(s, to_mag ? s->mag : s->ref);
    const kb_output *outs = a.outputs;
    kb_ctx_clear_error(s->ctx);
    int rc = s->p->reference(s->ctx, &a);
    cudaError_t e = cudaStreamSynchronize(s->stream);
    if (rc != 0)
        return kb_errf(err, KB_EXIT_FAIL, "reference of %s failed: %s", s->p->id, kb_ctx_error(s->ctx));
    if (e != cudaSuccess)
        return kb_errf(err, KB_EXIT_FAIL, "reference of %s: %s (%s)", s->p->id, cudaGetErrorName(e), cudaGetErrorString(e));
    if (nonfinite) {
        *nonfinite = 0;
        for (uint32_t i = 0; i < s->p->n_outputs; i++) {
            const kb_tensor_spec *sp = &s->p->outputs[i];
            kb_cmp_stats st;
            if (kb_dev_compare(outs[i].data, outs[i].data, NULL, sp->dtype, kb_shape_numel(sp->ndim, sp->shape), 0.0, 0.0,
                               0.0, &st, s->stream, err) != 0)
                return -1;
            if (st.n_nan_ref || st.n_inf_ref)
                *nonfinite = 1;
        }
    }
    return 0;
}

int kb_session_reference(kb_session *s, int magnitude, int *nonfinite, kb_err *err)
{
    return reference_into(s, magnitude, magnitude, nonfinite, err);
}

int kb_session_replay(kb_session *s, kb_replay_stats *rs, kb_err *err)
{
    memset(rs, 0, sizeof *rs);
    if (!s->p->replay)
        return 0;
    if (!s->ctx)
        return kb_errf(err, KB_EXIT_FAIL, "session opened without need_reference");
    /* the mask the call drew, read from its outputs */
    kb_args a = ref_args(s, s->out);
    kb_ctx_clear_dropout_mask(s->ctx);
    kb_ctx_clear_error(s->ctx);
    int rc = kb_ref_run(s->ctx, &a, s->p, s->p->replay);
    KB_CUDA_CHECK(err, cudaStreamSynchronize(s->stream));
    if (rc != 0)
        return kb_errf(err, KB_EXIT_FAIL, "the dropout replay of %s failed: %s", s->p->id, kb_ctx_error(s->ctx));
    int64_t n = 0;
    double p = 0.0;
    const uint8_t *mask = kb_ctx_dropout_mask(s->ctx, &n, &p);
    if (!mask)
        return kb_errf(err, KB_EXIT_FAIL, "the dropout replay of %s set no mask", s->p->id);
    uint8_t *host = malloc((size_t)n);
    if (!host)
        return kb_errf(err, KB_EXIT_FAIL, "out of host memory for a %lld-element dropout mask", (long long)n);
    cudaError_t e = cudaMemcpy(host, mask, (size_t)n, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        free(host);
        return kb_errf(err, KB_EXIT_FAIL, "dropout mask to the host: %s", cudaGetErrorString(e));
    }
    int64_t read = 0, kept = 0, both = 0, changed = 0;
    const uint8_t *prev = s->replay_prev_n == n ? s->replay_prev : NULL;
    for (int64_t i = 0; i < n; i++) {
        if (host[i] & KB_MASK_UNREAD)
            continue;
        read++;
        kept += host[i] & 1;
        if (prev && !(prev[i] & KB_MASK_UNREAD)) {
            both++;
            changed += (host[i] ^ prev[i]) & 1;
        }
    }
    rs->active = 1;
    rs->n = read;
    rs->kept = kept;
    rs->p = p;
    rs->z = read >= KB_REPLAY_MIN_N ? ((double)kept - (double)read * (1.0 - p)) / sqrt((double)read * p * (1.0 - p)) : 0.0;
    rs->changed = both >= KB_REPLAY_MIN_N ? (double)changed / (double)both : -1.0;
    rs->repeated = rs->changed >= 0.0 && rs->changed < KB_REPLAY_MIN_CHANGED;
    free(s->replay_prev);
    s->replay_prev = host;
    s->replay_prev_n = n;
    /* and the reference again, dropping what the call dropped */
    return reference_into(s, 0, 0, NULL, err);
}

int kb_session_tf32_differs(kb_session *s, int *differs, kb_err *err)
{
    *differs = 0;
    if (!s->ctx || !s->mag[0])
        return kb_errf(err, KB_EXIT_FAIL, "session opened without need_magnitude");
    int nf = 0;
    if (reference_into(s, 0, 0, &nf, err) != 0)
        return -1;
    kb_ctx_set_math(s->ctx, KB_MATH_TF32);
    int rc = reference_into(s, 0, 1, &nf, err);
    kb_ctx_set_math(s->ctx, s->o.ref_math);
    if (rc != 0)
        return -1;
    for (uint32_t i = 0; i < s->p->n_outputs; i++) {
        kb_cmp_stats st;
        if (kb_session_compare_refs(s, i, &st, err) != 0)
            return -1;
        if (st.n_bitwise_diff > 0)
            *differs = 1;
    }
    return 0;
}

static int copy_buffers(kb_session *s, void *const *dst, void *const *src, const char *what, kb_err *err)
{
    for (uint32_t i = 0; i < s->p->n_outputs; i++) {
        if (!src[i] || !dst[i])
            return kb_errf(err, KB_EXIT_FAIL, "%s: output %u has no buffer (session options)", what, i);
        KB_CUDA_CHECK(err, cudaMemcpyAsync(dst[i], src[i], out_bytes(s, i), cudaMemcpyDeviceToDevice, s->stream));
    }
    KB_CUDA_CHECK(err, cudaStreamSynchronize(s->stream));
    return 0;
}

int kb_session_save_outputs(kb_session *s, void *const *dst, kb_err *err)
{
    return copy_buffers(s, dst, s->out, "save outputs", err);
}

int kb_session_save_magnitude(kb_session *s, void *const *dst, kb_err *err)
{
    return copy_buffers(s, dst, s->mag, "save magnitude", err);
}

int kb_session_load_reference(kb_session *s, const void *const *ref, const void *const *mag, kb_err *err)
{
    if (copy_buffers(s, s->ref, (void *const *)ref, "load reference", err) != 0)
        return -1;
    return mag ? copy_buffers(s, s->mag, (void *const *)mag, "load magnitude", err) : 0;
}

int kb_session_poison(kb_session *s, kb_err *err)
{
    for (uint32_t i = 0; i < s->p->n_outputs; i++) {
        const kb_tensor_spec *sp = &s->p->outputs[i];
        if (kb_dev_poison(s->out[i], sp->dtype, kb_shape_numel(sp->ndim, sp->shape), s->stream, err) != 0)
            return -1;
    }
    KB_CUDA_CHECK(err, cudaStreamSynchronize(s->stream));
    return 0;
}

/* A failed call: was it a failed allocation? Ask the child (host-side accounting survives a
 * sticky CUDA error). */
static int allocation_failed(kb_session *s, char *detail, size_t len)
{
    if (!(s->o.init_flags & KB_INIT_MEMTRACK) || !s->alive)
        return 0;
    kb_msg_mem m;
    kb_call_outcome co;
    kb_err err;
    if (kb_session_memory(s, &m, &co, &err) != 0 || co.outcome != KB_OUT_OK || m.n_failed == 0)
        return 0;
    char b[64];
    kb_fmt_bytes(b, sizeof b, (double)m.largest_failed);
    snprintf(detail, len, "a device allocation of %s failed (%lld failed allocations)", b, (long long)m.n_failed);
    return 1;
}

int kb_session_call(kb_session *s, unsigned flags, kb_call_outcome *co, kb_err *err)
{
    memset(co, 0, sizeof *co);
    KB_CUDA_CHECK(err, cudaDeviceSynchronize()); /* our writes are complete before the child reads */
    kb_msg_call c = {flags};
    if (send_req(s, KB_MSG_CALL, &c, sizeof c, co))
        return 0;
    size_t len;
    kb_msg_called r;
    if (await(s, KB_MSG_CALLED, &r, sizeof r, &len, s->o.call_timeout_s, co))
        return 0;
    if (len != sizeof r) {
        co->outcome = KB_OUT_HARNESS_ERROR;
        snprintf(co->detail, sizeof co->detail, "malformed CALLED");
        return 0;
    }
    r.note[sizeof r.note - 1] = '\0';
    co->called = r;
    r.cuda_error_name[sizeof r.cuda_error_name - 1] = '\0';
    r.cuda_error_text[sizeof r.cuda_error_text - 1] = '\0';
    if (r.cuda_error != 0) {
        /* cudaErrorMemoryAllocation = 2 */
        if (r.cuda_error == (int)cudaErrorMemoryAllocation || allocation_failed(s, co->detail, sizeof co->detail)) {
            co->outcome = KB_OUT_OOM;
            if (!co->detail[0])
                snprintf(co->detail, sizeof co->detail, "%s: %s", r.cuda_error_name, r.cuda_error_text);
        } else {
            co->outcome = KB_OUT_CUDA_ERROR;
            snprintf(co->detail, sizeof co->detail, "%s: %s", r.cuda_error_name, r.cuda_error_text);
        }
        /* The child's context is unusable after most CUDA errors: end it. */
        kb_msg_status st = {1, (int32_t)co->outcome, ""};
        snprintf(st.text, sizeof st.text, "%s", co->detail);
        child_ended(s, 1, &st);
        return 0;
    }
    if (r.rc != 0) {
        if (allocation_failed(s, co->detail, sizeof co->detail))
            co->outcome = KB_OUT_OOM;
        else {
            co->outcome = KB_OUT_BAD_RETURN;
            r.note[sizeof r.note - 1] = '\0';
            if (r.note[0]) /* a .py target says why: its exception, or what it returned */
                snprintf(co->detail, sizeof co->detail, "forward failed: %s", r.note);
            else
                snprintf(co->detail, sizeof co->detail, "kb_forward returned %d", r.rc);
        }
        return 0;
    }
    co->outcome = KB_OUT_OK;
    return 0;
}

int kb_session_time(kb_session *s, const kb_msg_time *t, kb_msg_timed *h, kb_msg_sample **samples, kb_call_outcome *co,
                    kb_err *err)
{
    memset(co, 0, sizeof *co);
    memset(h, 0, sizeof *h);
    *samples = NULL;
    KB_CUDA_CHECK(err, cudaDeviceSynchronize());
    if (send_req(s, KB_MSG_TIME, t, sizeof *t, co))
        return 0;
    /* the samples the child may send: the paper timer's trials; the robust timer's timed samples
     * and as many excluded by its clock guard (gpu/timer.c stops excluding after max_samples) */
    const int adaptive = t->adaptive;
    int max_calls = !adaptive ? t->warmup + t->trials : t->warmup + 2 * t->max_samples;
    double timeout = s->o.call_timeout_s * 2.0 + (!adaptive ? 0.0 : t->max_time_s);
    /* every call may take up to the call limit, but a working kernel takes milliseconds: allow
     * the whole run the per-call limit for each call, capped at an hour */
    double per_call_total = s->o.call_timeout_s * (double)max_calls;
    timeout += per_call_total < 3600.0 ? per_call_total : 3600.0;
    size_t cap = sizeof(kb_msg_timed) + (size_t)(max_calls + 1) * sizeof(kb_msg_sample);
    char *buf = malloc(cap);
    if (!buf)
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    size_t len;
    if (await(s, KB_MSG_TIMED, buf, cap, &len, timeout, co)) {
        free(buf);
        return 0;
    }
    memcpy(h, buf, sizeof *h < len ? sizeof *h : len);
    h->stop_reason[sizeof h->stop_reason - 1] = '\0';
    h->text[sizeof h->text - 1] = '\0';
    if (len < sizeof *h || h->n < 0 || len != sizeof *h + (size_t)h->n * sizeof(kb_msg_sample)) {
        free(buf);
        co->outcome = KB_OUT_HARNESS_ERROR;
        snprintf(co->detail, sizeof co->detail, "malformed TIMED");
        return 0;
    }
    *samples = malloc((size_t)(h->n ? h->n : 1) * sizeof **samples);
    if (!*samples) {
        free(buf);
        return kb_errf(err, KB_EXIT_FAIL, "out of memory");
    }
    memcpy(*samples, buf + sizeof *h, (size_t)h->n * sizeof **samples);
    free(buf);
    if (h->status != 0) {
        co->outcome = (h->status > 0 && h->status < KB_OUT__COUNT) ? (kb_outcome)h->status : KB_OUT_CRASH;
        snprintf(co->detail, sizeof co->detail, "%s", h->text);
        if (co->outcome == KB_OUT_CUDA_ERROR) {
            kb_msg_status st = {1, (int32_t)co->outcome, ""};
            snprintf(st.text, sizeof st.text, "%s", co->detail);
            child_ended(s, 1, &st);
        }
    } else {
        co->outcome = KB_OUT_OK;
    }
    return 0;
}

int kb_session_set_math(kb_session *s, kb_math_mode target, kb_math_mode ref, kb_call_outcome *co, kb_err *err)
{
    (void)err;
    memset(co, 0, sizeof *co);
    if (s->ctx)
        kb_ctx_set_math(s->ctx, ref);
    s->o.ref_math = ref;
    s->o.target_math = target;
    kb_msg_math m = {target.matmul_tf32, target.cudnn_tf32};
    if (send_req(s, KB_MSG_MATH, &m, sizeof m, co))
        return 0;
    kb_msg_status st;
    size_t len;
    if (await(s, KB_MSG_MATH_SET, &st, sizeof st, &len, 30.0, co))
        return 0;
    if (len != sizeof st) {
        co->outcome = KB_OUT_HARNESS_ERROR;
        snprintf(co->detail, sizeof co->detail, "malformed MATH_SET");
        return 0;
    }
    if (st.code) {
        st.text[sizeof st.text - 1] = '\0';
        co->outcome = st.kind > 0 && st.kind < KB_OUT__COUNT ? (kb_outcome)st.kind : KB_OUT_HARNESS_ERROR;
        snprintf(co->detail, sizeof co->detail, "math mode: %.1000s", st.text);
        return 0;
    }
    co->outcome = KB_OUT_OK;
    return 0;
}

int kb_session_memory(kb_session *s, kb_msg_mem *m, kb_call_outcome *co, kb_err *err)
{
    (void)err;
    memset(co, 0, sizeof *co);
    memset(m, 0, sizeof *m);
    if (send_req(s, KB_MSG_MEMORY, NULL, 0, co))
        return 0;
    size_t len;
    if (await(s, KB_MSG_MEMREPORT, m, sizeof *m, &len, 30.0, co))
        return 0;
    if (len != sizeof *m) {
        co->outcome = KB_OUT_HARNESS_ERROR;
        snprintf(co->detail, sizeof co->detail, "malformed MEMREPORT");
        return 0;
    }
    co->outcome = KB_OUT_OK;
    return 0;
}

int kb_session_compare(kb_session *s, uint32_t i, double tau, double satol, double srtol, kb_cmp_stats *st, kb_err *err)
{
    const kb_tensor_spec *sp = &s->p->outputs[i];
    return kb_dev_compare(s->ref[i], s->out[i], s->mag[i], sp->dtype, kb_shape_numel(sp->ndim, sp->shape), tau, satol,
                          srtol, st, s->stream, err);
}

int kb_session_compare_with(kb_session *s, uint32_t i, const void *ref, const void *mag, double tau, double satol,
                            double srtol, kb_cmp_stats *st, kb_err *err)
{
    const kb_tensor_spec *sp = &s->p->outputs[i];
    return kb_dev_compare(ref, s->out[i], mag, sp->dtype, kb_shape_numel(sp->ndim, sp->shape), tau, satol, srtol, st,
                          s->stream, err);
}

int kb_session_compare_mag(kb_session *s, uint32_t i, double tau, kb_cmp_stats *st, kb_err *err)
{
    const kb_tensor_spec *sp = &s->p->outputs[i];
    if (!s->mag[i])
        return kb_errf(err, KB_EXIT_FAIL, "session opened without need_magnitude");
    return kb_dev_compare(s->mag[i], s->out[i], NULL, sp->dtype, kb_shape_numel(sp->ndim, sp->shape), tau, 0.0, 0.0, st,
                          s->stream, err);
}

int kb_session_compare_refs(kb_session *s, uint32_t i, kb_cmp_stats *st, kb_err *err)
{
    const kb_tensor_spec *sp = &s->p->outputs[i];
    if (!s->mag[i] || !s->ref[i])
        return kb_errf(err, KB_EXIT_FAIL, "session opened without need_magnitude");
    return kb_dev_compare(s->ref[i], s->mag[i], NULL, sp->dtype, kb_shape_numel(sp->ndim, sp->shape), 0.0, 0.0, 0.0, st,
                          s->stream, err);
}

int kb_session_compare_refs_self(kb_session *s, uint32_t i, kb_cmp_stats *st, kb_err *err)
{
    const kb_tensor_spec *sp = &s->p->outputs[i];
    return kb_dev_compare(s->ref[i], s->ref[i], NULL, sp->dtype, kb_shape_numel(sp->ndim, sp->shape), 0.0, 0.0, 0.0, st,
                          s->stream, err);
}

int kb_session_perturb_inputs(kb_session *s, int64_t stride, int64_t offset, kb_err *err)
{
    for (uint32_t i = 0; i < s->p->n_inputs; i++) {
        const kb_tensor_spec *sp = &s->p->inputs[i];
        if (sp->role != KB_ROLE_INPUT)
            continue;
        if (kb_dev_perturb(s->in[i], sp->dtype, kb_shape_numel(sp->ndim, sp->shape), stride, offset, s->stream, err) != 0)
            return -1;
    }
    KB_CUDA_CHECK(err, cudaStreamSynchronize(s->stream));
    return 0;
}

int kb_session_inputs_hash(kb_session *s, uint64_t *hash, kb_err *err)
{
    uint64_t h = 0;
    for (uint32_t i = 0; i < s->p->n_inputs; i++) {
        uint64_t x;
        if (s->p->inputs[i].role == KB_ROLE_STATE)
            continue; /* a call may update module state in place, as eager's does */
        if (kb_dev_hash(s->in[i], kb_spec_bytes(&s->p->inputs[i]), &x, s->stream, err) != 0)
            return -1;
        h = kb_mix64(h ^ x);
    }
    *hash = h;
    return 0;
}

int kb_session_output_hash(kb_session *s, uint32_t i, uint64_t *hash, kb_err *err)
{
    return kb_dev_hash(s->out[i], out_bytes(s, i), hash, s->stream, err);
}

char *kb_session_log_tail(kb_session *s, size_t max)
{
    int fd = open(s->log_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat stt;
    if (fstat(fd, &stt) != 0) {
        close(fd);
        return NULL;
    }
    off_t start = stt.st_size > (off_t)max ? stt.st_size - (off_t)max : 0;
    size_t n = (size_t)(stt.st_size - start);
    char *buf = malloc(n + 1);
    ssize_t got = buf ? pread(fd, buf, n, start) : -1;
    close(fd);
    if (got < 0) {
        free(buf);
        return NULL;
    }
    buf[got] = '\0';
    return buf;
}
