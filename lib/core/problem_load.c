/* problem_load.c -- see kb_problem_load.h. */
#include "core/kb_problem_load.h"

#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb_rng.h"
#include "kb/net.h"

uint64_t kb_spec_bytes(const kb_tensor_spec *s)
{
    return (uint64_t)kb_shape_numel(s->ndim, s->shape) * (uint64_t)kb_dtype_size(s->dtype);
}

uint64_t kb_problem_resident_bytes(const kb_problem *p)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < p->n_inputs; i++)
        b += kb_spec_bytes(&p->inputs[i]);
    for (uint32_t i = 0; i < p->n_outputs; i++)
        b += kb_spec_bytes(&p->outputs[i]);
    return b;
}

double kb_problem_bytes(const kb_problem *p)
{
    return p->bytes > 0 ? p->bytes : (double)kb_problem_resident_bytes(p);
}

static int check_spec(const kb_problem *p, const kb_tensor_spec *s, const char *kind, uint32_t i, kb_err *err)
{
    if (!s->name || !s->name[0])
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %u has no name", p->id, kind, i);
    if (kb_dtype_size(s->dtype) == 0)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s has an unknown dtype %d", p->id, kind, s->name, (int)s->dtype);
    if (s->ndim < 0 || s->ndim > KB_MAX_DIMS)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s has ndim %d", p->id, kind, s->name, s->ndim);
    for (int d = 0; d < s->ndim; d++)
        if (s->shape[d] <= 0)
            return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s has dimension %d = %lld", p->id, kind, s->name, d,
                           (long long)s->shape[d]);
    if (s->gen.kind < KB_GEN_RAND || s->gen.kind > KB_GEN_LAST)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s has an unknown generator", p->id, kind, s->name);
    if (s->role != KB_ROLE_OUTPUT && kb_gen_is_structured(s->gen.kind)) {
        int need2 = s->gen.kind <= KB_GEN_RAND_TRIL;
        if (s->dtype != KB_F32)
            return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: the structured generators are for fp32 tensors",
                           p->id, kind, s->name);
        if (s->ndim < (need2 ? 2 : 1))
            return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: this generator needs %d dimensions or more", p->id,
                           kind, s->name, need2 ? 2 : 1);
        if (need2 && s->shape[s->ndim - 1] != s->shape[s->ndim - 2])
            return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: the symmetric and triangular generators need square "
                           "matrices", p->id, kind, s->name);
    }
    if (s->gen.kind == KB_GEN_KAIMING_UNIFORM && !(s->gen.a > 0))
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: kaiming-uniform needs fan_in > 0", p->id, kind, s->name);
    if (s->gen.kind == KB_GEN_RANDINT && !(s->gen.b > s->gen.a))
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: randint needs b > a", p->id, kind, s->name);
    if (s->role == KB_ROLE_OUTPUT)
        return 0; /* outputs are not drawn */
    if (s->gen.kind == KB_GEN_UNIFORM && !(s->gen.b >= s->gen.a && isfinite(s->gen.a) && isfinite(s->gen.b)))
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: uniform needs finite a <= b (got a = %g, b = %g)", p->id,
                       kind, s->name, s->gen.a, s->gen.b);
    if (s->gen.kind == KB_GEN_LOGUNIFORM_SIGNED && !(s->gen.b > s->gen.a && isfinite(s->gen.a) && isfinite(s->gen.b)))
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: loguniform needs finite a < b (got a = %g, b = %g)",
                       p->id, kind, s->name, s->gen.a, s->gen.b);
    if (s->gen.kind == KB_GEN_BERNOULLI && !(s->gen.a >= 0 && s->gen.a <= 1))
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: bernoulli needs a probability 0 <= a <= 1 (got %g)",
                       p->id, kind, s->name, s->gen.a);
    if (s->gen.kind == KB_GEN_NORMAL && !(isfinite(s->gen.a) && isfinite(s->gen.b) && s->gen.b >= 0))
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: normal needs a finite mean and a finite std >= 0 (got "
                       "mean %g, std %g)", p->id, kind, s->name, s->gen.a, s->gen.b);
    if (s->gen.kind == KB_GEN_CONST && !isfinite(s->gen.a))
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s: const needs a finite value (got %g)", p->id, kind,
                       s->name, s->gen.a);
    return 0;
}

