/*
 * runner.c -- the child process that runs untrusted code (or the reference, when timing the
 * baseline) for a GPU stage: kb_runner_main (gpu/kb_runner.h), the body of kb-runner and of the
 * Python runner of KernelBench-format files. Not meant to be started by hand: the stages spawn
 * it with the protocol pipes on fds 3 and 4 (lib/core/kb_msg.h).
 *
 *   kb-runner --problem build/problems/level1/019_relu.so [--submission kernel.so]
 *
 * Sequence: receive INIT; create the CUDA context; start allocation tracking (if asked);
 * map the parent's tensors (CUDA IPC); load the problem (tensor metadata); for the reference,
 * create its context in the requested math mode; for a submission, warm the CUDA libraries it
 * links (read from its ELF file, not run); enter the sandbox (if asked: lib/sandbox/kb_sandbox.h); only
 * then load the submission, so its constructors run confined; say READY; then serve CALL /
 * TIME / MEMORY until QUIT.
 * The reference OUTPUT never reaches this process: the parent compares.
 * Exit status: 0 after QUIT; 86 after a sandbox violation (reported on fd 4 first); 1 on a
 * harness failure (reported as FATAL first).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "kb/ops.h"
#include "kb/problem.h"
#include "core/kb_artifact.h"
#include "compile/kb_elf.h"
#include "kb_gpu.h"
#include "kb_memtrack.h"
#include "core/kb_msg.h"
#include "core/kb_problem_load.h"
#include "kb_runner.h"
#include "sandbox/kb_sandbox.h"
#include "kb_timer.h"

typedef int (*kb_forward_t)(const kb_args *);

static struct {
    kb_msg_init init;
    const kb_problem *prob;
    kb_input *inputs; /* sized from the problem: any number of tensors */
    kb_output *outputs;
    kb_args args;
    cudaStream_t stream;
    kb_forward_t forward;
    const kb_runner_target *hooks; /* a hooked target (.py submission), or NULL */
    kb_ctx *ctx;
    /* A C target's outputs are buffers of its own; the parent's (imported through CUDA IPC) get
     * their contents around each request (outputs_in / outputs_out). NULL for a hooked target,
     * whose framework allocates its results and copies them itself. */
    void **out_shared;
    int stat_fd;
    int calls;
    int64_t first_call_peak, first_call_alloc_peak;
    int device;
} R = {.stat_fd = -1, .first_call_peak = -1, .first_call_alloc_peak = -1};

static void fatal(int kind, const char *fmt, ...)
{
    kb_msg_status st;
    memset(&st, 0, sizeof st);
    st.code = 1;
    st.kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.text, sizeof st.text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kb-runner: %s\n", st.text);
    kb_msg_send(KB_RUNNER_FD_OUT, KB_MSG_FATAL, &st, sizeof st);
    _exit(1);
}

/* The child's own copy of an output (below), allocated through kb_retry: 1 while the device is
 * out of memory, -1 on any other error. */
#define OUT_ALLOC_WAIT_S 60.0 /* well inside the parent's 120 s wait for the child's READY */
typedef struct out_alloc {
    void **p;
    size_t bytes;
    const char *name;
    cudaError_t e;
} out_alloc;

static int try_out_alloc(void *ctx)
{
    out_alloc *a = ctx;
    a->e = cudaMalloc(a->p, a->bytes);
    if (a->e == cudaSuccess)
        return 0;
    cudaGetLastError(); /* not sticky: clear it */
    return a->e == cudaErrorMemoryAllocation ? 1 : -1;
}

static void out_alloc_waiting(void *ctx)
{
    const out_alloc *a = ctx;
    fprintf(stderr, "kb-runner: waiting up to %.0f s for %.2f GiB of device memory for output %s (other stages hold it)\n",
            OUT_ALLOC_WAIT_S, (double)a->bytes / (double)(1u << 30), a->name);
}

