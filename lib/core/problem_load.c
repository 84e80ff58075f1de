/* problem_load.c -- see kb_problem_load.h. */
#include "core/kb_problem_load.h"

#include <dlfcn.h>
#include <math.h>
#include <string.h>

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
    if (s->gen.kind < KB_GEN_RAND || s->gen.kind > KB_GEN_RAND_SCALED)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %s %s has an unknown generator", p->id, kind, s->name);
    if (s->role != KB_ROLE_OUTPUT && s->gen.kind >= KB_GEN_RAND_SYMMETRIC) {
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
    if (p->n_inputs > KB_PROBLEM_MAX_INPUTS || p->n_outputs < 1 || p->n_outputs > KB_PROBLEM_MAX_OUTPUTS)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: %u inputs / %u outputs is out of range (at most %u / 1-%u)",
                       p->id, p->n_inputs, p->n_outputs, KB_PROBLEM_MAX_INPUTS, KB_PROBLEM_MAX_OUTPUTS);
    if ((p->n_inputs && !p->inputs) || !p->outputs)
        return kb_errf(err, KB_EXIT_FAIL, "problem %s: no %s array", p->id, !p->outputs ? "outputs" : "inputs");
    for (uint32_t i = 0; i < p->n_inputs; i++) {
        if (check_spec(p, &p->inputs[i], "input", i, err))
            return -1;
        if (p->inputs[i].role != KB_ROLE_INPUT && p->inputs[i].role != KB_ROLE_PARAM)
            return kb_errf(err, KB_EXIT_FAIL, "problem %s: input %s has role %d", p->id, p->inputs[i].name, p->inputs[i].role);
        if (i > 0 && p->inputs[i].role == KB_ROLE_INPUT && p->inputs[i - 1].role == KB_ROLE_PARAM)
            return kb_errf(err, KB_EXIT_FAIL, "problem %s: forward() arguments must come before parameters (%s)", p->id,
                           p->inputs[i].name);
    }
    for (uint32_t i = 0; i < p->n_outputs; i++)
        if (check_spec(p, &p->outputs[i], "output", i, err))
            return -1;
    return 0;
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
    if (kb_problem_validate(p, err) != 0)
        return NULL;
    return p;
}
