/* device.c -- device selection with per-GPU locks, the machine description, and NVML (loaded
 * at run time so that nothing links against the driver's libraries). See kb_gpu.h. */
#include "kb_gpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "kb/ops.h"

/* ---- NVML, the few entry points we need (signatures from NVML's public API) -------------- */
typedef int (*nvml_init_t)(void);
typedef int (*nvml_handle_t)(unsigned int, void **);
typedef int (*nvml_clock_t)(void *, int, unsigned int *);
typedef int (*nvml_reasons_t)(void *, unsigned long long *);
typedef int (*nvml_driver_t)(char *, unsigned int);
typedef int (*nvml_by_uuid_t)(const char *, void **);
typedef int (*nvml_uint_t)(void *, unsigned int *);
typedef int (*nvml_temp_t)(void *, int, unsigned int *);

static struct {
    int tried, ok;
    nvml_handle_t by_index;
    nvml_by_uuid_t by_uuid;
    nvml_clock_t clock;
    nvml_reasons_t reasons;
    nvml_driver_t driver;
    nvml_clock_t max_clock;
    nvml_uint_t power;
    nvml_temp_t temp;
    void *dev[16];
    int have_dev[16];
} nvml;

#define NVML_CLOCK_SM 1

static int nvml_load(void)
{
    if (nvml.tried)
        return nvml.ok;
    nvml.tried = 1;
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 0;
    nvml_init_t init = (nvml_init_t)dlsym(h, "nvmlInit_v2");
    nvml.by_index = (nvml_handle_t)dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    nvml.by_uuid = (nvml_by_uuid_t)dlsym(h, "nvmlDeviceGetHandleByUUID");
    nvml.clock = (nvml_clock_t)dlsym(h, "nvmlDeviceGetClockInfo");
    nvml.reasons = (nvml_reasons_t)dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nvml.reasons)
        nvml.reasons = (nvml_reasons_t)dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
    nvml.driver = (nvml_driver_t)dlsym(h, "nvmlSystemGetDriverVersion");
    nvml.max_clock = (nvml_clock_t)dlsym(h, "nvmlDeviceGetMaxClockInfo");
    nvml.power = (nvml_uint_t)dlsym(h, "nvmlDeviceGetPowerUsage");
    nvml.temp = (nvml_temp_t)dlsym(h, "nvmlDeviceGetTemperature");
    nvml.ok = init && nvml.clock && (nvml.by_uuid || nvml.by_index) && init() == 0;
    return nvml.ok;
}

/* NVML numbers devices differently from CUDA (CUDA_VISIBLE_DEVICES, ordering): match by UUID. */
static void *nvml_device(int device)
{
    if (device < 0 || device >= 16 || !nvml_load())
        return NULL;
    if (nvml.have_dev[device])
        return nvml.dev[device];
    nvml.have_dev[device] = 1;
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess)
        return NULL;
    char uuid[64];
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    void *d = NULL;
    if (nvml.by_uuid && nvml.by_uuid(uuid, &d) == 0)
        nvml.dev[device] = d;
    else if (nvml.by_index && nvml.by_index((unsigned)device, &d) == 0)
        nvml.dev[device] = d;
    return nvml.dev[device];
}

double kb_gpu_sm_clock_mhz(int device)
{
    void *d = nvml_device(device);
    unsigned int mhz;
    if (!d || nvml.clock(d, NVML_CLOCK_SM, &mhz) != 0)
        return NAN;
    return (double)mhz;
}

double kb_gpu_max_sm_clock_mhz(int device)
{
    void *d = nvml_device(device);
    unsigned int mhz;
    if (d && nvml.max_clock && nvml.max_clock(d, NVML_CLOCK_SM, &mhz) == 0 && mhz > 0)
        return (double)mhz;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess && khz > 0)
        return khz * 1e-3;
    return NAN;
}

double kb_gpu_power_w(int device)
{
    void *d = nvml_device(device);
    unsigned int mw;
    if (!d || !nvml.power || nvml.power(d, &mw) != 0)
        return NAN;
    return mw * 1e-3;
}

