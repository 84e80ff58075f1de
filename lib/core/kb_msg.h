/*
 * kb_msg.h -- the protocol between a GPU stage (the parent, trusted) and kb-runner (the child
 * that loads the untrusted submission, or the reference when timing the baseline).
 *
 * The parent owns every tensor: it allocates inputs and outputs with cudaMalloc, fills them, and
 * passes CUDA IPC handles; the child maps them and runs kb_forward on its own stream. The
 * reference OUTPUT is never shared: the parent computes it in its own buffers and compares after
 * the child has replied. Messages are fixed-layout structs on two pipes (child fds 3 and 4):
 * a header, then `len` payload bytes. Every reply is validated by the parent (the child is
 * untrusted: a wrong magic, type or length ends the session as a harness-visible failure).
 */
#ifndef KB_MSG_H
#define KB_MSG_H

#include <stdint.h>

#define KB_MSG_MAGIC 0x4b424d31u /* "KBM1" */
#define KB_RUNNER_FD_IN 3
#define KB_RUNNER_FD_OUT 4

typedef enum kb_msg_type {
    KB_MSG_INIT = 1,    /* parent -> child: kb_msg_init + n_tensors x kb_msg_tensor */
    KB_MSG_READY = 2,   /* child -> parent: kb_msg_status */
    KB_MSG_CALL = 3,    /* parent -> child: kb_msg_call; reply KB_MSG_CALLED */
    KB_MSG_CALLED = 4,  /* child -> parent: kb_msg_called */
    KB_MSG_TIME = 5,    /* parent -> child: kb_msg_time; reply KB_MSG_TIMED */
    KB_MSG_TIMED = 6,   /* child -> parent: kb_msg_timed + n samples x kb_msg_sample */
    KB_MSG_MEMORY = 7,  /* parent -> child: (empty); reply KB_MSG_MEMREPORT */
    KB_MSG_MEMREPORT = 8, /* child -> parent: kb_msg_mem */
    KB_MSG_QUIT = 9,    /* parent -> child: (empty); the child exits 0 */
    KB_MSG_FATAL = 10,  /* child -> parent: kb_msg_status; the child exits after sending */
    KB_MSG_WARDEN = 11, /* child -> parent: kb_msg_warden, once its sandbox filter is in force
                           (lib/sandbox/kb_sandbox.h); the parent takes the listener and answers */
    KB_MSG_WARDEN_ACK = 12, /* parent -> child: kb_msg_status (code 0: the warden serves) */
    KB_MSG_MATH = 13,     /* parent -> child: kb_msg_math, the target's math mode from now on;
                             reply KB_MSG_MATH_SET (the C baseline and a hooked target only) */
    KB_MSG_MATH_SET = 14, /* child -> parent: kb_msg_status (code 0: in force) */
    KB_MSG_HELLO = 15     /* child -> parent: (empty), first and once: its CPU-only start-up (exec,
                             libraries, `import torch`) is done and it waits for INIT; sent before
                             any submission code is loaded */
} kb_msg_type;

typedef struct kb_msg_math {
    int32_t matmul_tf32, cudnn_tf32;
} kb_msg_math;

typedef struct kb_msg_hdr {
    uint32_t magic;
    uint32_t type;
    uint64_t len;
} kb_msg_hdr;

enum {
    KB_TARGET_SUBMISSION = 0, /* load the submission .so and call its kb_forward */
    KB_TARGET_REFERENCE = 1   /* call the problem's reference() (baseline timing / memory) */
};

enum {
    KB_INIT_SANDBOX = 1u << 0,  /* install the seccomp sandbox before the first call */
    KB_INIT_MEMTRACK = 1u << 1, /* track device allocations (CUPTI) from before the load */
    KB_INIT_CACHING = 1u << 2   /* reference target: caching allocator (timing) */
};

typedef struct kb_msg_init {
    uint32_t target;
    uint32_t flags;
    int32_t device;
    int32_t matmul_tf32, cudnn_tf32; /* reference target's math mode */
    uint32_t n_tensors;              /* inputs then outputs, in kb_args order */
} kb_msg_init;

typedef struct kb_msg_tensor {
    unsigned char ipc_handle[64]; /* cudaIpcMemHandle_t */
    uint64_t bytes;
} kb_msg_tensor;

typedef struct kb_msg_status {
    int32_t code;   /* 0 = ok */
    int32_t kind;   /* kb_outcome for failures the child can classify itself */
    char text[1024];
} kb_msg_status;

typedef struct kb_msg_warden {
    int32_t listener_fd; /* the child's seccomp user-notification descriptor (pidfd_getfd) */
    int32_t uid, gid;    /* the identity the child runs as from now on */
    char mode[96];       /* what is in force, for the artifact ("seccomp+warden, uid 65534") */
} kb_msg_warden;

enum {
    KB_CALL_DEVICE_SYNC = 1u << 0 /* after the stream, also synchronise the device and report
                                     the extra time (work that escaped the stream) */
};

