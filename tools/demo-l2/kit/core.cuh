/*
 * tools/demo-l2/kit/core.cuh -- the naive kit's tensor, scope and argument check.
 *
 * Snippets, not a header: tools/demo-l2/generate.py copies the sections a sample's chain uses
 * into that sample (one self-contained .cu file each). A section runs from its marker comment
 * (section name, the identifiers it provides, the sections it needs) to the next marker.
 *
 * Conventions of the whole kit (the op library's tensor API, re-implemented for a submission):
 *   - nk_tensor is a value: device pointer, dtype, shape and strides in elements. Views
 *     (nk_view, nk_unsqueeze, nk_squeeze, nk_transpose) change only shape and strides.
 *   - Every op takes its result first. NK_NEW there allocates the result (stream-ordered
 *     scratch on args->stream); an existing tensor (an output, a view of one) is written in place
 *     and must have the result's shape and be contiguous.
 *   - Errors are sticky: the first failure sets the scope's status (NK_BAD_ARGS: a shape or
 *     dtype the op does not take; NK_CUDA_FAILED: a CUDA call or an allocation failed), every
 *     later op is a no-op, and kb_forward returns the status.
 *   - Temporaries are freed with cudaFreeAsync where the chain drops them (nk_drop) or when the
 *     chain ends, so the peak scratch is the chain's live set, as in eager PyTorch.
 */

/*@section core provides=NK_NEW,nk_tensor,nk_ref,nk_empty,nk_arg*/
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

#define NK_MAX_DIMS KB_MAX_DIMS
#define NK_MAX_TEMPS 64 /* live temporaries of one chain: a Level-2 chain keeps a handful */

/* kb_forward's return values, and the scope's status */
enum { NK_OK = 0, NK_BAD_ARGS = 1, NK_CUDA_FAILED = 2 };

struct nk_tensor {
    void *data; /* device memory; NULL: NK_NEW (the op allocates its result) */
    kb_dtype dtype;
    int32_t ndim;
    int64_t shape[NK_MAX_DIMS];
    int64_t stride[NK_MAX_DIMS]; /* elements */
};

#define NK_NEW (nk_tensor{})

/* The scope one kb_forward call runs its chain in. */
struct nk_ref {
    const kb_args *args;
    cudaStream_t stream;
    int status;      /* NK_OK until the first failure */
    const char *why; /* what failed first (for a debugger: a submission prints nothing) */
    void *temps[NK_MAX_TEMPS];
    int n_temps;
};

/* One tensor the problem passes: name, dtype and shape, checked before any work. */
struct nk_spec {
    const char *name;
    kb_dtype dtype;
    int32_t ndim;
    int64_t shape[NK_MAX_DIMS];
};

static nk_tensor nk_fail(nk_ref *r, int status, const char *why)
{
    if (r->status == NK_OK) {
        r->status = status;
        r->why = why;
    }
    return NK_NEW;
}

static bool nk_cuda_ok(nk_ref *r, cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return true;
    nk_fail(r, NK_CUDA_FAILED, what);
    return false;
}

/* After every launch: a bad configuration shows up here, not at the next synchronisation. */
static bool nk_launched(nk_ref *r, const char *kernel) { return nk_cuda_ok(r, cudaGetLastError(), kernel); }

static int64_t nk_numel(const nk_tensor &t)
{
    int64_t n = 1;
    for (int d = 0; d < t.ndim; d++)
        n *= t.shape[d];
    return n;
}

static void nk_set_contiguous(nk_tensor *t)
{
    int64_t s = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        t->stride[d] = s;
        s *= t->shape[d];
    }
}

/* Row-major contiguous, ignoring the strides of size-1 dimensions (they never move). */
static bool nk_is_contiguous(const nk_tensor &t)
{
    int64_t s = 1;
    for (int d = t.ndim - 1; d >= 0; d--) {
        if (t.shape[d] != 1 && t.stride[d] != s)
            return false;
        s *= t.shape[d];
    }
    return true;
}

