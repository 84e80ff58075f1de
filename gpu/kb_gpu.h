/*
 * kb_gpu.h -- the harness's device-side helpers (libkbgpu.a): device selection and locking,
 * the machine description for artifacts, tensor generation, poisoning, comparison and hashing.
 * C linkage; the kernels live in gpu/tensor.cu. Every function enqueues on `stream` and
 * synchronises it before returning results to the host.
 */
#ifndef KB_GPU_H
#define KB_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kb/problem.h"
#include "core/kb_artifact.h"
#include "core/kb_close.h"
#include "core/kb_rng.h"
#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "file:line: call: cudaErrorX (text)" into err; returns -1. For host code of the harness. */
#define KB_CUDA_CHECK(err, call)                                                                  \
    do {                                                                                          \
        cudaError_t kb_ce_ = (call);                                                              \
        if (kb_ce_ != cudaSuccess)                                                                \
            return kb_errf((err), KB_EXIT_FAIL, "%s:%d: %s: %s (%s)", __FILE__, __LINE__, #call, \
                           cudaGetErrorName(kb_ce_), cudaGetErrorString(kb_ce_));                 \
    } while (0)

/* ---- device selection ------------------------------------------------------------------- */

/* Picks a GPU from the comma-separated ordinals in `gpus` ("0" or "0,1,2") and locks it
 * (flock on $KB_LOCK_DIR or /tmp: kb-gpu<N>.lock); waits for one. Stages that TIME take the lock
 * exclusively (KB_LOCK_TIMING): nothing else runs on that GPU meanwhile. Stages that only check
 * or count memory take it shared (KB_LOCK_SHARED): several may run together, never beside a
 * timing stage. Sets the device current. Returns KB_EXIT_NO_GPU in err when there is no usable
 * CUDA device. *lock_fd stays open (the lock) until the process ends. */
enum { KB_LOCK_SHARED = 0, KB_LOCK_TIMING = 1 };
int kb_gpu_acquire(const char *gpus, int mode, int *device, int *lock_fd, kb_err *err);
/* Why cudaGetDeviceCount found no device, in words a user can act on: "no NVIDIA driver on this
 * machine (no /dev/nvidiactl)" where there is none (CUDA itself says "insufficient driver"),
 * else CUDA's own text. */
const char *kb_gpu_absence(int cuda_error, int count);

/* Fills the machine description (name, UUID, driver and library versions, SM clock). */
void kb_gpu_env(int device, kb_env *env);

/* Current SM clock in MHz and NVML clock-event ("throttle") reasons, through NVML loaded at
 * run time (libnvidia-ml.so.1); NaN / 0 when NVML is unavailable. */
double kb_gpu_sm_clock_mhz(int device);
uint64_t kb_gpu_throttle_reasons(int device);
/* Highest SM clock the device may run at (NVML max clock; else the CUDA peak clock), MHz. */
double kb_gpu_max_sm_clock_mhz(int device);
/* Board power draw in watts and GPU temperature in degrees C (NVML; NaN if unreadable). */
double kb_gpu_power_w(int device);
double kb_gpu_temperature_c(int device);
/* Reasons that slow the clocks (excluding idle and application-clock settings). */
#define KB_THROTTLE_SLOWDOWN_MASK 0xECull /* SW power cap, HW slowdown, SW/HW thermal, power brake */

/* ---- tensors ---------------------------------------------------------------------------- */

/* Writes element values of tensor number `index` (spec and dtype from `spec`) under `draw`. */
int kb_dev_generate(void *ptr, const kb_tensor_spec *spec, uint32_t index, const kb_draw *draw, cudaStream_t stream,
                    kb_err *err);
/* |x| in place for floating-point tensors (magnitude references); no-op for others. */
int kb_dev_abs(void *ptr, kb_dtype dtype, int64_t n, cudaStream_t stream, kb_err *err);
/* Fills with a value no honest kernel leaves behind: NaN for floats, 0x5A.. for integers. */
int kb_dev_poison(void *ptr, kb_dtype dtype, int64_t n, cudaStream_t stream, kb_err *err);
/* Compares out with ref (n elements of dtype) at tolerance tau; mag (may be NULL) enables the
 * magnitude-scaled bound with strict_atol / strict_rtol. Fills *st. */
int kb_dev_compare(const void *ref, const void *out, const void *mag, kb_dtype dtype, int64_t n, double tau,
                   double strict_atol, double strict_rtol, kb_cmp_stats *st, cudaStream_t stream, kb_err *err);
/* Changes every element i with i % stride == offset, except the first and the last, to
 * 0.25 - 1.5 x (floating-point tensors only): new values at the same addresses, invisible to
 * anything that looks only at the ends of a tensor. */
int kb_dev_perturb(void *ptr, kb_dtype dtype, int64_t n, int64_t stride, int64_t offset, cudaStream_t stream, kb_err *err);
/* Order-independent 64-bit hash of `bytes` bytes (inputs unchanged?). */
int kb_dev_hash(const void *ptr, size_t bytes, uint64_t *hash, cudaStream_t stream, kb_err *err);
/* Copies the first min(n, cap) elements to host doubles (for reports of worst elements). */
int kb_dev_peek(const void *ptr, kb_dtype dtype, int64_t index, double *value, kb_err *err);

/* A kernel that spins for `ns` nanoseconds of %globaltimer (timer-accuracy benchmark). */
int kb_dev_spin(double ns, cudaStream_t stream);
/* Runs the spin kernel once and returns its duration in microseconds as the kernel itself
 * measured it (%globaltimer at its start and end): the truth for the timer benchmark. */
double kb_dev_spin_measured(double ns, cudaStream_t stream);
/* The robust timer's blocking kernel (after nvbench): a one-thread kernel that holds the stream
 * until the host writes a non-zero value to *flag (host-mapped memory), or until timeout_ns of
 * %globaltimer have passed. It then writes 1 (released) or 2 (timed out) to *state. Queued before
 * the start event, it lets the events and the timed work be enqueued while the GPU waits, so the
 * host's launch latency stays out of the measurement. */
int kb_dev_block(volatile int *flag_dev, int *state_dev, double timeout_ns, cudaStream_t stream);
/* Clock stamp: zeroes rec_dev[0..2] (device memory) and queues a kernel whose block on SM 0
 * writes rec_dev[1] = %globaltimer (ns) and rec_dev[2] = clock64() (SM cycles). Two stamps
 * around a sample give its mean SM clock: d(cycles) / d(ns) x 1000 MHz (rec_dev[0] == 0 if no
 * block ran on SM 0: unknown). After nvbench's timestamps kernel. */
int kb_dev_stamp(unsigned long long *rec_dev, cudaStream_t stream);
/* An empty kernel (harness-overhead benchmark). */
int kb_dev_empty(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* KB_GPU_H */
