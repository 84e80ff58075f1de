/*
 * ops/ref.c -- the reference scope and tensor values of kb/ref.h: named access to a problem's
 * tensors, temporaries from the counted allocator freed when the scope ends, views, and the
 * sticky error every op checks first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/ref.h"

struct kb_ref {
    kb_ctx *ctx;
    const kb_args *args;
    const kb_problem *p;
    int failed;
    void **temps; /* live temporaries, freed at the end */
    size_t n_temps, cap_temps;
};

static void contiguous_strides(kb_tensor *t)
{
    int64_t s = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        t->stride[d] = s;
        s *= t->shape[d];
    }
}

static kb_tensor make_tensor(void *data, kb_dtype dtype, int ndim, const int64_t *shape)
{
    kb_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.dtype = dtype;
    t.ndim = ndim;
    for (int d = 0; d < ndim; d++)
        t.shape[d] = shape[d];
    contiguous_strides(&t);
    return t;
}

kb_tensor kb_ref_none(void)
{
    kb_tensor t;
    memset(&t, 0, sizeof t);
    return t;
}

kb_ctx *kb_ref_ctx(kb_ref *r) { return r->ctx; }

int kb_ref_ok(const kb_ref *r) { return !r->failed; }

int kb_ref_fail(kb_ref *r, const char *fmt, ...)
{
    if (r->failed)
        return 0;
    r->failed = 1;
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kb_ctx_fail(r->ctx, "%s: %s", r->p && r->p->id ? r->p->id : "reference", msg);
    return 0;
}

void kb_ref_check(kb_ref *r, int rc)
{
    if (rc != 0 && !r->failed) {
        r->failed = 1;
        if (!kb_ctx_error(r->ctx)[0])
            kb_ctx_fail(r->ctx, "an op failed (code %d) without a message", rc);
    }
}

int kb_ref_run(kb_ctx *ctx, const kb_args *args, const kb_problem *p, void (*fn)(kb_ref *))
{
    kb_ref r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.args = args;
    r.p = p;
    /* a network's list is longer than its static part: describe() added to it (kb/net.h) */
    if ((p->describe ? args->n_inputs < p->n_inputs : args->n_inputs != p->n_inputs) || args->n_outputs != p->n_outputs)
        kb_ref_fail(&r, "called with %u inputs / %u outputs, the descriptor has %u%s / %u", args->n_inputs,
                    args->n_outputs, p->n_inputs, p->describe ? " or more" : "", p->n_outputs);
    else
        fn(&r);
    for (size_t i = 0; i < r.n_temps; i++)
        if (r.temps[i])
            kb_ctx_free(ctx, r.temps[i]);
    free(r.temps);
    return r.failed ? -1 : 0;
}

/* ---- the problem's tensors ---------------------------------------------------------------- */

kb_tensor kb_in(kb_ref *r, int i)
{
    if (r->failed)
        return kb_ref_none();
    if (i < 0 || (uint32_t)i >= r->args->n_inputs) {
        kb_ref_fail(r, "kb_in(%d): the problem has %u inputs", i, r->args->n_inputs);
        return kb_ref_none();
    }
    const kb_input *in = &r->args->inputs[i];
    return make_tensor((void *)in->data, in->dtype, in->ndim, in->shape);
}

kb_tensor kb_out(kb_ref *r, int i)
{
    if (r->failed)
        return kb_ref_none();
    if (i < 0 || (uint32_t)i >= r->args->n_outputs) {
        kb_ref_fail(r, "kb_out(%d): the problem has %u outputs", i, r->args->n_outputs);
        return kb_ref_none();
    }
    const kb_output *o = &r->args->outputs[i];
    return make_tensor(o->data, o->dtype, o->ndim, o->shape);
}

kb_tensor kb_arg(kb_ref *r, const char *name)
{
    if (r->failed)
        return kb_ref_none();
    /* the names the harness passed: the descriptor's, with a network's whole list */
    for (uint32_t i = 0; i < r->args->n_inputs; i++)
        if (r->args->inputs[i].name && strcmp(r->args->inputs[i].name, name) == 0)
            return kb_in(r, (int)i);
    for (uint32_t i = 0; i < r->args->n_outputs; i++)
        if (r->args->outputs[i].name && strcmp(r->args->outputs[i].name, name) == 0)
            return kb_out(r, (int)i);
    kb_ref_fail(r, "kb_arg(\"%s\"): no tensor of that name in the descriptor", name);
    return kb_ref_none();
}

