/*
 * kb/problem.h -- the problem descriptor (docs/design.md contract 2).
 *
 * problems/levelN/NNN_name.c (plain C, built by cc) compiles to its own shared object and
 * exports one object, KB_PROBLEM(...) (kb/ref.h)  ->  const kb_problem kb_problem_descriptor
 * which the stages find with dlsym(KB_PROBLEM_SYMBOL). Everything in it is static data, except
 * reference(), the eager-faithful baseline: it computes the outputs from the inputs the way eager
 * PyTorch does (same library calls, same math-mode switches), enqueuing all work on
 * kb_ctx_stream(ctx) and taking every scratch byte from kb_ctx_alloc() so that the memory
 * profile counts it. Ops live in the op library (kb/ops.h), so a reference reads like forward().
 *
 * Tensor order: the inputs array lists the forward() arguments first, then the module
 * parameters, then the module state, in the order the .py spec lists them (forward()'s
 * signature, named_parameters(), named_buffers() then tensor attributes); the submission
 * receives them in that order. A network's list is built by a describe() function with the layer
 * helpers of kb/net.h rather than written out tensor by tensor.
 * Units: flops are floating-point operations of one forward call (the minimal count used by the
 * roofline figure), bytes the minimal device traffic (each input read once, each output written
 * once).
 */
#ifndef KB_PROBLEM_H
#define KB_PROBLEM_H

#include "kb/submission.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_ctx kb_ctx; /* opaque: see kb/ops.h */
struct kb_ref;                /* a reference's scope: see kb/ref.h */
struct kb_net;                /* a descriptor's tensor list under construction: see kb/net.h */

typedef enum kb_role {
    KB_ROLE_INPUT = 0, /* a forward() argument: re-drawn per trial, scaled by the distributions */
    KB_ROLE_PARAM = 1, /* a module parameter: drawn once per problem (perturbed by PROTOCOL=strict) */
    KB_ROLE_OUTPUT = 2,
    KB_ROLE_STATE = 3  /* module state that is no parameter: a registered buffer (BatchNorm's running
                          statistics, an attention mask, an index table) or a tensor attribute (an
                          RNN's h0). Drawn once per problem from its generator and never perturbed
                          nor scaled; a call may update it in place (BatchNorm in training mode
                          does), so the unchanged-inputs check leaves it out. */
} kb_role;

/* How a tensor is filled. Values follow PyTorch's initialisers:
 *   RAND            U[0,1)                          torch.rand
 *   RANDN           N(0,1)                          torch.randn
 *   UNIFORM         U[a,b)
 *   KAIMING_UNIFORM U(-1/sqrt(a), 1/sqrt(a)), a = fan_in: nn.Linear / nn.ConvNd weight and bias
 *   ONES, ZEROS     1, 0                            norm weight / bias
 *   RANDINT         integers uniform in [a,b)       torch.randint(a, b)
 *   CONST           a
 *   BERNOULLI       1 with probability a, else 0    torch.rand(...) < a  (bool masks)
 *   SIGN            -1 or +1 with equal probability torch.randint(0,2)*2-1
 *   LOGUNIFORM_SIGNED  +-10^U[a,b): wide dynamic range (used by the strict distributions)
 *   RAND_SYMMETRIC, RAND_TRIU, RAND_TRIL, RAND_SOFTMAX, RAND_SCALED: what a KernelBench
 *                   get_inputs() does to torch.rand (below)
 *   NORMAL          N(a, b^2): mean a, standard deviation b  nn.init.normal_, kaiming_normal_ */
typedef enum kb_gen_kind {
    KB_GEN_RAND = 0,
    KB_GEN_RANDN = 1,
    KB_GEN_UNIFORM = 2,
    KB_GEN_KAIMING_UNIFORM = 3,
    KB_GEN_ONES = 4,
    KB_GEN_ZEROS = 5,
    KB_GEN_RANDINT = 6,
    KB_GEN_CONST = 7,
    KB_GEN_BERNOULLI = 8,
    KB_GEN_SIGN = 9,
    KB_GEN_LOGUNIFORM_SIGNED = 10,
    KB_GEN_RAND_SYMMETRIC = 11, /* (R + R^T) / 2 of a square U[0,1) matrix (per last two dims) */
    KB_GEN_RAND_TRIU = 12,      /* torch.triu(torch.rand(...)): U[0,1) on and above the diagonal, else 0 */
    KB_GEN_RAND_TRIL = 13,      /* torch.tril(torch.rand(...)) */
    KB_GEN_RAND_SOFTMAX = 14,   /* torch.rand(...).softmax(dim=-1): rows of U[0,1) normalised by exp */
    KB_GEN_RAND_SCALED = 15,    /* torch.rand(...) * torch.rand(()): one U[0,1) scale for the tensor */
    KB_GEN_NORMAL = 16
} kb_gen_kind;
#define KB_GEN_LAST KB_GEN_NORMAL

