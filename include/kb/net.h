/*
 * kb/net.h -- a network's tensor list, layer by layer (docs/problems.md, "Networks").
 *
 * A Level-3 model has hundreds of parameters and buffers (ResNet101: 314 parameters, 312
 * buffers). Rather than one descriptor line per tensor, its problem file gives a describe()
 * function that creates them the way the module's __init__ does, with the layer helpers below,
 * and the names come out as named_parameters() / named_buffers() spell them:
 *
 *     static void describe(kb_net *n)
 *     {
 *         kb_net_input(n, "x", KB_F32, KB_NET_DIMS(10, 3, 224, 224), KB_RAND);
 *         kb_net_conv2d(n, "conv1", 3, 64, 7, 0);      conv1.weight
 *         kb_net_batchnorm(n, "bn1", 64);               bn1.weight, bn1.bias + 3 buffers
 *         for (int b = 0; b < 3; b++) {
 *             kb_net_push(n, "layer1.%d", b);           names below are layer1.<b>.*
 *             ...
 *             kb_net_pop(n);
 *         }
 *         kb_net_linear(n, "fc", 2048, 1000, 1);
 *     }
 *     KB_PROBLEM(.title = "ResNet101", .describe = describe, KB_OUTPUTS(...), ...)
 *
 * The loader (core/kb_problem_load.h) runs describe() once and lays the list out as every
 * other descriptor's: forward() arguments, then parameters, then state, each in call order. Each
 * helper appends its parameters to the one list and its buffers to the other, so one walk over
 * the layers gives both named_parameters()' and named_buffers()' order, provided describe()
 * visits the modules as those do: a module's own tensors before its submodules', submodules in
 * registration order, and tensor attributes after every buffer (tests/cpu/spec_match.sh fails on
 * any difference).
 *
 * Initialisers follow PyTorch's defaults (torch/nn/modules): ConvNd / Linear kaiming-uniform
 * weight and bias (U(+-1/sqrt(fan_in))), BatchNorm / LayerNorm / GroupNorm ones and zeros with
 * zero running mean, unit running variance and a zero num_batches_tracked, RNN / LSTM / GRU
 * U(+-1/sqrt(hidden)). A model that re-initialises (kaiming_normal_, normal_(0, 0.01)) passes
 * its own generator to kb_net_param.
 *
 * Everything here is header-only (static inline: the problem's shared object carries what it
 * uses); errors are sticky: the first (out of memory, a name too long, scopes unbalanced) is kept
 * in n->error, every later call does nothing, and the loader refuses the problem with it.
 * Memory: the lists and names are malloc'd and owned by the loaded problem for the life of the
 * process.
 */
#ifndef KB_NET_H
#define KB_NET_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The lists a describe() builds: [KB_NET_INPUTS] forward() arguments, [KB_NET_PARAMS]
 * parameters, [KB_NET_STATE] buffers and tensor attributes. */
enum { KB_NET_INPUTS = 0, KB_NET_PARAMS = 1, KB_NET_STATE = 2, KB_NET_LISTS = 3 };
#define KB_NET_MAX_DEPTH 16

typedef struct kb_net {
    kb_tensor_spec *v[KB_NET_LISTS];
    uint32_t n[KB_NET_LISTS], cap[KB_NET_LISTS];
    char scope[512];                    /* "layer1.0." while inside kb_net_push("layer1.%d", 0) */
    size_t mark[KB_NET_MAX_DEPTH];      /* scope's length before each push */
    int depth;
    char error[256];                    /* the first failure, "" if none */
} kb_net;

/* KB_NET_DIMS(10, 3, 224, 224) -> the ndim and shape arguments of the calls below (1 to 8 sizes);
 * KB_NET_SCALAR a 0-d tensor. */
#define KB_NET_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, n, ...) n
#define KB_NET_DIMS(...) KB_NET_NARGS_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0), (const int64_t[]){__VA_ARGS__}
#define KB_NET_SCALAR 0, (const int64_t[]){0}

static inline void kb_net_fail(kb_net *n, const char *fmt, ...)
{
    if (n->error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->error, sizeof n->error, fmt, ap);
    va_end(ap);
}

