/* scan.c -- the symbol rule table (see kb_scan.h). The table is the specification: each row is
 * tested in tests/cpu/test_elf_scan.c and listed in docs/protocols.md. */
#include "compile/kb_scan.h"

#include <string.h>

static const kb_scan_rule rules[] = {
    /* Timer tampering: a submission has no reason to read the harness's clocks. */
    {"cudaEventElapsedTime*", "timer_read", KB_SEV_REJECT, "reads CUDA event timers"},
    {"cuEventElapsedTime*", "timer_read", KB_SEV_REJECT, "reads CUDA event timers"},
    {"cudaProfilerStart", "timer_read", KB_SEV_REJECT, "drives the profiler"},
    {"cudaProfilerStop", "timer_read", KB_SEV_REJECT, "drives the profiler"},
    /* Device control that reaches beyond the call. */
    {"cudaDeviceReset", "device_control", KB_SEV_REJECT, "resets the device (destroys the harness's context)"},
    {"cuDevicePrimaryCtxReset*", "device_control", KB_SEV_REJECT, "resets the device"},
    {"cudaSetDevice", "device_control", KB_SEV_FLAG, "selects a device"},
    {"cudaDeviceSetLimit", "device_control", KB_SEV_FLAG, "changes device limits"},
    {"cudaDeviceSetCacheConfig", "device_control", KB_SEV_FLAG, "changes the device cache configuration"},
    {"cuCtx*", "device_control", KB_SEV_FLAG, "manipulates CUDA contexts"},
    /* Work outside args->stream. */
    {"cudaStreamCreate*", "other_stream", KB_SEV_FLAG, "creates its own streams"},
    {"cuStreamCreate*", "other_stream", KB_SEV_FLAG, "creates its own streams"},
    {"cudaStreamBeginCapture*", "graph", KB_SEV_FLAG, "captures CUDA graphs"},
    {"cuStreamBeginCapture*", "graph", KB_SEV_FLAG, "captures CUDA graphs"},
    {"cudaGraph*", "graph", KB_SEV_FLAG, "builds or launches CUDA graphs"},
    {"cuGraph*", "graph", KB_SEV_FLAG, "builds or launches CUDA graphs"},
    {"cudaEventCreate*", "events", KB_SEV_FLAG, "creates CUDA events"},
    {"cudaEventRecord*", "events", KB_SEV_FLAG, "records CUDA events"},
    {"cudaStreamWaitEvent", "events", KB_SEV_FLAG, "makes streams wait on events"},
    {"cuEvent*", "events", KB_SEV_FLAG, "uses CUDA events"},
    {"cudaLaunchHostFunc", "host_callback", KB_SEV_FLAG, "runs host callbacks from a stream"},
    {"cudaStreamAddCallback", "host_callback", KB_SEV_FLAG, "runs host callbacks from a stream"},
    {"cuLaunchHostFunc", "host_callback", KB_SEV_FLAG, "runs host callbacks from a stream"},
    {"cudaMemcpy", "legacy_stream", KB_SEV_FLAG, "synchronous copy on the legacy default stream"},
    {"cudaMemset", "legacy_stream", KB_SEV_FLAG, "synchronous memset on the legacy default stream"},
    {"cudaMemcpy2D", "legacy_stream", KB_SEV_FLAG, "synchronous copy on the legacy default stream"},
    {"cudaMemcpyToSymbol", "legacy_stream", KB_SEV_FLAG, "synchronous copy on the legacy default stream"},
    {"cudaMemcpyFromSymbol", "legacy_stream", KB_SEV_FLAG, "synchronous copy on the legacy default stream"},
    /* Host concurrency and processes. */
    {"pthread_create", "thread", KB_SEV_REJECT, "starts host threads"},
    {"thrd_create", "thread", KB_SEV_REJECT, "starts host threads"},
    {"_ZNSt6thread*", "thread", KB_SEV_REJECT, "starts host threads (std::thread)"},
    {"clone", "thread", KB_SEV_REJECT, "clones the process"},
    {"clone3", "thread", KB_SEV_REJECT, "clones the process"},
    {"fork", "process", KB_SEV_REJECT, "forks"},
    {"vfork", "process", KB_SEV_REJECT, "forks"},
    {"posix_spawn*", "process", KB_SEV_REJECT, "spawns processes"},
    {"system", "process", KB_SEV_REJECT, "runs shell commands"},
    {"popen", "process", KB_SEV_REJECT, "runs shell commands"},
    {"execv*", "process", KB_SEV_REJECT, "executes programs"},
    {"execl*", "process", KB_SEV_REJECT, "executes programs"},
    {"execve*", "process", KB_SEV_REJECT, "executes programs"},
    {"fexecve", "process", KB_SEV_REJECT, "executes programs"},
    {"kill", "process", KB_SEV_REJECT, "sends signals to processes"},
    {"ptrace", "process", KB_SEV_REJECT, "traces processes"},
    {"prctl", "process", KB_SEV_REJECT, "changes process attributes"},
    /* Files. */
    {"fopen*", "file", KB_SEV_REJECT, "opens files"},
    {"freopen*", "file", KB_SEV_REJECT, "opens files"},
    {"open", "file", KB_SEV_REJECT, "opens files"},
    {"open64", "file", KB_SEV_REJECT, "opens files"},
    {"openat*", "file", KB_SEV_REJECT, "opens files"},
    {"__open*", "file", KB_SEV_REJECT, "opens files"},
    {"creat*", "file", KB_SEV_REJECT, "creates files"},
    {"opendir", "file", KB_SEV_REJECT, "reads directories"},
    {"unlink*", "file", KB_SEV_REJECT, "deletes files"},
    {"remove", "file", KB_SEV_REJECT, "deletes files"},
    {"rename*", "file", KB_SEV_REJECT, "renames files"},
    {"mkdir*", "file", KB_SEV_REJECT, "creates directories"},
    {"rmdir", "file", KB_SEV_REJECT, "deletes directories"},
    {"truncate*", "file", KB_SEV_REJECT, "truncates files"},
    {"chmod", "file", KB_SEV_REJECT, "changes file modes"},
    {"chdir", "file", KB_SEV_REJECT, "changes directory"},
    {"symlink*", "file", KB_SEV_REJECT, "creates links"},
    /* Network. */
    {"socket", "network", KB_SEV_REJECT, "opens sockets"},
    {"socketpair", "network", KB_SEV_REJECT, "opens sockets"},
    {"connect", "network", KB_SEV_REJECT, "connects to the network"},
    {"bind", "network", KB_SEV_REJECT, "binds sockets"},
    {"listen", "network", KB_SEV_REJECT, "listens on sockets"},
    {"accept*", "network", KB_SEV_REJECT, "accepts connections"},
    {"sendto", "network", KB_SEV_REJECT, "sends on sockets"},
    {"sendmsg", "network", KB_SEV_REJECT, "sends on sockets"},
    {"recvfrom", "network", KB_SEV_REJECT, "receives from sockets"},
    {"recvmsg", "network", KB_SEV_REJECT, "receives from sockets"},
    {"getaddrinfo", "network", KB_SEV_REJECT, "resolves host names"},
    {"gethostbyname*", "network", KB_SEV_REJECT, "resolves host names"},
    /* Loading code and tampering with the process. */
    {"dlopen", "dlopen", KB_SEV_REJECT, "loads shared objects"},
    {"dlmopen", "dlopen", KB_SEV_REJECT, "loads shared objects"},
    {"dlsym", "dlopen", KB_SEV_REJECT, "looks up symbols at run time"},
    {"dlvsym", "dlopen", KB_SEV_REJECT, "looks up symbols at run time"},
    {"mprotect", "tamper", KB_SEV_REJECT, "changes memory protection"},
    {"syscall", "tamper", KB_SEV_REJECT, "issues raw system calls"},
    {"signal", "tamper", KB_SEV_REJECT, "installs signal handlers"},
    {"sigaction", "tamper", KB_SEV_REJECT, "installs signal handlers"},
    {"mmap*", "tamper", KB_SEV_FLAG, "maps memory directly"},
    {"exit", "exit", KB_SEV_INFO, "may exit the process (nvcc also emits exit in host stubs of __device__ functions; a real exit is the outcome \"exited\")"},
    {"_exit", "exit", KB_SEV_INFO, "may exit the process (nvcc also emits exit in host stubs of __device__ functions; a real exit is the outcome \"exited\")"},
    {"_Exit", "exit", KB_SEV_INFO, "may exit the process (nvcc also emits exit in host stubs of __device__ functions; a real exit is the outcome \"exited\")"},
    {"quick_exit", "exit", KB_SEV_INFO, "may exit the process (nvcc also emits exit in host stubs of __device__ functions; a real exit is the outcome \"exited\")"},
    {"abort", "exit", KB_SEV_INFO, "may abort the process (recorded at run time as \"exited\")"},
    {"getenv", "environment", KB_SEV_FLAG, "reads the environment"},
    {"setenv", "environment", KB_SEV_FLAG, "changes the environment"},
    /* Libraries: benign (the paper counts them), but counted. */
    {"cublas*", "library", KB_SEV_INFO, "calls cuBLAS"},
    {"cudnn*", "library", KB_SEV_INFO, "calls cuDNN"},
    {"cufft*", "library", KB_SEV_INFO, "calls cuFFT"},
    {"curand*", "library", KB_SEV_INFO, "calls cuRAND"},
    {"cusparse*", "library", KB_SEV_INFO, "calls cuSPARSE"},
    {"cusolver*", "library", KB_SEV_INFO, "calls cuSOLVER"},
    /* Ordinary CUDA usage, counted for the record. */
    {"cudaMalloc*", "allocation", KB_SEV_INFO, "allocates device memory"},
    {"cudaFree*", "allocation", KB_SEV_INFO, "frees device memory"},
    {"cuMem*", "allocation", KB_SEV_INFO, "driver memory management"},
    {"cudaDeviceSynchronize", "host_sync", KB_SEV_INFO, "synchronises the device"},
    {"cudaStreamSynchronize", "host_sync", KB_SEV_INFO, "synchronises a stream"},
};

const kb_scan_rule *kb_scan_match(const char *symbol)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const char *p = rules[i].pattern;
        size_t n = strlen(p);
        if (n > 0 && p[n - 1] == '*') {
            if (strncmp(symbol, p, n - 1) == 0)
                return &rules[i];
        } else if (strcmp(symbol, p) == 0) {
            return &rules[i];
        }
    }
    return NULL;
}

const char *kb_severity_name(kb_severity s)
{
    switch (s) {
    case KB_SEV_NONE: return "none";
    case KB_SEV_INFO: return "info";
    case KB_SEV_FLAG: return "flag";
    case KB_SEV_REJECT: return "reject";
    }
    return "?";
}

const char *kb_scan_verdict_name(kb_severity worst)
{
    return worst >= KB_SEV_REJECT ? "rejected" : worst >= KB_SEV_FLAG ? "flagged" : "clean";
}

const kb_scan_rule *kb_scan_rules(size_t *n)
{
    *n = sizeof rules / sizeof rules[0];
    return rules;
}