/* Counted scratch: cudaMallocAsync on the call's stream, remembered until freed. */
static void *nk_alloc(nk_ref *r, size_t bytes)
{
    if (r->status != NK_OK)
        return NULL;
    if (r->n_temps == NK_MAX_TEMPS) {
        nk_fail(r, NK_CUDA_FAILED, "more than NK_MAX_TEMPS live temporaries");
        return NULL;
    }
    void *p = NULL;
    if (!nk_cuda_ok(r, cudaMallocAsync(&p, bytes ? bytes : 1, r->stream), "cudaMallocAsync"))
        return NULL;
    r->temps[r->n_temps++] = p;
    return p;
}

/* Frees p if it is a temporary of the scope (stream-ordered: kernels enqueued before still read it). */
static void nk_free(nk_ref *r, void *p)
{
    for (int i = 0; i < r->n_temps; i++)
        if (r->temps[i] == p) {
            nk_cuda_ok(r, cudaFreeAsync(p, r->stream), "cudaFreeAsync");
            r->temps[i] = r->temps[--r->n_temps];
            return;
        }
}

/* A contiguous temporary, uninitialised. */
static nk_tensor nk_empty(nk_ref *r, kb_dtype dtype, int ndim, const int64_t *shape)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (ndim < 0 || ndim > NK_MAX_DIMS || (dtype != KB_F32 && dtype != KB_I64))
        return nk_fail(r, NK_BAD_ARGS, "nk_empty: rank or dtype");
    nk_tensor t = NK_NEW;
    t.dtype = dtype;
    t.ndim = ndim;
    for (int d = 0; d < ndim; d++)
        t.shape[d] = shape[d];
    nk_set_contiguous(&t);
    t.data = nk_alloc(r, (size_t)nk_numel(t) * (size_t)kb_dtype_size(dtype));
    return t.data ? t : NK_NEW;
}

/* The result tensor of an op: a new temporary for NK_NEW, else `out` itself, which must have the
 * result's dtype and shape and be contiguous. */
static nk_tensor nk_result(nk_ref *r, nk_tensor out, kb_dtype dtype, int ndim, const int64_t *shape, const char *op)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (out.data == NULL)
        return nk_empty(r, dtype, ndim, shape);
    if (out.dtype != dtype || out.ndim != ndim || !nk_is_contiguous(out))
        return nk_fail(r, NK_BAD_ARGS, op);
    for (int d = 0; d < ndim; d++)
        if (out.shape[d] != shape[d])
            return nk_fail(r, NK_BAD_ARGS, op);
    return out;
}

static nk_tensor nk_wrap(void *data, kb_dtype dtype, int32_t ndim, const int64_t *shape)
{
    nk_tensor t = NK_NEW;
    t.data = data;
    t.dtype = dtype;
    t.ndim = ndim;
    for (int d = 0; d < ndim; d++)
        t.shape[d] = shape[d];
    nk_set_contiguous(&t);
    return t;
}

/* A problem tensor by its spec name: inputs (forward arguments, then parameters), then outputs.
 * Inputs are read-only: no op of a chain writes an input. */
static nk_tensor nk_arg(nk_ref *r, const char *name)
{
    if (r->status != NK_OK)
        return NK_NEW;
    const kb_args *a = r->args;
    for (uint32_t i = 0; i < a->n_inputs; i++)
        if (a->inputs[i].name && !strcmp(a->inputs[i].name, name))
            return nk_wrap((void *)a->inputs[i].data, a->inputs[i].dtype, a->inputs[i].ndim, a->inputs[i].shape);
    for (uint32_t i = 0; i < a->n_outputs; i++)
        if (a->outputs[i].name && !strcmp(a->outputs[i].name, name))
            return nk_wrap(a->outputs[i].data, a->outputs[i].dtype, a->outputs[i].ndim, a->outputs[i].shape);
    return nk_fail(r, NK_BAD_ARGS, name);
}

static bool nk_matches(const char *name, kb_dtype dtype, int32_t ndim, const int64_t *shape, const nk_spec &s)
{
    if ((name && strcmp(name, s.name)) || dtype != s.dtype || ndim != s.ndim)
        return false;
    for (int d = 0; d < ndim; d++)
        if (shape[d] != s.shape[d])
            return false;
    return true;
}