/* Threads of this process, from /proc/self/stat opened before the sandbox (field 20). */
static int thread_count(void)
{
    char buf[1024];
    if (R.stat_fd < 0)
        return -1;
    ssize_t n = pread(R.stat_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may contain spaces */
    if (!p)
        return -1;
    int field = 2;
    for (; *p && field < 20; p++)
        if (*p == ' ')
            field++;
    return atoi(p);
}

static int run_target(void)
{
    if (R.init.target == KB_TARGET_REFERENCE) {
        int rc = R.prob->reference(R.ctx, &R.args);
        if (rc != 0)
            fprintf(stderr, "reference failed: %s\n", kb_ctx_error(R.ctx));
        return rc;
    }
    if (R.hooks)
        return R.hooks->forward(R.hooks->user);
    return R.forward(&R.args);
}

static void note_first_call(void)
{
    if (R.calls++ == 0 && (R.init.flags & KB_INIT_MEMTRACK)) {
        kb_memtrack_stats s;
        kb_memtrack_get(&s);
        R.first_call_peak = s.peak;
        if (R.hooks && R.hooks->alloc_peak)
            R.first_call_alloc_peak = R.hooks->alloc_peak(R.hooks->user);
    }
}

/* Kernels writing into memory this process imported through CUDA IPC ran 11-27% slower on the
 * H200 than the same kernels writing into memory of their own (measured with bench/kernel-times.sh:
 * L1/39's division 1940 us in kb-runner against 1670 us in its parent and 1681 us for PyTorch's
 * in the .py child; cuDNN's output-writing kernels of L1/63, 67, 74 likewise, while their
 * input-reading kernels ran alike). The PyTorch child writes its results into its own caching
 * allocator's memory and copies them to the parent's buffers after the timed region, so a C
 * target does the same: before a request its own buffers take the parent's contents (the
 * poison the parent wrote, so an output the target leaves unwritten still shows), after it the
 * parent's take its results. Both copies are outside every timed region. */
static cudaError_t outputs_copy(int in)
{
    if (!R.out_shared)
        return cudaSuccess;
    for (uint32_t i = 0; i < R.prob->n_outputs; i++) {
        const kb_tensor_spec *s = &R.prob->outputs[i];
        const size_t bytes = (size_t)kb_shape_numel(s->ndim, s->shape) * kb_dtype_size(s->dtype);
        if (!bytes || !R.out_shared[i])
            continue;
        void *own = (void *)R.outputs[i].data;
        cudaError_t e = in ? cudaMemcpyAsync(own, R.out_shared[i], bytes, cudaMemcpyDeviceToDevice, R.stream)
                           : cudaMemcpyAsync(R.out_shared[i], own, bytes, cudaMemcpyDeviceToDevice, R.stream);
        if (e != cudaSuccess)
            return e;
    }
    return cudaStreamSynchronize(R.stream);
}

static void serve_call(const kb_msg_call *c)
{
    kb_msg_called r;
    memset(&r, 0, sizeof r);
    cudaEvent_t e0, e1;
    kb_memtrack_pause(1);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    kb_memtrack_pause(0);
    cudaDeviceSynchronize();
    cudaError_t ein = outputs_copy(1);
    r.threads_before = thread_count();
    if (R.hooks && R.hooks->before_call)
        R.hooks->before_call(R.hooks->user);
    uint64_t t0 = kb_now_ns();
    cudaEventRecord(e0, R.stream);
    r.rc = run_target();
    cudaEventRecord(e1, R.stream);
    r.stream_busy_after_return = cudaStreamQuery(R.stream) == cudaErrorNotReady;
    cudaError_t e = cudaStreamSynchronize(R.stream);
    uint64_t t1 = kb_now_ns();
    cudaError_t e2 = (c->flags & KB_CALL_DEVICE_SYNC) ? cudaDeviceSynchronize() : cudaSuccess;
    uint64_t t2 = kb_now_ns();
    if (e == cudaSuccess)
        e = e2;
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e == cudaSuccess)
        e = ein;
    if (e == cudaSuccess)
        e = outputs_copy(0);
    r.threads_after = thread_count();
    if (R.hooks && e == cudaSuccess) {
        /* the returned tensors into the harness's outputs: after the timed region */
        if (r.rc == 0 && R.hooks->collect(R.hooks->user, r.note, sizeof r.note) != 0)
            r.rc = KB_RC_COLLECT;
        if (R.hooks->note && !r.note[0])
            R.hooks->note(R.hooks->user, r.note, sizeof r.note);
        e = cudaStreamSynchronize(R.stream);
        if (e == cudaSuccess)
            e = cudaGetLastError();
    }
    r.cuda_error = (int)e;
    if (e != cudaSuccess) {
        snprintf(r.cuda_error_name, sizeof r.cuda_error_name, "%s", cudaGetErrorName(e));
        snprintf(r.cuda_error_text, sizeof r.cuda_error_text, "%s", cudaGetErrorString(e));
        r.event_ms = NAN;
    } else {
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        r.event_ms = ms;
    }
    r.wall_ms = (double)(t1 - t0) * 1e-6;
    r.device_sync_ms = (double)(t2 - t1) * 1e-6;
    r.sm_clock_mhz = kb_gpu_sm_clock_mhz(R.device);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    note_first_call();
    kb_msg_send(KB_RUNNER_FD_OUT, KB_MSG_CALLED, &r, sizeof r);
}