kb_tensor kb_argf(kb_ref *r, const char *fmt, ...)
{
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof name) {
        kb_ref_fail(r, "kb_argf(\"%s\"): the name is longer than %zu bytes", fmt, sizeof name - 1);
        return kb_ref_none();
    }
    return kb_arg(r, name);
}

kb_tensor kb_batch_norm_module(kb_ref *r, kb_tensor out, kb_tensor x, const char *module)
{
    kb_tensor nbt = kb_argf(r, "%s.num_batches_tracked", module);
    kb_add_int(r, nbt, nbt, 1); /* _BatchNorm.forward: before F.batch_norm */
    return kb_batch_norm_train(r, out, x, kb_argf(r, "%s.weight", module), kb_argf(r, "%s.bias", module),
                               kb_argf(r, "%s.running_mean", module), kb_argf(r, "%s.running_var", module), 0.1, 1e-5);
}

kb_tensor kb_number(kb_ref *r, kb_tensor t)
{
    if (r->failed)
        return kb_ref_none();
    if (kb_numel(t) != 1) {
        kb_ref_fail(r, "kb_number: a Python number is one element (this tensor has %lld)", (long long)kb_numel(t));
        return kb_ref_none();
    }
    t.number = 1;
    return t;
}

/* ---- temporaries -------------------------------------------------------------------------- */

void *kb_scratch(kb_ref *r, size_t bytes)
{
    if (r->failed)
        return NULL;
    if (r->n_temps == r->cap_temps) {
        size_t cap = r->cap_temps ? 2 * r->cap_temps : 16;
        void **t = realloc(r->temps, cap * sizeof *t);
        if (!t) {
            kb_ref_fail(r, "out of host memory");
            return NULL;
        }
        r->temps = t;
        r->cap_temps = cap;
    }
    void *p = kb_ctx_alloc(r->ctx, bytes ? bytes : 1);
    if (!p) {
        r->failed = 1; /* kb_ctx_alloc recorded why */
        return NULL;
    }
    r->temps[r->n_temps++] = p;
    return p;
}

kb_tensor kb_empty(kb_ref *r, kb_dtype dtype, int ndim, const int64_t *shape)
{
    if (r->failed)
        return kb_ref_none();
    if (ndim < 0 || ndim > KB_MAX_DIMS) {
        kb_ref_fail(r, "kb_empty: %d dimensions (at most %d)", ndim, KB_MAX_DIMS);
        return kb_ref_none();
    }
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 0) {
            kb_ref_fail(r, "kb_empty: dimension %d is %lld", d, (long long)shape[d]);
            return kb_ref_none();
        }
    kb_tensor t = make_tensor(NULL, dtype, ndim, shape);
    t.data = kb_scratch(r, (size_t)kb_numel(t) * (size_t)kb_dtype_size(dtype));
    return t.data ? t : kb_ref_none();
}

kb_tensor kb_empty_like(kb_ref *r, kb_tensor t) { return kb_empty(r, t.dtype, t.ndim, t.shape); }

void kb_drop(kb_ref *r, kb_tensor t)
{
    if (!t.data)
        return;
    for (size_t i = 0; i < r->n_temps; i++)
        if (r->temps[i] == t.data) {
            kb_ctx_free(r->ctx, r->temps[i]);
            r->temps[i] = r->temps[--r->n_temps];
            return;
        }
}