/* Enters a submodule: names appended until kb_net_pop are "<scope><name>.<...>". */
static inline void kb_net_push(kb_net *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline void kb_net_push(kb_net *n, const char *fmt, ...)
{
    if (n->error[0])
        return;
    if (n->depth == KB_NET_MAX_DEPTH) {
        kb_net_fail(n, "kb_net_push: submodules nested deeper than KB_NET_MAX_DEPTH = %d", KB_NET_MAX_DEPTH);
        return;
    }
    size_t len = strlen(n->scope);
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(n->scope + len, sizeof n->scope - len, fmt, ap);
    va_end(ap);
    if (k < 0 || len + (size_t)k + 1 >= sizeof n->scope) {
        n->scope[len] = '\0';
        kb_net_fail(n, "kb_net_push: the module path %s... is longer than %zu bytes", n->scope, sizeof n->scope - 2);
        return;
    }
    n->scope[len + (size_t)k] = '.';
    n->scope[len + (size_t)k + 1] = '\0';
    n->mark[n->depth++] = len;
}

static inline void kb_net_pop(kb_net *n)
{
    if (n->error[0])
        return;
    if (n->depth == 0) {
        kb_net_fail(n, "kb_net_pop without kb_net_push");
        return;
    }
    n->scope[n->mark[--n->depth]] = '\0';
}

/* Appends a tensor "<scope><name>" to list `list` (KB_NET_INPUTS, _PARAMS or _STATE). */
static inline void kb_net_add(kb_net *n, int list, const char *name, kb_dtype dtype, int32_t ndim, const int64_t *shape,
                              kb_gen gen)
{
    if (n->error[0])
        return;
    if (ndim < 0 || ndim > KB_MAX_DIMS) {
        kb_net_fail(n, "%s%s: %d dimensions (at most %d)", n->scope, name, ndim, KB_MAX_DIMS);
        return;
    }
    if (list == KB_NET_INPUTS && n->scope[0]) {
        kb_net_fail(n, "%s: a forward() argument belongs to no submodule (inside %s)", name, n->scope);
        return;
    }
    if (n->n[list] == n->cap[list]) {
        uint32_t cap = n->cap[list] ? 2 * n->cap[list] : 64;
        kb_tensor_spec *v = (kb_tensor_spec *)realloc(n->v[list], cap * sizeof *v);
        if (!v) {
            kb_net_fail(n, "out of memory for %u tensors", cap);
            return;
        }
        n->v[list] = v;
        n->cap[list] = cap;
    }
    size_t len = strlen(n->scope) + strlen(name) + 1;
    char *full = (char *)malloc(len);
    if (!full) {
        kb_net_fail(n, "out of memory");
        return;
    }
    snprintf(full, len, "%s%s", n->scope, name);
    kb_tensor_spec *s = &n->v[list][n->n[list]++];
    memset(s, 0, sizeof *s);
    s->name = full;
    s->dtype = dtype;
    s->ndim = ndim;
    for (int d = 0; d < ndim; d++)
        s->shape[d] = shape[d];
    s->role = list == KB_NET_INPUTS ? KB_ROLE_INPUT : list == KB_NET_PARAMS ? KB_ROLE_PARAM : KB_ROLE_STATE;
    s->gen = gen;
}

/* kb_net_input(n, "x", KB_F32, KB_NET_DIMS(10, 3, 224, 224), KB_RAND), and the same for a
 * parameter and a piece of state; the generator is one of kb/ref.h's (KB_RAND, KB_ONES, ...) or
 * written out ({KB_GEN_NORMAL, 0, 0.01}). */
#define kb_net_input(n, nm, dt, dims, ...) kb_net_add((n), KB_NET_INPUTS, (nm), (dt), dims, (kb_gen)__VA_ARGS__)
#define kb_net_param(n, nm, dt, dims, ...) kb_net_add((n), KB_NET_PARAMS, (nm), (dt), dims, (kb_gen)__VA_ARGS__)
#define kb_net_state(n, nm, dt, dims, ...) kb_net_add((n), KB_NET_STATE, (nm), (dt), dims, (kb_gen)__VA_ARGS__)

/* ---- layers: PyTorch's names, shapes and default initialisers ------------------------------ */

static inline kb_gen kb_net_kaiming_(double fan_in) { return (kb_gen){KB_GEN_KAIMING_UNIFORM, fan_in, 0}; }

/* nn.Conv2d(cin, cout, k, groups=g, bias=bias): weight (cout, cin/g, k, k) [, bias (cout)]. */
static inline void kb_net_conv2d_g(kb_net *n, const char *name, int64_t cin, int64_t cout, int64_t k, int64_t groups,
                                   int bias)
{
    char nm[256];
    if (groups < 1 || cin % groups || cout % groups) {
        kb_net_fail(n, "%s%s: %lld and %lld channels do not split into %lld groups", n->scope, name, (long long)cin,
                    (long long)cout, (long long)groups);
        return;
    }
    double fan_in = (double)(cin / groups * k * k);
    snprintf(nm, sizeof nm, "%s.weight", name);
    kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 4, (const int64_t[]){cout, cin / groups, k, k}, kb_net_kaiming_(fan_in));
    if (bias) {
        snprintf(nm, sizeof nm, "%s.bias", name);
        kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 1, (const int64_t[]){cout}, kb_net_kaiming_(fan_in));
    }
}
static inline void kb_net_conv2d(kb_net *n, const char *name, int64_t cin, int64_t cout, int64_t k, int bias)
{
    kb_net_conv2d_g(n, name, cin, cout, k, 1, bias);
}

