/*
 * kb/submission.h -- the submission ABI, version 1 (KB_ABI_VERSION).
 *
 * A submission is ONE CUDA C/C++ source file that includes this header and defines exactly one
 * exported function:
 *
 *     #include <kb/submission.h>
 *     int kb_forward(const kb_args *args);        0 = success, anything else = failure
 *
 * The compile stage builds it with
 *     nvcc -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared
 *          -Xcompiler -fPIC,-fvisibility=hidden -Xlinker --version-script=<only kb_forward>
 * and links cuBLAS, cuBLASLt and cuDNN for submissions that call them (allowed, and counted).
 * The stages dlopen() the shared object in a child process of their own.
 *
 * What kb_forward receives (ownership: the harness owns every pointer; all of it is valid only
 * for the duration of the call):
 *   args->inputs   the forward() arguments first, then the module parameters, then the module's
 *                  state (its buffers, such as BatchNorm's running statistics, and tensor
 *                  attributes), in the order the problem's .py spec lists them. Device memory,
 *                  contiguous, row-major, read-only, except the state, which a call may update in
 *                  place as the module's forward() does.
 *   args->outputs  allocated by the harness: contiguous, row-major, device memory. Their initial
 *                  contents are unspecified (the strict protocol fills them with NaN).
 *   args->stream   the ONLY stream on which device work may be enqueued.
 * Shapes are int64 and tensors may exceed 2^31 elements: index with 64-bit integers.
 *
 * The rules (enforced by the stages; a broken rule is rejected or flagged with a named reason,
 * never silently accepted):
 *   1. Write every output element. Never write an input (they are const: a write needs a visible
 *      cast, and the harness checks the inputs are unchanged after the call).
 *   2. Keep nothing derived from input VALUES across calls: every call may receive new values at
 *      the same addresses, parameters included. Caching plans, handles or scratch buffers keyed
 *      by shape is fine.
 *   3. Enqueue all device work on args->stream; the result must be complete when the stream is.
 *      No other streams (the legacy default stream included), no host threads, no processes,
 *      no CUDA graphs or events that hide work from the timer.
 *   4. Scratch device memory is allowed (cudaMalloc or stream-ordered); every byte is counted by
 *      the memory profile. Free it or keep it: a kept buffer counts as resident.
 *   5. No file, network or process calls, no dlopen, no signal handlers, also not in static
 *      constructors. The child process is sandboxed before the submission is loaded; such a call
 *      is recorded as a sandbox violation. Libraries (cuBLAS, cuBLASLt, cuDNN) may be called:
 *      their read-only opens of their own files are allowed (docs/threat-model.md).
 *   6. Return 0 on success; a non-zero return is recorded as a failure of the call.
 */
#ifndef KB_SUBMISSION_H
#define KB_SUBMISSION_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#define KB_ABI_VERSION 1u
#define KB_MAX_DIMS 8

#if defined(__GNUC__)
#define KB_EXPORT __attribute__((visibility("default")))
#else
#define KB_EXPORT
#endif

/* Helpers below are usable in host and device code. */
#ifdef __CUDACC__
#define KB_INLINE static inline __host__ __device__
#else
#define KB_INLINE static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Element types. The numeric values are part of the ABI and of the artifact format. */
typedef enum kb_dtype {
    KB_F32 = 0,
    KB_F16 = 1,
    KB_BF16 = 2,
    KB_F64 = 3,
    KB_I64 = 4,
    KB_I32 = 5,
    KB_BOOL = 6 /* one byte per element, 0 or 1 */
} kb_dtype;

/* An input: read-only device memory. ndim == 0 is a scalar (one element). */
typedef struct kb_input {
    const char *name;
    kb_dtype dtype;
    int32_t ndim;
    int64_t shape[KB_MAX_DIMS];
    const void *data;
} kb_input;

/* An output: device memory the submission must fill completely. */
typedef struct kb_output {
    const char *name;
    kb_dtype dtype;
    int32_t ndim;
    int64_t shape[KB_MAX_DIMS];
    void *data;
} kb_output;

typedef struct kb_args {
    uint32_t abi_version; /* KB_ABI_VERSION of the harness; a submission may refuse others */
    uint32_t n_inputs;
    const kb_input *inputs;
    uint32_t n_outputs;
    const kb_output *outputs;
    cudaStream_t stream;
} kb_args;

/* The one function a submission defines. */
KB_EXPORT int kb_forward(const kb_args *args);

/* Number of elements of a shape (1 for ndim == 0). */
KB_INLINE int64_t kb_shape_numel(int32_t ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}

KB_INLINE int64_t kb_input_numel(const kb_input *t) { return kb_shape_numel(t->ndim, t->shape); }
KB_INLINE int64_t kb_output_numel(const kb_output *t) { return kb_shape_numel(t->ndim, t->shape); }

/* Bytes per element of a dtype (0 for an unknown value). */
KB_INLINE int kb_dtype_size(kb_dtype t)
{
    switch (t) {
    case KB_F32: return 4;
    case KB_F16: return 2;
    case KB_BF16: return 2;
    case KB_F64: return 8;
    case KB_I64: return 8;
    case KB_I32: return 4;
    case KB_BOOL: return 1;
    }
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* KB_SUBMISSION_H */