kb_tensor kb_result(kb_ref *r, kb_tensor out, kb_dtype dtype, int ndim, const int64_t *shape, const char *op)
{
    if (r->failed)
        return kb_ref_none();
    if (!out.data)
        return kb_empty(r, dtype, ndim, shape);
    int same = out.ndim == ndim;
    for (int d = 0; same && d < ndim; d++)
        same = out.shape[d] == shape[d];
    if (!same) {
        char want[160] = "", got[160] = "";
        for (int d = 0; d < ndim; d++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%lld", d ? "," : "", (long long)shape[d]);
        for (int d = 0; d < out.ndim; d++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", d ? "," : "", (long long)out.shape[d]);
        kb_ref_fail(r, "%s: result has shape (%s), the op makes (%s)", op, got, want);
        return kb_ref_none();
    }
    if (out.dtype != dtype) {
        kb_ref_fail(r, "%s: result has dtype %d, the op makes %d", op, (int)out.dtype, (int)dtype);
        return kb_ref_none();
    }
    if (!kb_is_contiguous(out)) {
        kb_ref_fail(r, "%s: the result must be contiguous", op);
        return kb_ref_none();
    }
    return out;
}

/* ---- views and facts ---------------------------------------------------------------------- */

int64_t kb_numel(kb_tensor t) { return kb_shape_numel(t.ndim, t.shape); }

int kb_norm_dim(kb_ref *r, kb_tensor t, int dim)
{
    int n = t.ndim ? t.ndim : 1;
    int d = dim < 0 ? dim + n : dim;
    if (d < 0 || d >= n) {
        kb_ref_fail(r, "dimension %d is out of range for a %d-d tensor", dim, t.ndim);
        return 0;
    }
    return d;
}

int64_t kb_dim(kb_tensor t, int d)
{
    if (d < 0)
        d += t.ndim;
    return d >= 0 && d < t.ndim ? t.shape[d] : 1;
}

int kb_is_contiguous(kb_tensor t)
{
    int64_t s = 1;
    for (int d = t.ndim - 1; d >= 0; d--) {
        if (t.shape[d] != 1 && t.stride[d] != s)
            return 0;
        s *= t.shape[d];
    }
    return 1;
}

int kb_same_shape(kb_tensor a, kb_tensor b)
{
    if (a.ndim != b.ndim)
        return 0;
    for (int d = 0; d < a.ndim; d++)
        if (a.shape[d] != b.shape[d])
            return 0;
    return 1;
}

void kb_split_dim(kb_tensor t, int dim, int64_t *outer, int64_t *len, int64_t *inner)
{
    if (dim < 0)
        dim += t.ndim;
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < dim; d++)
        *outer *= t.shape[d];
    *len = t.ndim ? t.shape[dim] : 1;
    for (int d = dim + 1; d < t.ndim; d++)
        *inner *= t.shape[d];
}

kb_tensor kb_view(kb_ref *r, kb_tensor t, int ndim, const int64_t *shape)
{
    if (r->failed)
        return kb_ref_none();
    if (!kb_is_contiguous(t)) {
        kb_ref_fail(r, "kb_view: the tensor is not contiguous (kb_copy it first, as .contiguous())");
        return kb_ref_none();
    }
    if (ndim < 0 || ndim > KB_MAX_DIMS) {
        kb_ref_fail(r, "kb_view: %d dimensions", ndim);
        return kb_ref_none();
    }
    int64_t s[KB_MAX_DIMS], known = 1;
    int infer = -1;
    for (int d = 0; d < ndim; d++) {
        s[d] = shape[d];
        if (s[d] == -1 && infer < 0)
            infer = d;
        else if (s[d] < 0) {
            kb_ref_fail(r, "kb_view: dimension %d is %lld", d, (long long)s[d]);
            return kb_ref_none();
        } else
            known *= s[d];
    }
    if (infer >= 0)
        s[infer] = known ? kb_numel(t) / known : 0;
    kb_tensor v = make_tensor(t.data, t.dtype, ndim, s);
    if (kb_numel(v) != kb_numel(t)) {
        kb_ref_fail(r, "kb_view: %lld elements cannot be viewed as %lld", (long long)kb_numel(t),
                    (long long)kb_numel(v));
        return kb_ref_none();
    }
    return v;
}

kb_tensor kb_unsqueeze(kb_ref *r, kb_tensor t, int dim)
{
    if (r->failed)
        return kb_ref_none();
    int d = dim < 0 ? dim + t.ndim + 1 : dim;
    if (d < 0 || d > t.ndim || t.ndim == KB_MAX_DIMS) {
        kb_ref_fail(r, "kb_unsqueeze: dimension %d for a %d-d tensor", dim, t.ndim);
        return kb_ref_none();
    }
    kb_tensor v = t;
    for (int i = t.ndim; i > d; i--) {
        v.shape[i] = t.shape[i - 1];
        v.stride[i] = t.stride[i - 1];
    }
    v.shape[d] = 1;
    v.stride[d] = d < t.ndim ? t.shape[d] * t.stride[d] : 1;
    v.ndim = t.ndim + 1;
    return v;
}

kb_tensor kb_squeeze(kb_ref *r, kb_tensor t, int dim)
{
    if (r->failed)
        return kb_ref_none();
    int d = kb_norm_dim(r, t, dim);
    if (r->failed || t.ndim == 0)
        return t;
    if (t.shape[d] != 1)
        return t; /* as torch.squeeze(dim): a no-op when the size is not 1 */
    kb_tensor v = t;
    for (int i = d; i < t.ndim - 1; i++) {
        v.shape[i] = t.shape[i + 1];
        v.stride[i] = t.stride[i + 1];
    }
    v.ndim = t.ndim - 1;
    return v;
}

kb_tensor kb_transpose(kb_ref *r, kb_tensor t, int d0, int d1)
{
    if (r->failed)
        return kb_ref_none();
    int a = kb_norm_dim(r, t, d0), b = kb_norm_dim(r, t, d1);
    if (r->failed)
        return kb_ref_none();
    kb_tensor v = t;
    v.shape[a] = t.shape[b];
    v.stride[a] = t.stride[b];
    v.shape[b] = t.shape[a];
    v.stride[b] = t.stride[a];
    return v;
}

kb_tensor kb_expand(kb_ref *r, kb_tensor t, int ndim, const int64_t *shape)
{
    if (r->failed)
        return kb_ref_none();
    if (ndim < t.ndim || ndim > KB_MAX_DIMS) {
        kb_ref_fail(r, "kb_expand: %d-d tensor to %d dimensions", t.ndim, ndim);
        return kb_ref_none();
    }
    kb_tensor v = t;
    v.ndim = ndim;
    for (int i = ndim - 1, j = t.ndim - 1; i >= 0; i--, j--) {
        int64_t have = j >= 0 ? t.shape[j] : 1, st = j >= 0 ? t.stride[j] : 0;
        int64_t want = shape[i] == -1 ? have : shape[i];
        if (have == want) {
            v.shape[i] = have;
            v.stride[i] = st;
        } else if (have == 1) {
            v.shape[i] = want;
            v.stride[i] = 0;
        } else {
            kb_ref_fail(r, "kb_expand: dimension %d of size %lld cannot expand to %lld", i, (long long)have,
                        (long long)want);
            return kb_ref_none();
        }
    }
    return v;
}

kb_tensor kb_narrow(kb_ref *r, kb_tensor t, int dim, int64_t start, int64_t length)
{
    if (r->failed)
        return kb_ref_none();
    int d = kb_norm_dim(r, t, dim);
    if (r->failed)
        return kb_ref_none();
    if (start < 0 || length < 0 || start + length > t.shape[d]) {
        kb_ref_fail(r, "kb_narrow: [%lld, %lld) of a dimension of %lld", (long long)start,
                    (long long)(start + length), (long long)t.shape[d]);
        return kb_ref_none();
    }
    kb_tensor v = t;
    v.data = (char *)t.data + start * t.stride[d] * kb_dtype_size(t.dtype);
    v.shape[d] = length;
    return v;
}

/* ---- typed access ------------------------------------------------------------------------- */

static void *typed(kb_ref *r, kb_tensor t, kb_dtype want, const char *name)
{
    if (r->failed)
        return NULL;
    if (!t.data) {
        kb_ref_fail(r, "%s: the tensor has no data", name);
        return NULL;
    }
    if (t.dtype != want) {
        kb_ref_fail(r, "%s: the tensor has dtype %d", name, (int)t.dtype);
        return NULL;
    }
    return t.data;
}

float *kb_f32(kb_ref *r, kb_tensor t) { return (float *)typed(r, t, KB_F32, "kb_f32"); }
int64_t *kb_i64(kb_ref *r, kb_tensor t) { return (int64_t *)typed(r, t, KB_I64, "kb_i64"); }
uint8_t *kb_u8(kb_ref *r, kb_tensor t) { return (uint8_t *)typed(r, t, KB_BOOL, "kb_u8"); }