static int timer_forward(void *user)
{
    (void)user;
    int rc = run_target();
    note_first_call();
    return rc;
}

static uint64_t regen_seed;

/* Strict timing: fresh input values before every sample, same addresses (defeats caches keyed
 * on pointers or on input values). Parameters keep their values. */
static int timer_prepare(void *user, int sample)
{
    (void)user;
    kb_draw d = {regen_seed + (uint64_t)sample, 1.0, 0, {KB_GEN_RAND, 0, 0}, 0.0};
    for (uint32_t i = 0; i < R.prob->n_inputs; i++) {
        if (R.prob->inputs[i].role != KB_ROLE_INPUT)
            continue;
        kb_err err;
        if (kb_dev_generate((void *)R.inputs[i].data, &R.prob->inputs[i], i, &d, R.stream, &err) != 0)
            return -1;
    }
    /* a hooked target reads what it holds outside the tensors (a .py's Python-number arguments) */
    if (R.hooks && R.hooks->before_call) {
        cudaStreamSynchronize(R.stream);
        R.hooks->before_call(R.hooks->user);
    }
    return 0;
}

static void serve_time(const kb_msg_time *t)
{
    kb_timer_opts o;
    kb_timer_opts_from_request(t, R.device, &o);
    regen_seed = t->regen_seed;
    kb_timer_result res;
    kb_memtrack_pause(1); /* the flush buffer is the harness's, not the target's */
    cudaError_t ein = outputs_copy(1);
    kb_timer_run(&o, R.stream, timer_forward, t->regen_inputs ? timer_prepare : NULL, NULL, &res);
    if (res.status == 0 && ein == cudaSuccess)
        outputs_copy(0);
    kb_memtrack_pause(0);
    kb_msg_timed h;
    memset(&h, 0, sizeof h);
    h.n = (int32_t)res.n;
    snprintf(h.stop_reason, sizeof h.stop_reason, "%s", res.stop_reason);
    h.flush_bytes = res.flush_bytes;
    h.total_s = res.total_s;
    h.throttle_samples = res.throttle_samples;
    h.overhead_ms = res.overhead_ms;
    h.excluded = res.excluded;
    h.guard_gave_up = res.guard_gave_up;
    h.ref_clock_mhz = res.ref_clock_mhz;
    h.recovery_s = res.recovery_s;
    if (res.status != 0) {
        if (res.cuda_error) {
            h.status = KB_OUT_CUDA_ERROR;
            snprintf(h.text, sizeof h.text, "%s: %s", cudaGetErrorName((cudaError_t)res.cuda_error),
                     cudaGetErrorString((cudaError_t)res.cuda_error));
        } else {
            h.status = KB_OUT_BAD_RETURN;
            snprintf(h.text, sizeof h.text, "kb_forward returned %d while timing", res.forward_rc);
        }
    }
    size_t len = sizeof h + res.n * sizeof(kb_msg_sample);
    char *buf = malloc(len);
    if (!buf)
        fatal(KB_OUT_HARNESS_ERROR, "out of memory");
    memcpy(buf, &h, sizeof h);
    if (res.n)
        memcpy(buf + sizeof h, res.samples, res.n * sizeof(kb_msg_sample));
    kb_msg_send(KB_RUNNER_FD_OUT, KB_MSG_TIMED, buf, len);
    free(buf);
    kb_timer_result_free(&res);
}