int kb_problem_validate(const kb_problem *p, kb_err *err)
{
    if (!p)
        return kb_errf(err, KB_EXIT_FAIL, "no problem descriptor");
    if (p->abi_version != KB_ABI_VERSION)
        return kb_errf(err, KB_EXIT_FAIL, "problem built against ABI %u, harness is ABI %u: rebuild it (make problems)",
                       p->abi_version, KB_ABI_VERSION);
    if (!p->id || !strchr(p->id, '/'))
        return kb_errf(err, KB_EXIT_FAIL, "problem id missing or not \"levelN/NNN_name\"");
    if (!p->title || !p->reference)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: missing title or reference()", p->id);
    if (p->n_inputs > KB_PROBLEM_MAX_INPUTS)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %u inputs and parameters, more than KB_PROBLEM_MAX_INPUTS = %u "
                       "(core/kb_problem_load.h)", p->id, p->n_inputs, KB_PROBLEM_MAX_INPUTS);
    if (p->n_outputs < 1 || p->n_outputs > KB_MAX_OUTPUTS)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %u outputs: a problem has 1 to KB_MAX_OUTPUTS = %d (kb/problem.h; "
                       "the checks compare every output)", p->id, p->n_outputs, KB_MAX_OUTPUTS);
    if ((p->n_inputs && !p->inputs) || !p->outputs)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: no %s array", p->id, !p->outputs ? "outputs" : "inputs");
    for (uint32_t i = 0; i < p->n_inputs; i++) {
        if (check_spec(p, &p->inputs[i], "input", i, err))
            return -1;
        kb_role r = p->inputs[i].role;
        if (r != KB_ROLE_INPUT && r != KB_ROLE_PARAM && r != KB_ROLE_STATE)
            return kb_errf(err, KB_EXIT_FAIL, "problem %s: input %s has role %d", p->id, p->inputs[i].name, r);
        /* forward() arguments, then parameters, then state */
        int rank = r == KB_ROLE_INPUT ? 0 : r == KB_ROLE_PARAM ? 1 : 2;
        kb_role q = i > 0 ? p->inputs[i - 1].role : KB_ROLE_INPUT;
        int prev = q == KB_ROLE_INPUT ? 0 : q == KB_ROLE_PARAM ? 1 : 2;
        if (rank < prev)
            return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s: forward() arguments come first, then parameters, then "
                           "module state (a %s after a %s)", p->id, p->inputs[i].name,
                           rank == 0 ? "forward() argument" : "parameter", prev == 2 ? "piece of state" : "parameter");
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(p->inputs[j].name, p->inputs[i].name))
                return kb_errf(err, KB_EXIT_FAIL, "problem %s: two tensors are named %s (numbers %u and %u)", p->id,
                               p->inputs[i].name, j, i);
    }
    for (uint32_t i = 0; i < p->n_outputs; i++)
        if (check_spec(p, &p->outputs[i], "output", i, err))
            return -1;
    return 0;
}

const kb_problem *kb_problem_expand(const kb_problem *p, kb_err *err)
{
    if (!p || !p->describe)
        return p;
    kb_net n;
    memset(&n, 0, sizeof n);
    p->describe(&n);
    if (!n.error[0] && n.depth)
        kb_net_fail(&n, "describe() left %d submodule scope(s) open (%s): a kb_net_push without its kb_net_pop", n.depth,
                    n.scope);
    size_t total = p->n_inputs;
    for (int l = 0; l < KB_NET_LISTS; l++)
        total += n.n[l];
    kb_problem *q = n.error[0] ? NULL : malloc(sizeof *q);
    kb_tensor_spec *v = q ? malloc((total ? total : 1) * sizeof *v) : NULL;
    if (!v) {
        free(q);
        kb_errf(err, KB_EXIT_FAIL, "problem %s: describe(): %s", p->id ? p->id : "?",
                n.error[0] ? n.error : "out of memory");
        for (int l = 0; l < KB_NET_LISTS; l++) {
            for (uint32_t i = 0; i < n.n[l]; i++)
                free((char *)n.v[l][i].name);
            free(n.v[l]);
        }
        return NULL;
    }
    /* the forward() arguments written out, then describe()'s lists in the contract's order */
    size_t k = 0;
    for (uint32_t i = 0; i < p->n_inputs; i++)
        v[k++] = p->inputs[i];
    for (int l = 0; l < KB_NET_LISTS; l++) {
        for (uint32_t i = 0; i < n.n[l]; i++)
            v[k++] = n.v[l][i];
        free(n.v[l]); /* the names now belong to v */
    }
    *q = *p;
    q->inputs = v;
    q->n_inputs = (uint32_t)total;
    return q;
}

const kb_problem *kb_problem_load(const char *path, void **handle, kb_err *err)
{
    *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*handle) {
        kb_errf(err, KB_EXIT_MISSING, "cannot load problem %s: %s (build it with `make problems`)", path, dlerror());
        return NULL;
    }
    const kb_problem *p = dlsym(*handle, KB_PROBLEM_SYMBOL);
    if (!p) {
        kb_errf(err, KB_EXIT_FAIL, "%s exports no %s (define it with KB_PROBLEM_EXPORT)", path, KB_PROBLEM_SYMBOL);
        return NULL;
    }
    if (p->abi_version == KB_ABI_VERSION && !(p = kb_problem_expand(p, err)))
        return NULL;
    if (kb_problem_validate(p, err) != 0)
        return NULL;
    return p;
}