typedef struct kb_msg_call {
    uint32_t flags;
} kb_msg_call;

typedef struct kb_msg_called {
    int32_t rc;           /* kb_forward's return value */
    int32_t cuda_error;   /* cudaError_t after the stream synchronised (0 = none) */
    char cuda_error_name[64];
    char cuda_error_text[256];
    double event_ms;      /* events on args->stream around the call */
    double wall_ms;       /* host: call start to the stream synchronised */
    double device_sync_ms;/* host: stream synchronised to the device synchronised */
    int32_t stream_busy_after_return; /* cudaStreamQuery right after kb_forward returned */
    int32_t threads_before, threads_after; /* host threads of the child process */
    double sm_clock_mhz;  /* NaN if unknown */
    char note[512];       /* .py target: what the call did ("ext_calls=2 ops=aten::addmm:1"), or why
                             it failed (the exception); "" for a .cu */
} kb_msg_called;

/* kb_msg_called.rc of a .py target whose returned tensors could not be delivered (wrong
 * shape, dtype or count; `note` says which) */
#define KB_RC_COLLECT 1000

typedef struct kb_msg_time {
    int32_t timer;      /* kb_timer_kind */
    int32_t warmup;
    int32_t trials;     /* paper timer */
    int32_t min_samples, max_samples;
    double noise;
    double max_time_s;
    int32_t flush_l2;     /* the timer's parts, from its KB_TIMER row (kb_settings.def): L2 flush, */
    int32_t blocking;     /* a blocking kernel holding each launch, samples until the CI is tight */
    int32_t adaptive;     /* (else `trials`), PACE and the clock guard                            */
    int32_t paced;
    int32_t regen_inputs; /* re-draw the inputs before every sample (strict: defeats value caches) */
    uint64_t regen_seed;
    double clock_tol;     /* robust timer: clock guard (kb_timer.h) */
    double pace;          /* robust timer: idle time after a sample / its GPU time */
} kb_msg_time;

typedef struct kb_msg_timed {
    int32_t status;      /* 0 ok; otherwise a kb_outcome and `text` */
    int32_t n;           /* samples that follow */
    char stop_reason[32];/* "trials", "noise", "max_samples", "max_time", "error" */
    double flush_bytes;
    double total_s;
    int32_t throttle_samples; /* samples during which the clocks were throttled */
    double overhead_ms;       /* robust timer: cost of timing an empty kernel (subtracted) */
    int32_t excluded;         /* robust timer: samples the clock guard excluded */
    int32_t guard_gave_up;    /* robust timer: the clock stayed low after the longest recovery */
    double ref_clock_mhz;     /* robust timer: the clock guard's reference (max SM clock) */
    double recovery_s;        /* robust timer: total idle time spent recovering */
    char text[256];
} kb_msg_timed;

typedef struct kb_msg_sample {
    double event_ms;
    double wall_ms;
    double sm_clock_mhz;      /* NVML, read after the sample */
    double clock_avg_mhz;     /* robust timer: mean SM clock over the sample (SM 0's cycle counter
                                 against %globaltimer); NaN if unknown */
    double power_w, temp_c;   /* NVML, read after the sample */
    uint64_t throttle_reasons; /* NVML clock-event reasons bitmask (0 = none) */
    int32_t blocked;          /* robust timer: 1 if the launch was held by the blocking kernel */
    int32_t excluded;         /* robust timer: 1 if the clock guard excluded it from the statistics */
} kb_msg_sample;

typedef struct kb_msg_mem {
    int32_t tracked;        /* 1 if CUPTI accounting ran */
    int64_t peak_bytes;     /* peak live bytes allocated by the target, all APIs */
    int64_t live_bytes;     /* still allocated now (kept across calls) */
    int64_t n_allocs, n_frees, n_failed;
    int64_t largest_failed; /* bytes of the largest failed request */
    int64_t ctx_peak_bytes; /* reference target: the op context's own counter (cross-check) */
    int64_t first_call_peak_bytes; /* peak during load + first call only */
    int64_t alloc_peak_bytes;      /* .py target: PyTorch's allocator's own peak
                                      (torch.cuda.max_memory_allocated) since the load; -1 none */
    int64_t alloc_first_call_peak_bytes; /* ... after the first call */
} kb_msg_mem;

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sends one message. 0, or -1 if the pipe is closed. */
int kb_msg_send(int fd, uint32_t type, const void *payload, size_t len);
/* Receives one message of at most `cap` payload bytes into buf. Returns 0; -1 on EOF or a read
 * error; -2 on timeout; -3 on a malformed header (wrong magic, or a payload over `cap`: *len is
 * then the announced length), which leaves the stream unusable. *type and *len are set on
 * success. */
int kb_msg_recv(int fd, uint32_t *type, void *buf, size_t cap, size_t *len, double timeout_s);

#ifdef __cplusplus
}
#endif

#endif /* KB_MSG_H */