static void serve_memory(void)
{
    kb_msg_mem m;
    memset(&m, 0, sizeof m);
    m.tracked = (R.init.flags & KB_INIT_MEMTRACK) != 0;
    kb_memtrack_stats s;
    kb_memtrack_get(&s);
    m.peak_bytes = s.peak;
    m.live_bytes = s.live;
    m.n_allocs = s.n_allocs;
    m.n_frees = s.n_frees;
    m.n_failed = s.n_failed;
    m.largest_failed = s.largest_failed;
    m.ctx_peak_bytes = R.ctx ? (int64_t)kb_ctx_peak_bytes(R.ctx) : -1;
    m.first_call_peak_bytes = R.first_call_peak;
    m.alloc_peak_bytes = (R.hooks && R.hooks->alloc_peak) ? R.hooks->alloc_peak(R.hooks->user) : -1;
    m.alloc_first_call_peak_bytes = R.first_call_alloc_peak;
    kb_msg_send(KB_RUNNER_FD_OUT, KB_MSG_MEMREPORT, &m, sizeof m);
}

/* The libraries a submission links that initialise themselves (cuBLAS reads its configuration,
 * cuDNN its sub-libraries): loaded from its DT_NEEDED list -- read from the ELF file, not run --
 * and given one handle now, outside the sandbox and the memory accounting, as they are in a
 * PyTorch process before a kernel runs. Only these well-known names; the submission's own code
 * is not touched. What they load lazily later is read-only and goes through the warden. */
static void warm(const char *soname, const char *create_sym, const char *destroy_sym)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib || !create_sym)
        return;
    int (*create)(void **) = (int (*)(void **))dlsym(lib, create_sym);
    int (*destroy)(void *) = (int (*)(void *))dlsym(lib, destroy_sym);
    void *h = NULL;
    if (create && destroy && create(&h) == 0)
        destroy(h);
}

static void preload_libraries(const char *submission)
{
    static const struct {
        const char *prefix, *create, *destroy;
    } known[] = {{"libcublas.so.", "cublasCreate_v2", "cublasDestroy_v2"},
                 {"libcublasLt.so.", "cublasLtCreate", "cublasLtDestroy"},
                 {"libcudnn.so.", "cudnnCreate", "cudnnDestroy"},
                 {"libcufft.so.", NULL, NULL},
                 {"libcurand.so.", NULL, NULL},
                 {"libcusparse.so.", NULL, NULL},
                 {"libcusolver.so.", NULL, NULL}};
    kb_elf_syms syms;
    kb_err err = {0};
    kb_memtrack_pause(1);
    if (kb_elf_read(submission, &syms, &err) == 0) {
        for (size_t i = 0; i < syms.n_needed; i++)
            for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
                if (!strncmp(syms.needed[i], known[k].prefix, strlen(known[k].prefix)) &&
                    !strchr(syms.needed[i], '/'))
                    warm(syms.needed[i], known[k].create, known[k].destroy);
        kb_elf_free(&syms);
    }
    /* the device's default memory pool, as cudaMallocAsync creates it on first use */
    void *p = NULL;
    if (cudaMallocAsync(&p, 256, R.stream) == cudaSuccess)
        cudaFreeAsync(p, R.stream);
    cudaDeviceSynchronize();
    cudaGetLastError();
    kb_memtrack_pause(0);
}

/* KB_MSG_MATH: the C baseline's op context, or a hooked target, in a new math mode. */
static void serve_math(const kb_msg_math *m)
{
    kb_msg_status st;
    memset(&st, 0, sizeof st);
    if (R.init.target == KB_TARGET_REFERENCE && R.ctx) {
        kb_math_mode mode = {m->matmul_tf32, m->cudnn_tf32};
        kb_ctx_set_math(R.ctx, mode);
    } else if (R.hooks && R.hooks->set_math) {
        if (R.hooks->set_math(R.hooks->user, m->matmul_tf32, m->cudnn_tf32, st.text, sizeof st.text) != 0) {
            st.code = 1;
            st.kind = KB_OUT_HARNESS_ERROR;
        }
    } else {
        st.code = 1;
        st.kind = KB_OUT_HARNESS_ERROR;
        snprintf(st.text, sizeof st.text, "this target's math mode is fixed at INIT (a C ABI submission)");
    }
    kb_msg_send(KB_RUNNER_FD_OUT, KB_MSG_MATH_SET, &st, sizeof st);
}