/* Checks the arguments against the problem's tensors (count, names, dtypes, shapes) and opens
 * the scope; false: they are not what this sample computes (kb_forward returns NK_BAD_ARGS). */
static bool nk_begin(nk_ref *r, const kb_args *args, const nk_spec *in, uint32_t n_in, const nk_spec *out,
                     uint32_t n_out)
{
    memset(r, 0, sizeof *r);
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != n_in || args->n_outputs != n_out)
        return false;
    for (uint32_t i = 0; i < n_in; i++)
        if (!nk_matches(args->inputs[i].name, args->inputs[i].dtype, args->inputs[i].ndim, args->inputs[i].shape, in[i]) ||
            args->inputs[i].data == NULL)
            return false;
    for (uint32_t i = 0; i < n_out; i++)
        if (!nk_matches(args->outputs[i].name, args->outputs[i].dtype, args->outputs[i].ndim, args->outputs[i].shape,
                        out[i]) ||
            args->outputs[i].data == NULL)
            return false;
    r->args = args;
    r->stream = args->stream;
    return true;
}

/* Frees what the chain left and gives kb_forward's return value. */
static int nk_end(nk_ref *r)
{
    while (r->n_temps > 0)
        nk_free(r, r->temps[r->n_temps - 1]);
    return r->status;
}

/*@section nk_drop*/
/* What PyTorch does when a temporary's last reference goes: free it now (stream-ordered). A
 * tensor that is not a temporary of the scope (an argument, a view of one) is left alone. */
static void nk_drop(nk_ref *r, nk_tensor t)
{
    if (t.data)
        nk_free(r, t.data);
}

/*@section NK_EMPTY*/
/* NK_EMPTY(r, KB_I64, BATCH, 1): a temporary of that shape (the sizes are counted by the compiler). */
template <class... D> static nk_tensor nk_empty_of(nk_ref *r, kb_dtype dtype, D... sizes)
{
    const int64_t shape[] = {(int64_t)sizes...};
    return nk_empty(r, dtype, (int)sizeof...(sizes), shape);
}
#define NK_EMPTY(r, dtype, ...) nk_empty_of((r), (dtype), __VA_ARGS__)

/*@section nk_view provides=nk_view,NK_VIEW*/
/* x.view(shape) of a contiguous tensor; one size may be -1 (inferred). */
static nk_tensor nk_view(nk_ref *r, nk_tensor t, int ndim, const int64_t *shape)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (!nk_is_contiguous(t) || ndim < 0 || ndim > NK_MAX_DIMS)
        return nk_fail(r, NK_BAD_ARGS, "nk_view: not contiguous, or rank");
    nk_tensor v = t;
    v.ndim = ndim;
    int64_t known = 1;
    int infer = -1;
    for (int d = 0; d < ndim; d++) {
        v.shape[d] = shape[d];
        if (shape[d] == -1) {
            if (infer >= 0)
                return nk_fail(r, NK_BAD_ARGS, "nk_view: two -1 sizes");
            infer = d;
        } else {
            known *= shape[d];
        }
    }
    if (infer >= 0)
        v.shape[infer] = known > 0 ? nk_numel(t) / known : 0;
    if (nk_numel(v) != nk_numel(t))
        return nk_fail(r, NK_BAD_ARGS, "nk_view: element count");
    nk_set_contiguous(&v);
    return v;
}
template <class... D> static nk_tensor nk_view_of(nk_ref *r, nk_tensor t, D... sizes)
{
    const int64_t shape[] = {(int64_t)sizes...};
    return nk_view(r, t, (int)sizeof...(sizes), shape);
}
#define NK_VIEW(r, t, ...) nk_view_of((r), (t), __VA_ARGS__)

