/*
 * kb/ref.h -- writing a problem: its descriptor in named fields, and a reference() that reads
 * like the KernelBench forward() it mirrors (docs/design.md contract 2, docs/problems.md).
 *
 * A problem is one plain C file, problems/levelN/NNN_name.c (built by cc, no nvcc: problems
 * hold no device code; every kernel is the op library's). Its id comes from its path (the
 * Makefile passes -DKB_PROBLEM_ID="levelN/NNN_name"). A whole problem:
 *
 *     #include "kb/ref.h"
 *
 *     enum { N = 4096, D = 393216 };              shapes written once
 *
 *     static void reference(kb_ref *r)            y = torch.relu(x)
 *     {
 *         kb_relu(r, kb_arg(r, "y"), kb_arg(r, "x"));
 *     }
 *
 *     KB_PROBLEM(.title = "ReLU",
 *                KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(N, D), KB_RAND)),
 *                KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(N, D))),
 *                .flops = 1.0 * N * D);
 *
 * The reference scope (kb_ref) is what reference() works in:
 *   - Tensors are values (kb_tensor: data, dtype, shape, strides) taken by name or index from the
 *     problem's inputs, parameters and outputs (kb_arg / kb_in / kb_out), or created in the scope.
 *   - Every op takes its result tensor first. Pass KB_NEW there and the op allocates a temporary
 *     of the result's shape (counted scratch, like a PyTorch temporary) and returns it; pass an
 *     output or an existing temporary and the op writes into it (like out=). Temporaries are freed
 *     when reference() returns, or earlier with kb_drop() where PyTorch's refcount would free them
 *     (so that the peak memory matches eager's).
 *   - Errors are sticky: the first failure (a shape mismatch, a library error, an allocation
 *     failure) is recorded with its reason, every later op is a no-op, and reference() needs no
 *     error checks: the scope reports the failure when it ends.
 *   - Typed accessors (kb_f32, kb_i64, kb_u8) check the dtype and give the device pointer, for
 *     the raw ops of kb/ops.h.
 *
 * Descriptor fields are kb_problem's (kb/problem.h), set by name; KB_PROBLEM fills abi_version,
 * id and reference. `bytes` may be left out: it then defaults to each input read once and each
 * output written once (the minimal traffic the roofline uses). Any number of tensors.
 */
#ifndef KB_REF_H
#define KB_REF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kb/ops.h"
#ifndef __cplusplus
#include "kb/net.h" /* describe() of a network (problem files are C; the op library, C++, needs none) */
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---- descriptor helpers ------------------------------------------------------------------- */

/* KB_DIMS(4096, 393216) -> .ndim = 2, .shape = {4096, 393216} (1 to 8 sizes); KB_SCALAR_DIMS is
 * a 0-d tensor (a Python number argument: torch passes it as a 0-d tensor). */
#define KB_NARGS1_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...) n
#define KB_NARGS1(...) KB_NARGS1_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define KB_DIMS(...) .ndim = KB_NARGS1(__VA_ARGS__), .shape = { __VA_ARGS__ }
#define KB_SCALAR_DIMS .ndim = 0

/* Generators (kb/problem.h, kb_gen_kind), as initialisers of kb_tensor_spec.gen. */
#define KB_RAND {KB_GEN_RAND, 0, 0}
#define KB_RANDN {KB_GEN_RANDN, 0, 0}
#define KB_UNIFORM(lo, hi) {KB_GEN_UNIFORM, (lo), (hi)}
#define KB_KAIMING(fan_in) {KB_GEN_KAIMING_UNIFORM, (double)(fan_in), 0}
#define KB_ONES {KB_GEN_ONES, 0, 0}
#define KB_ZEROS {KB_GEN_ZEROS, 0, 0}
#define KB_RANDINT(lo, hi) {KB_GEN_RANDINT, (lo), (hi)}
#define KB_CONST(v) {KB_GEN_CONST, (v), 0}
#define KB_BERNOULLI(p) {KB_GEN_BERNOULLI, (p), 0}
#define KB_SIGN {KB_GEN_SIGN, 0, 0}
#define KB_RAND_SYMMETRIC {KB_GEN_RAND_SYMMETRIC, 0, 0}
#define KB_RAND_TRIU {KB_GEN_RAND_TRIU, 0, 0}
#define KB_RAND_TRIL {KB_GEN_RAND_TRIL, 0, 0}
#define KB_RAND_SOFTMAX {KB_GEN_RAND_SOFTMAX, 0, 0}
#define KB_RAND_SCALED {KB_GEN_RAND_SCALED, 0, 0}
#define KB_NORMAL(mean, std) {KB_GEN_NORMAL, (mean), (std)}