int kb_runner_main(int argc, char **argv, const kb_runner_target *target)
{
    if (kb_version_arg(argc, argv, "kb-runner"))
        return 0;
    R.hooks = target;
    const char *problem = NULL, *submission = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--problem"))
            problem = argv[i + 1];
        else if (!strcmp(argv[i], "--submission"))
            submission = argv[i + 1];
    }
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("kb-runner --problem P.so [--submission S.so]\n"
               "py/kbpy/runner.py --problem P.so --submission DIR/kernel.py [--class ModelNew]\n"
               "Child process of the GPU stages (protocol on fds 3 and 4, see lib/core/kb_msg.h); not for direct use.\n"
               "Exit codes: 0 told to quit; 2 started without its pipes or arguments; others: see lib/core/kb_msg.h.\n");
        return 0;
    }
    if (!problem || fcntl(KB_RUNNER_FD_IN, F_GETFD) < 0 || fcntl(KB_RUNNER_FD_OUT, F_GETFD) < 0) {
        fprintf(stderr, "kb-runner: started without its protocol pipes; it is run by the GPU stages\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    /* Die with the stage that started us (kill -9 of make must not leave GPU work behind). */
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        return 1;

    const size_t max_tensors = KB_PROBLEM_MAX_INPUTS + KB_MAX_OUTPUTS;
    const size_t room = sizeof(kb_msg_init) + max_tensors * sizeof(kb_msg_tensor);
    char *buf = malloc(room);
    if (!buf)
        fatal(KB_OUT_HARNESS_ERROR, "out of host memory for the INIT message");
    uint32_t type;
    size_t len;
    /* A stage may start its children before it holds its GPU (kb_session_spawn) and wait its
     * turn behind others: a long wait is not a fault (PDEATHSIG ends us if the stage dies).
     * HELLO first: the stage waits for it before it takes the GPU, so that no GPU time is held
     * while we start (a .py target's `import torch` is 4-11 s). */
    kb_msg_send(KB_RUNNER_FD_OUT, KB_MSG_HELLO, NULL, 0);
    if (kb_msg_recv(KB_RUNNER_FD_IN, &type, buf, room, &len, 3600.0) != 0 || type != KB_MSG_INIT ||
        len < sizeof(kb_msg_init))
        fatal(KB_OUT_HARNESS_ERROR, "no INIT message");
    memcpy(&R.init, buf, sizeof R.init);
    if (R.init.n_tensors > max_tensors || len != sizeof(kb_msg_init) + R.init.n_tensors * sizeof(kb_msg_tensor))
        fatal(KB_OUT_HARNESS_ERROR, "malformed INIT message");
    R.inputs = calloc(R.init.n_tensors + 1, sizeof *R.inputs);
    R.outputs = calloc(R.init.n_tensors + 1, sizeof *R.outputs);
    if (!R.inputs || !R.outputs)
        fatal(KB_OUT_HARNESS_ERROR, "out of host memory for %u tensors", R.init.n_tensors);
    const kb_msg_tensor *tens = (const kb_msg_tensor *)(buf + sizeof(kb_msg_init));

    R.device = R.init.device;
    /* The driver's JIT cache lives in the user's home (~/.nv/ComputeCache) and is opened for
     * writing when a library's kernel is compiled from PTX (cuDNN's batch norm is): a write the
     * sandbox refuses. A sandboxed submission JIT-compiles without the cache (once per process,
     * in the untimed first call). */
    if (R.init.target == KB_TARGET_SUBMISSION && (R.init.flags & KB_INIT_SANDBOX))
        setenv("CUDA_CACHE_DISABLE", "1", 1);
    cudaError_t e = cudaSetDevice(R.device);
    if (e == cudaSuccess)
        e = cudaFree(0); /* create the context now, outside everything measured */
    if (e != cudaSuccess)
        fatal(KB_OUT_HARNESS_ERROR, "CUDA init on device %d: %s", R.device, cudaGetErrorString(e));
    kb_gpu_sm_clock_mhz(R.device); /* initialise NVML before the sandbox */
    kb_gpu_power_w(R.device);
    kb_gpu_temperature_c(R.device);
    if (R.init.flags & KB_INIT_MEMTRACK) {
        /* Without CUPTI the memory report says tracked = 0 (the tables leave memory out); the
         * other stages only use it to name out-of-memory failures. */
        char err[256];
        if (kb_memtrack_start(err, sizeof err) != 0) {
            fprintf(stderr, "kb-runner: memory tracking unavailable: %s\n", err);
            R.init.flags &= ~KB_INIT_MEMTRACK;
        }
    }
    kb_memtrack_pause(1);
    if (cudaStreamCreate(&R.stream) != cudaSuccess)
        fatal(KB_OUT_HARNESS_ERROR, "cudaStreamCreate failed");

    void *ph = dlopen(problem, RTLD_NOW | RTLD_LOCAL);
    if (!ph)
        fatal(KB_OUT_HARNESS_ERROR, "cannot load problem %s: %s", problem, dlerror());
    R.prob = (const kb_problem *)dlsym(ph, KB_PROBLEM_SYMBOL);
    if (!R.prob)
        fatal(KB_OUT_HARNESS_ERROR, "%s exports no %s", problem, KB_PROBLEM_SYMBOL);
    {
        kb_err perr = {0};
        if (!(R.prob = kb_problem_expand(R.prob, &perr))) /* a network's tensor list (the parent built it too) */
            fatal(KB_OUT_HARNESS_ERROR, "%s", perr.msg);
    }
    if (R.init.n_tensors != R.prob->n_inputs + R.prob->n_outputs)
        fatal(KB_OUT_HARNESS_ERROR, "INIT has %u tensors, the problem %u", R.init.n_tensors,
              R.prob->n_inputs + R.prob->n_outputs);
    for (uint32_t i = 0; i < R.init.n_tensors; i++) {
        void *p = NULL;
        cudaIpcMemHandle_t h;
        memcpy(&h, tens[i].ipc_handle, sizeof h);
        if (tens[i].bytes && cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess)
            fatal(KB_OUT_HARNESS_ERROR, "cudaIpcOpenMemHandle(tensor %u): %s", i, cudaGetErrorString(cudaGetLastError()));
        const kb_tensor_spec *s = i < R.prob->n_inputs ? &R.prob->inputs[i] : &R.prob->outputs[i - R.prob->n_inputs];
        if ((uint64_t)kb_shape_numel(s->ndim, s->shape) * (uint64_t)kb_dtype_size(s->dtype) != tens[i].bytes)
            fatal(KB_OUT_HARNESS_ERROR, "tensor %s: size mismatch", s->name);
        if (i < R.prob->n_inputs) {
            kb_input *t = &R.inputs[i];
            t->name = s->name;
            t->dtype = s->dtype;
            t->ndim = s->ndim;
            memcpy(t->shape, s->shape, sizeof t->shape);
            t->data = p;
        } else {
            kb_output *t = &R.outputs[i - R.prob->n_inputs];
            t->name = s->name;
            t->dtype = s->dtype;
            t->ndim = s->ndim;
            memcpy(t->shape, s->shape, sizeof t->shape);
            t->data = p;
        }
    }
    if (!R.hooks && R.prob->n_outputs) {
        R.out_shared = calloc(R.prob->n_outputs, sizeof *R.out_shared);
        if (!R.out_shared)
            fatal(KB_OUT_HARNESS_ERROR, "out of host memory");
        for (uint32_t i = 0; i < R.prob->n_outputs; i++) {
            kb_output *t = &R.outputs[i];
            void *own = NULL;
            if (!t->data)
                continue;
            const size_t bytes = tens[R.prob->n_inputs + i].bytes;
            /* Stages side by side (make -j) were admitted against the same free memory, and
             * another's child may hold it for a while: wait (within the parent's wait for
             * READY) rather than lose the cell; a failure other than memory ends it at once. */
            out_alloc a = {&own, bytes, t->name, cudaSuccess};
            if (kb_retry(try_out_alloc, &a, OUT_ALLOC_WAIT_S, 0.25, out_alloc_waiting, NULL) != 0)
                fatal(KB_OUT_HARNESS_ERROR, "cudaMalloc(%zu bytes) for output %s: %s%s", bytes, t->name,
                      cudaGetErrorString(a.e),
                      a.e == cudaErrorMemoryAllocation ? " (still, after waiting; run fewer stages beside it)" : "");
            R.out_shared[i] = (void *)t->data;
            t->data = own;
        }
    }
    R.args.abi_version = KB_ABI_VERSION;
    R.args.n_inputs = R.prob->n_inputs;
    R.args.inputs = R.inputs;
    R.args.n_outputs = R.prob->n_outputs;
    R.args.outputs = R.outputs;
    R.args.stream = R.stream;
    R.stat_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    kb_memtrack_pause(0);

    kb_msg_status ready;
    memset(&ready, 0, sizeof ready);
    if (R.init.target == KB_TARGET_REFERENCE) {
        kb_math_mode m = {R.init.matmul_tf32, R.init.cudnn_tf32};
        char err[256];
        R.ctx = kb_ctx_create(R.stream, m, (R.init.flags & KB_INIT_CACHING) ? KB_CTX_CACHING : 0, err, sizeof err);
        if (!R.ctx)
            fatal(KB_OUT_HARNESS_ERROR, "%s", err);
    } else if (R.hooks) {
        /* trusted set-up of the framework (import torch, CUDA/cuBLAS/cuDNN in it, the tensors
         * wrapped): outside the sandbox and the memory accounting */
        char err[512] = "";
        int32_t *roles = calloc(R.prob->n_inputs + 1, sizeof *roles);
        if (!roles)
            fatal(KB_OUT_HARNESS_ERROR, "out of host memory");
        for (uint32_t i = 0; i < R.prob->n_inputs; i++)
            roles[i] = (int32_t)R.prob->inputs[i].role;
        kb_memtrack_pause(1);
        int rc = R.hooks->setup(R.hooks->user, &R.args, roles, R.init.matmul_tf32, R.init.cudnn_tf32, err, sizeof err);
        free(roles);
        cudaDeviceSynchronize();
        cudaGetLastError();
        kb_memtrack_pause(0);
        if (rc != 0)
            fatal(KB_OUT_HARNESS_ERROR, "runner set-up: %s", err);
    } else {
        if (!submission)
            fatal(KB_OUT_HARNESS_ERROR, "no --submission");
        preload_libraries(submission);
    }
    /* From here on nothing is trusted: the sandbox first, then the submission's code. */
    if (R.init.flags & KB_INIT_SANDBOX) {
        char err[512];
        if (kb_sandbox_enter(KB_RUNNER_FD_OUT, KB_RUNNER_FD_IN, ready.text, sizeof ready.text, err, sizeof err) != 0)
            fatal(KB_OUT_HARNESS_ERROR, "sandbox: %s", err);
        /* READY carries the mode (the session records it where no warden said it first) */
    }
    if (R.hooks) {
        /* The submission's module, its top level included, runs here: inside the sandbox, under
         * allocation tracking. */
        int rc = R.hooks->load(R.hooks->user, ready.text, sizeof ready.text);
        if (rc != 0) {
            ready.code = 1;
            ready.kind = rc > 0 && rc < KB_OUT__COUNT ? rc : KB_OUT_LOAD_ERROR;
        }
        if (R.hooks->alloc_reset)
            R.hooks->alloc_reset(R.hooks->user);
    } else if (R.init.target == KB_TARGET_SUBMISSION) {
        /* The submission's static initialisers run here: inside the sandbox, under allocation
         * tracking. */
        void *sh = dlopen(submission, RTLD_NOW | RTLD_LOCAL);
        if (!sh) {
            ready.code = 1;
            ready.kind = KB_OUT_LOAD_ERROR;
            snprintf(ready.text, sizeof ready.text, "dlopen: %s", dlerror());
        } else if (!(R.forward = (kb_forward_t)dlsym(sh, "kb_forward"))) {
            ready.code = 1;
            ready.kind = KB_OUT_LOAD_ERROR;
            snprintf(ready.text, sizeof ready.text, "the submission defines no kb_forward (use extern \"C\" via kb/submission.h)");
        }
    }
    kb_msg_send(KB_RUNNER_FD_OUT, KB_MSG_READY, &ready, sizeof ready);
    if (ready.code)
        return 1;

    static char req[4096];
    for (;;) {
        /* No time limit here: the parent enforces it (and kills us). */
        int rc = kb_msg_recv(KB_RUNNER_FD_IN, &type, req, sizeof req, &len, 1e9);
        if (rc != 0)
            return 1; /* parent gone */
        if (type == KB_MSG_CALL && len == sizeof(kb_msg_call))
            serve_call((const kb_msg_call *)req);
        else if (type == KB_MSG_TIME && len == sizeof(kb_msg_time))
            serve_time((const kb_msg_time *)req);
        else if (type == KB_MSG_MEMORY)
            serve_memory();
        else if (type == KB_MSG_MATH && len == sizeof(kb_msg_math))
            serve_math((const kb_msg_math *)req);
        else if (type == KB_MSG_QUIT)
            break;
        else
            fatal(KB_OUT_HARNESS_ERROR, "unexpected message %u", type);
    }
    if (R.ctx)
        kb_ctx_destroy(R.ctx);
    return 0;
}