/*@section nk_unsqueeze*/
/* x.unsqueeze(dim): a size-1 dimension inserted at dim (negative counts from the end). */
static nk_tensor nk_unsqueeze(nk_ref *r, nk_tensor t, int dim)
{
    if (r->status != NK_OK)
        return NK_NEW;
    const int d = dim < 0 ? dim + t.ndim + 1 : dim;
    if (d < 0 || d > t.ndim || t.ndim == NK_MAX_DIMS)
        return nk_fail(r, NK_BAD_ARGS, "nk_unsqueeze: dimension");
    nk_tensor v = t;
    for (int i = t.ndim; i > d; i--) {
        v.shape[i] = t.shape[i - 1];
        v.stride[i] = t.stride[i - 1];
    }
    v.shape[d] = 1;
    v.stride[d] = d < t.ndim ? t.shape[d] * t.stride[d] : 1;
    v.ndim = t.ndim + 1;
    return v;
}

/*@section nk_squeeze*/
/* x.squeeze(dim): removes dimension dim if its size is 1, else x unchanged (torch.squeeze(dim)). */
static nk_tensor nk_squeeze(nk_ref *r, nk_tensor t, int dim)
{
    if (r->status != NK_OK)
        return NK_NEW;
    const int d = dim < 0 ? dim + t.ndim : dim;
    if (d < 0 || d >= t.ndim)
        return nk_fail(r, NK_BAD_ARGS, "nk_squeeze: dimension");
    if (t.shape[d] != 1)
        return t;
    nk_tensor v = t;
    for (int i = d; i < t.ndim - 1; i++) {
        v.shape[i] = t.shape[i + 1];
        v.stride[i] = t.stride[i + 1];
    }
    v.ndim = t.ndim - 1;
    return v;
}

/*@section nk_transpose*/
/* x.transpose(d0, d1): a strided view. */
static nk_tensor nk_transpose(nk_ref *r, nk_tensor t, int d0, int d1)
{
    if (r->status != NK_OK)
        return NK_NEW;
    d0 = d0 < 0 ? d0 + t.ndim : d0;
    d1 = d1 < 0 ? d1 + t.ndim : d1;
    if (d0 < 0 || d0 >= t.ndim || d1 < 0 || d1 >= t.ndim)
        return nk_fail(r, NK_BAD_ARGS, "nk_transpose: dimension");
    nk_tensor v = t;
    v.shape[d0] = t.shape[d1];
    v.shape[d1] = t.shape[d0];
    v.stride[d0] = t.stride[d1];
    v.stride[d1] = t.stride[d0];
    return v;
}

/*@section dim_norm*/
/* dim (Python style, negative from the end) -> 0..ndim-1, or -1 when out of range. */
static int nk_norm_dim(int dim, int ndim)
{
    const int d = dim < 0 ? dim + ndim : dim;
    return d >= 0 && d < ndim ? d : -1;
}

/*@section dim_split*/
/* [outer, len, inner] around the reduced dimensions of a contiguous tensor: the dims flagged in
 * `reduced` must be neighbours once size-1 dims are ignored (else false). */
static bool nk_split_reduced(const nk_tensor &t, const bool *reduced, int64_t *outer, int64_t *len, int64_t *inner)
{
    int first = -1, last = -1;
    for (int d = 0; d < t.ndim; d++)
        if (reduced[d] && t.shape[d] != 1) {
            if (first < 0)
                first = d;
            last = d;
        }
    *outer = *len = *inner = 1;
    for (int d = 0; d < t.ndim; d++) {
        if (reduced[d])
            *len *= t.shape[d];
        else if (first < 0 || d < first)
            *outer *= t.shape[d];
        else if (d > last)
            *inner *= t.shape[d];
        else if (t.shape[d] != 1)
            return false; /* a kept dimension between two reduced ones */
    }
    return true;
}

/*@section dim_shape*/
/* The shape left after reducing the flagged dims (kept as size 1 with keepdim). */
static int nk_reduced_shape(const nk_tensor &t, const bool *reduced, int keepdim, int64_t *shape)
{
    int nd = 0;
    for (int d = 0; d < t.ndim; d++) {
        if (!reduced[d])
            shape[nd++] = t.shape[d];
        else if (keepdim)
            shape[nd++] = 1;
    }
    return nd;
}