/* One tensor of the descriptor. Extra fields follow by name, e.g. KB_OUTPUT(..., .terms = K). */
#define KB_INPUT(nm, dt, dims, g, ...) {.name = (nm), .dtype = (dt), dims, .role = KB_ROLE_INPUT, .gen = g, __VA_ARGS__}
#define KB_PARAM(nm, dt, dims, g, ...) {.name = (nm), .dtype = (dt), dims, .role = KB_ROLE_PARAM, .gen = g, __VA_ARGS__}
#define KB_STATE(nm, dt, dims, g, ...) {.name = (nm), .dtype = (dt), dims, .role = KB_ROLE_STATE, .gen = g, __VA_ARGS__}
#define KB_OUTPUT(nm, dt, dims, ...) {.name = (nm), .dtype = (dt), dims, .role = KB_ROLE_OUTPUT, .gen = KB_ZEROS, __VA_ARGS__}

/* The tensor lists: forward() arguments then parameters (KB_INPUTS), and the outputs. */
#define KB_INPUTS(...)                                                                            \
    .n_inputs = (uint32_t)(sizeof((const kb_tensor_spec[]){__VA_ARGS__}) / sizeof(kb_tensor_spec)), \
    .inputs = (const kb_tensor_spec[]){__VA_ARGS__}
#define KB_OUTPUTS(...)                                                                             \
    .n_outputs = (uint32_t)(sizeof((const kb_tensor_spec[]){__VA_ARGS__}) / sizeof(kb_tensor_spec)), \
    .outputs = (const kb_tensor_spec[]){__VA_ARGS__}

/* The Makefile passes the problem's path; without it the build fails naming this macro. */
#ifndef KB_PROBLEM_ID
#define KB_PROBLEM_ID KB_PROBLEM_ID_is_set_by_make_build_problems_with_make
#endif

typedef struct kb_ref kb_ref;

/* Runs fn in a fresh scope over args; returns 0, or -1 with the reason in the context. */
int kb_ref_run(kb_ctx *ctx, const kb_args *args, const kb_problem *p, void (*fn)(kb_ref *));

/* The problem's descriptor, with `static void reference(kb_ref *r)` defined above it. */
#define KB_PROBLEM(...)                                                                           \
    static int kb_reference_entry_(kb_ctx *ctx, const kb_args *args);                             \
    KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {                                  \
        .abi_version = KB_ABI_VERSION, .id = KB_PROBLEM_ID, .reference = kb_reference_entry_,     \
        __VA_ARGS__};                                                                             \
    static int kb_reference_entry_(kb_ctx *ctx, const kb_args *args)                              \
    {                                                                                             \
        return kb_ref_run(ctx, args, &kb_problem_descriptor, reference);                          \
    }

/* ---- tensors ----------------------------------------------------------------------------- */

typedef struct kb_tensor {
    void *data;                  /* device memory; NULL: KB_NEW (allocate the result) */
    kb_dtype dtype;
    int32_t ndim;
    int64_t shape[KB_MAX_DIMS];
    int64_t stride[KB_MAX_DIMS]; /* in elements; views (expand, transpose) change only these */
    int32_t number;              /* 1: a Python number held as a one-element tensor (kb_number) */
} kb_tensor;

/* t, marked as a Python number: a forward() argument that get_inputs() gives as a float or int
 * (L1/5's `s`), which the harness holds as a one-element tensor. Eager passes such a number to
 * the op's functor as a CPU scalar; an elementwise op given a marked operand runs as eager does
 * then, where an unmarked one-element tensor is a 0-d CUDA tensor to broadcast. t must hold one
 * element. */
kb_tensor kb_number(kb_ref *r, kb_tensor t);

/* "allocate the result": an op's result argument */
#define KB_NEW ((kb_tensor){0})