/* nn.Linear(in, out, bias=bias): weight (out, in) [, bias (out)]. */
static inline void kb_net_linear(kb_net *n, const char *name, int64_t in, int64_t out, int bias)
{
    char nm[256];
    snprintf(nm, sizeof nm, "%s.weight", name);
    kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 2, (const int64_t[]){out, in}, kb_net_kaiming_((double)in));
    if (bias) {
        snprintf(nm, sizeof nm, "%s.bias", name);
        kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 1, (const int64_t[]){out}, kb_net_kaiming_((double)in));
    }
}

/* nn.BatchNorm1d/2d/3d(c): weight ones, bias zeros; buffers running_mean zeros, running_var ones,
 * num_batches_tracked (int64, 0-d) zero. */
static inline void kb_net_batchnorm(kb_net *n, const char *name, int64_t c)
{
    char nm[256];
    const int64_t d[1] = {c};
    snprintf(nm, sizeof nm, "%s.weight", name);
    kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 1, d, (kb_gen){KB_GEN_ONES, 0, 0});
    snprintf(nm, sizeof nm, "%s.bias", name);
    kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 1, d, (kb_gen){KB_GEN_ZEROS, 0, 0});
    snprintf(nm, sizeof nm, "%s.running_mean", name);
    kb_net_add(n, KB_NET_STATE, nm, KB_F32, 1, d, (kb_gen){KB_GEN_ZEROS, 0, 0});
    snprintf(nm, sizeof nm, "%s.running_var", name);
    kb_net_add(n, KB_NET_STATE, nm, KB_F32, 1, d, (kb_gen){KB_GEN_ONES, 0, 0});
    snprintf(nm, sizeof nm, "%s.num_batches_tracked", name);
    kb_net_add(n, KB_NET_STATE, nm, KB_I64, 0, d, (kb_gen){KB_GEN_ZEROS, 0, 0});
}

/* nn.LayerNorm(c) / nn.GroupNorm(g, c) (elementwise affine): weight ones, bias zeros. */
static inline void kb_net_norm_affine(kb_net *n, const char *name, int64_t c)
{
    char nm[256];
    const int64_t d[1] = {c};
    snprintf(nm, sizeof nm, "%s.weight", name);
    kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 1, d, (kb_gen){KB_GEN_ONES, 0, 0});
    snprintf(nm, sizeof nm, "%s.bias", name);
    kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 1, d, (kb_gen){KB_GEN_ZEROS, 0, 0});
}

/* nn.RNN / nn.LSTM / nn.GRU(in, hidden, layers, bias, bidirectional): `gates` is 1, 4 or 3. Per
 * layer l and direction (suffix "" or "_reverse"): weight_ih_l<l> (gates*hidden, in_l),
 * weight_hh_l<l> (gates*hidden, hidden), bias_ih_l<l>, bias_hh_l<l> (gates*hidden), all
 * U(+-1/sqrt(hidden)); in_l is `in` for layer 0, hidden times the directions above it. */
static inline void kb_net_rnn(kb_net *n, const char *name, int gates, int64_t in, int64_t hidden, int layers, int bias,
                              int bidirectional)
{
    char nm[256];
    const double k = 1.0 / sqrt((double)hidden);
    const kb_gen g = {KB_GEN_UNIFORM, -k, k};
    const int64_t gh = gates * hidden;
    for (int l = 0; l < layers; l++)
        for (int dir = 0; dir < 1 + !!bidirectional; dir++) {
            const char *sfx = dir ? "_reverse" : "";
            int64_t in_l = l == 0 ? in : hidden * (1 + !!bidirectional);
            snprintf(nm, sizeof nm, "%s.weight_ih_l%d%s", name, l, sfx);
            kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 2, (const int64_t[]){gh, in_l}, g);
            snprintf(nm, sizeof nm, "%s.weight_hh_l%d%s", name, l, sfx);
            kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 2, (const int64_t[]){gh, hidden}, g);
            if (bias) {
                snprintf(nm, sizeof nm, "%s.bias_ih_l%d%s", name, l, sfx);
                kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 1, (const int64_t[]){gh}, g);
                snprintf(nm, sizeof nm, "%s.bias_hh_l%d%s", name, l, sfx);
                kb_net_add(n, KB_NET_PARAMS, nm, KB_F32, 1, (const int64_t[]){gh}, g);
            }
        }
}

#ifdef __cplusplus
}
#endif

#endif /* KB_NET_H */