typedef struct kb_gen {
    kb_gen_kind kind;
    double a, b;
} kb_gen;

typedef struct kb_tensor_spec {
    const char *name;
    kb_dtype dtype;
    int32_t ndim;
    int64_t shape[KB_MAX_DIMS];
    kb_role role;
    kb_gen gen;   /* unused for outputs */
    int64_t terms; /* outputs: how many products/terms the reference sums per element (GEMM K,
                      conv Cin*kh*kw, reduction length); 0 for elementwise. Sizes the strict
                      protocol's tolerance. */
} kb_tensor_spec;

enum {
    KB_PROB_NONDETERMINISTIC = 1u << 0, /* the reference itself is not bitwise reproducible */
    KB_PROB_EXCLUDED = 1u << 1,         /* excluded from the tables (reference output is zero) */
    KB_PROB_INPUT_BLIND = 1u << 2,      /* the prompt hides the inputs: no get_inputs, get_init_inputs or
                                           module constants, shapes in prose (docs/prompts.md) */
    KB_PROB_CENTERED = 1u << 3          /* the output subtracts a statistic of its input (a mean, a
                                           variance, a max): the strict protocol adds its large-offset
                                           distribution S7 (docs/protocols.md) */
};

typedef struct kb_problem {
    uint32_t abi_version; /* KB_ABI_VERSION the problem was built against */
    const char *id;       /* "level1/019_relu": level directory / file stem */
    const char *title;    /* "ReLU" */
    uint32_t n_inputs;
    const kb_tensor_spec *inputs; /* forward() args then parameters */
    uint32_t n_outputs;
    const kb_tensor_spec *outputs;
    double flops; /* minimal FLOPs of one forward call */
    double bytes; /* minimal device bytes moved by one forward call */
    uint32_t flags;
    /* The eager-faithful baseline. Returns 0, or non-zero after kb_ctx_fail() said why. */
    int (*reference)(kb_ctx *ctx, const kb_args *args);
    /* Live dropout only (NULL elsewhere; docs/protocols.md, "Live dropout"): run like the
     * reference (kb_ref_run) over the same inputs with the outputs of the call under check as its
     * outputs, it reads the mask that call drew from those outputs and sets it
     * (kb_replay_dropout), so that the reference computed next drops the same elements. */
    void (*replay)(struct kb_ref *r);
    /* Networks (NULL elsewhere): appends the forward() arguments, the parameters and the state
     * to the tensor list with kb/net.h, layer by layer, as the module's __init__ creates them.
     * The loader runs it once and puts the result after `inputs` (which then holds at most the
     * forward() arguments written out). */
    void (*describe)(struct kb_net *n);
} kb_problem;

#define KB_PROBLEM_SYMBOL "kb_problem_descriptor"

/* The most outputs a problem may have: the checks compare every one (the loader refuses a
 * descriptor with more, naming this limit). Every KernelBench problem has one or two. */
#define KB_MAX_OUTPUTS 16

/* Spec helpers, for readable static tables in problem files. */
/* KB_SHAPE(4096, 393216) expands to "ndim, {dims}" inside a kb_tensor_spec initialiser. */
#define KB_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...) n
#define KB_NARGS(...) KB_NARGS_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define KB_SHAPE(...) KB_NARGS(__VA_ARGS__), { __VA_ARGS__ }
#define KB_SCALAR 0, { 0 }

#ifdef __cplusplus
#define KB_PROBLEM_EXPORT extern "C" KB_EXPORT
#else
#define KB_PROBLEM_EXPORT KB_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif /* KB_PROBLEM_H */