double kb_gpu_temperature_c(int device)
{
    void *d = nvml_device(device);
    unsigned int c;
    if (!d || !nvml.temp || nvml.temp(d, 0 /* NVML_TEMPERATURE_GPU */, &c) != 0)
        return NAN;
    return (double)c;
}

uint64_t kb_gpu_throttle_reasons(int device)
{
    void *d = nvml_device(device);
    unsigned long long r = 0;
    if (!d || !nvml.reasons || nvml.reasons(d, &r) != 0)
        return 0;
    return (uint64_t)r;
}

/* ---- selection ---------------------------------------------------------------------------- */

const char *kb_gpu_absence(int cuda_error, int count)
{
    if (cuda_error == cudaSuccess)
        return count == 0 ? "0 devices" : "a device is present";
    if (access("/dev/nvidiactl", F_OK) != 0 &&
        (cuda_error == cudaErrorInsufficientDriver || cuda_error == cudaErrorNoDevice))
        return "no NVIDIA driver or GPU on this machine (no /dev/nvidiactl)";
    return cudaGetErrorString((cudaError_t)cuda_error);
}

int kb_gpu_acquire(const char *gpus, int mode, int *device, int *lock_fd, kb_err *err)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return kb_errf(err, KB_EXIT_NO_GPU,
                       "no CUDA device (%s): GPU stages need one; `make compile` and `make report` work without",
                       kb_gpu_absence(e, count));
    int list[64], n = 0;
    const char *p = gpus && gpus[0] ? gpus : "0";
    while (*p && n < 64) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return kb_errf(err, KB_EXIT_USAGE, "GPUS=%s: expected comma-separated CUDA ordinals", gpus);
        if (v < 0 || v >= count)
            return kb_errf(err, KB_EXIT_NO_GPU, "GPUS=%s: device %ld does not exist (this machine has %d)", gpus, v, count);
        list[n++] = (int)v;
        p = *end == ',' ? end + 1 : end;
    }
    const char *dir = getenv("KB_LOCK_DIR");
    if (!dir || !dir[0])
        dir = "/tmp";
    int fds[64];
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/kb-gpu%d.lock", dir, list[i]);
        fds[i] = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fds[i] < 0)
            return kb_errf(err, KB_EXIT_FAIL, "cannot open GPU lock %s: %s (set KB_LOCK_DIR to a writable directory)",
                           path, strerror(errno));
    }
    int waited = 0;
    for (;;) {
        for (int i = 0; i < n; i++) {
            if (flock(fds[i], (mode == KB_LOCK_TIMING ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) {
                for (int k = 0; k < n; k++)
                    if (k != i)
                        close(fds[k]);
                *device = list[i];
                *lock_fd = fds[i];
                KB_CUDA_CHECK(err, cudaSetDevice(list[i]));
                return 0;
            }
        }
        if (!waited) {
            fprintf(stderr, "waiting for a free GPU among %s ...\n", gpus && gpus[0] ? gpus : "0");
            waited = 1;
        }
        usleep(50000);
    }
}

void kb_gpu_env(int device, kb_env *env)
{
    memset(env, 0, sizeof *env);
    env->device = device;
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
        snprintf(env->gpu_name, sizeof env->gpu_name, "%s", prop.name);
        const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
        snprintf(env->gpu_uuid, sizeof env->gpu_uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
                 u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    }
    cudaRuntimeGetVersion(&env->cuda_runtime_version);
    cudaDriverGetVersion(&env->cuda_driver_version);
    kb_ops_versions(&env->cublas_version, &env->cudnn_version);
    if (nvml_load() && nvml.driver)
        nvml.driver(env->driver_version, sizeof env->driver_version);
    else
        snprintf(env->driver_version, sizeof env->driver_version, "cuda %d", env->cuda_driver_version);
    env->sm_clock_mhz_before = kb_gpu_sm_clock_mhz(device);
    env->sm_clock_mhz_after = NAN;
}