/* The problem's tensors, by spec name (inputs, parameters, outputs) or by position. */
kb_tensor kb_arg(kb_ref *r, const char *name);
/* kb_arg with a formatted name: kb_argf(r, "layer%d.%d.conv1.weight", l, b) */
kb_tensor kb_argf(kb_ref *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
kb_tensor kb_in(kb_ref *r, int i);  /* inputs[i] of the descriptor (forward args, params, state) */
kb_tensor kb_out(kb_ref *r, int i); /* outputs[i] */

/* A temporary of the scope (uninitialised, counted, freed at the scope's end or by kb_drop). */
kb_tensor kb_empty(kb_ref *r, kb_dtype dtype, int ndim, const int64_t *shape);
#define KB_EMPTY(r, dtype, ...) kb_empty((r), (dtype), KB_NARGS1(__VA_ARGS__), (const int64_t[]){__VA_ARGS__})
kb_tensor kb_empty_like(kb_ref *r, kb_tensor t); /* same dtype and shape, contiguous */
/* Counted raw scratch of the scope (freed with it), for ops that need workspace. */
void *kb_scratch(kb_ref *r, size_t bytes);
/* Frees a temporary now (what PyTorch does when its last reference goes); other tensors and
 * views are left alone. */
void kb_drop(kb_ref *r, kb_tensor t);

/* Views: the same memory, new shape / strides. A bad request fails the scope. */
kb_tensor kb_view(kb_ref *r, kb_tensor t, int ndim, const int64_t *shape); /* contiguous only; one -1 inferred */
#define KB_VIEW(r, t, ...) kb_view((r), (t), KB_NARGS1(__VA_ARGS__), (const int64_t[]){__VA_ARGS__})
kb_tensor kb_unsqueeze(kb_ref *r, kb_tensor t, int dim);
kb_tensor kb_squeeze(kb_ref *r, kb_tensor t, int dim);
kb_tensor kb_transpose(kb_ref *r, kb_tensor t, int d0, int d1);
kb_tensor kb_expand(kb_ref *r, kb_tensor t, int ndim, const int64_t *shape); /* broadcast view */
kb_tensor kb_narrow(kb_ref *r, kb_tensor t, int dim, int64_t start, int64_t length);

int64_t kb_numel(kb_tensor t);
int64_t kb_dim(kb_tensor t, int d);  /* size of dimension d (negative counts from the end) */
int kb_is_contiguous(kb_tensor t);
int kb_same_shape(kb_tensor a, kb_tensor b);
int kb_norm_dim(kb_ref *r, kb_tensor t, int dim); /* Python-style dim -> 0..ndim-1, fails the scope if out of range */
/* [outer, len, inner] around dimension dim of a contiguous tensor. */
void kb_split_dim(kb_tensor t, int dim, int64_t *outer, int64_t *len, int64_t *inner);

/* Typed device pointers; a dtype mismatch fails the scope and returns NULL. */
float *kb_f32(kb_ref *r, kb_tensor t);
int64_t *kb_i64(kb_ref *r, kb_tensor t);
uint8_t *kb_u8(kb_ref *r, kb_tensor t); /* KB_BOOL */

/* ---- the scope ---------------------------------------------------------------------------- */

kb_ctx *kb_ref_ctx(kb_ref *r);
int kb_ref_ok(const kb_ref *r);
/* Fails the scope with a reason (the first one is kept); returns 0 so that `return kb_ref_fail(...)`
 * works in functions returning int. */
int kb_ref_fail(kb_ref *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* For op wrappers: the result tensor of an op whose result has `shape`: `out` itself when it has
 * that shape (and dtype), a new temporary when out is KB_NEW, else the scope fails. */
kb_tensor kb_result(kb_ref *r, kb_tensor out, kb_dtype dtype, int ndim, const int64_t *shape, const char *op);
/* Folds a raw op's return code into the scope (0 ok; else the context's message). */
void kb_ref_check(kb_ref *r, int rc);
/* The scope's result tensor when it has failed: dtype F32, no data, ndim 0. */
kb_tensor kb_ref_none(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

/* The op families, each the tensor-level API of one ops/<family> source. */
#include "kb/ref/elementwise.h"
#include "kb/ref/reduce.h"
#include "kb/ref/gemm.h"
#include "kb/ref/norm.h"
#include "kb/ref/pool.h"
#include "kb/ref/conv.h"
#include "kb/ref/scan.h"
#include "kb/ref/loss.h"
#include "kb/ref/depthwise.h"
#include "kb/ref/attention.h"

#endif /* KB_REF_H */
