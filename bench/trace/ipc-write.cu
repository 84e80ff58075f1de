/*
 * bench/trace/ipc-write.cu -- is device memory that a process imported through CUDA IPC slower
 * to write than memory it allocated itself? kb-runner reads its inputs from and writes its
 * outputs into the parent's buffers (cudaIpcOpenMemHandle), while the PyTorch child writes
 * into its own caching allocator's memory and copies afterwards; bench/kernel-times.sh saw the
 * same kernels writing the output 11-27% slower in kb-runner (L1/39, 63, 67, 74).
 *
 *   kb-bench-ipc-write [MiB]      parent: allocates two buffers of MiB (default 2048), exports
 *                                 them, starts itself as the child with the handles; prints the
 *                                 child's table (CSV) on stdout
 * The child times a float4 copy (own source -> destination) into its own buffer and into the
 * imported one, and the reverse (imported source -> own destination), alternating, 30 times
 * each, and prints median GB/s per variant.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/kb_util.h"

#define CK(x)                                                                                                \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                         \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

__global__ void copy4(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

static void hex(const void *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static void unhex(const char *s, void *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(s + 2 * i, "%2x", &v);
        ((unsigned char *)p)[i] = (unsigned char)v;
    }
}

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static int child(size_t bytes, const char *ha, const char *hb)
{
    cudaIpcMemHandle_t h[2];
    unhex(ha, &h[0], sizeof h[0]);
    unhex(hb, &h[1], sizeof h[1]);
    void *imp_src, *imp_dst, *own_src, *own_dst;
    CK(cudaIpcOpenMemHandle(&imp_src, h[0], cudaIpcMemLazyEnablePeerAccess));
    CK(cudaIpcOpenMemHandle(&imp_dst, h[1], cudaIpcMemLazyEnablePeerAccess));
    CK(cudaMalloc(&own_src, bytes));
    CK(cudaMalloc(&own_dst, bytes));
    CK(cudaMemset(own_src, 1, bytes));
    CK(cudaMemset(own_dst, 2, bytes));
    CK(cudaMemset(imp_dst, 3, bytes));
    struct {
        const char *name;
        void *src, *dst;
    } v[] = {{"own -> own", own_src, own_dst},
             {"own -> imported", own_src, imp_dst},
             {"imported -> own", imp_src, own_dst},
             {"imported -> imported", imp_src, imp_dst}};
    enum { NV = 4, REPS = 30 };
    float ms[NV][REPS];
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const size_t n4 = bytes / 16;
    for (int r = -3; r < REPS; r++)
        for (int k = 0; k < NV; k++) {
            CK(cudaEventRecord(e0));
            copy4<<<132 * 16, 256>>>((const float4 *)v[k].src, (float4 *)v[k].dst, n4);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float t;
            CK(cudaEventElapsedTime(&t, e0, e1));
            if (r >= 0)
                ms[k][r] = t;
        }
    printf("variant,median_ms,GB_per_s (read + write of %zu MiB each)\n", bytes >> 20);
    for (int k = 0; k < NV; k++) {
        qsort(ms[k], REPS, sizeof(float), cmp);
        const float med = ms[k][REPS / 2];
        printf("%s,%.4f,%.1f\n", v[k].name, med, 2.0 * bytes / (med * 1e-3) / 1e9);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (kb_version_arg(argc, argv, "kb-bench-ipc-write"))
        return 0;
    if (argc == 5 && !strcmp(argv[1], "--child"))
        return child((size_t)strtoull(argv[2], NULL, 10), argv[3], argv[4]);
    size_t mib = 2048;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("kb-bench-ipc-write [MiB]: copy bandwidth into and out of device memory imported through CUDA IPC\n"
                   "against memory of one's own (a parent process exports two buffers of MiB, default 2048;\n"
                   "its child times a float4 copy for each pairing, 30 times each, and prints CSV:\n"
                   "variant,median_ms,GB_per_s).\n"
                   "Exit codes: 0 done; 1 a CUDA call failed; 2 bad command line.\n");
            return 0;
        }
        unsigned long long v = strtoull(argv[i], &end, 10);
        if (!end || *end || v == 0 || argv[i][0] == '-') {
            fprintf(stderr, "kb-bench-ipc-write: unexpected argument '%s' (see --help)\n", argv[i]);
            return 2;
        }
        mib = (size_t)v;
    }
    size_t bytes = mib << 20;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 0, bytes));
    cudaIpcMemHandle_t h[2];
    CK(cudaIpcGetMemHandle(&h[0], a));
    CK(cudaIpcGetMemHandle(&h[1], b));
    char ha[2 * sizeof h[0] + 1], hb[2 * sizeof h[1] + 1], sz[32];
    hex(&h[0], sizeof h[0], ha);
    hex(&h[1], sizeof h[1], hb);
    snprintf(sz, sizeof sz, "%zu", bytes);
    fflush(stdout);
    pid_t pid = fork(); /* the child only execs: no CUDA call before exec */
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "--child", sz, ha, hb, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
