/*
 * demo-faults, level1/019_relu, sample s16 -- DELIBERATE FAULT (test fixture, not an LLM).
 * Fault: constructor_raw_syscall. Expected outcome: sandbox_violation.
 * Do not "fix" it: the pipeline's tests rely on it.
 *
 * kb_forward is a correct ReLU; a static constructor creates /tmp/kb-fault-raw with a raw
 * `syscall` instruction: no imported symbol, so the compile stage's symbol scan sees nothing.
 *
 * Why sandbox_violation: seccomp filters the system call itself, whoever makes it; the warden
 * refuses openat(O_WRONLY|O_CREAT). Loaded before the sandbox, it was VERIFIED even under strict.
 */
#include <stdint.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define THREADS 256

static __device__ __forceinline__ float relu1(float v) { return v < 0.0f ? 0.0f : v; }

/* Thread i < n4 handles float4 number i; the threads after it the scalar tail. */
static __global__ void __launch_bounds__(THREADS)
relu_vec4(const float *__restrict__ x, float *__restrict__ y, int64_t n4, int64_t n)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4 *>(x)[i];
        v.x = relu1(v.x);
        v.y = relu1(v.y);
        v.z = relu1(v.z);
        v.w = relu1(v.w);
        reinterpret_cast<float4 *>(y)[i] = v;
    } else {
        const int64_t j = 4 * n4 + (i - n4);
        if (j < n)
            y[j] = relu1(x[j]);
    }
}

static int same_shape(const kb_input *in, const kb_output *out)
{
    if (in->ndim != out->ndim)
        return 0;
    for (int32_t d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return 0;
    return 1;
}

/* The correct work: y = relu(x) on args->stream. 0, 1 (unexpected arguments) or 2 (CUDA error). */
static int relu_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || !same_shape(x, y))
        return 1;
    const int64_t n = kb_input_numel(x);
    if (n <= 0)
        return n == 0 ? 0 : 1;
    const int aligned = ((uintptr_t)x->data % 16 == 0) && ((uintptr_t)y->data % 16 == 0);
    const int64_t n4 = aligned ? n / 4 : 0;
    const int64_t work = n4 + (n - 4 * n4);
    const int64_t blocks = (work + THREADS - 1) / THREADS;
    if (blocks > 0x7fffffff) /* gridDim.x limit */
        return 1;
    relu_vec4<<<(unsigned)blocks, THREADS, 0, args->stream>>>((const float *)x->data, (float *)y->data, n4, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}

/* THE FAULT: openat(AT_FDCWD, "/tmp/kb-fault-raw", O_WRONLY|O_CREAT|O_TRUNC, 0644), by hand. */
__attribute__((constructor)) static void at_load(void)
{
    static const char path[] = "/tmp/kb-fault-raw";
    long fd;
    register long mode __asm__("r10") = 0644;
    __asm__ volatile("syscall"
                     : "=a"(fd)
                     : "a"((long)SYS_openat), "D"((long)AT_FDCWD), "S"(path), "d"((long)(O_WRONLY | O_CREAT | O_TRUNC)),
                       "r"(mode)
                     : "rcx", "r11", "memory");
    (void)fd;
}

extern "C" int kb_forward(const kb_args *args)
{
    return relu_forward(args);
}
