/*
 * ops/dnn.cu -- convolution, transposed convolution and training-mode batch norm (kb/ops.h),
 * the way eager PyTorch 2.11 runs them with cuDNN 9 (torch.backends.cudnn.benchmark = False,
 * deterministic = False, allow_tf32 from kb_ctx_math(ctx).cudnn_tf32).
 *
 * Convolution (aten/src/ATen/native/cudnn/Conv_v8.cpp, the default path since PyTorch 2.0; the
 * legacy cudnnConvolutionForward path of Conv_v7.cpp only runs when the v8 API is switched off
 * through the environment):
 *   nn.ConvNd        -> cudnn_convolution            -> one CONVOLUTION_FORWARD operation graph
 *   nn.ConvTransposeNd -> cudnn_convolution_transpose -> CONVOLUTION_BACKWARD_DATA graph
 *                       (dx = our output, dy = our input, w in PyTorch's [C_in, C_out/g, k...])
 *   bias (either)    -> a separate broadcast add after the convolution (output.add_(bias))
 * run_single_conv with benchmark off: build the graph (x, w, y tensors with their byte alignment,
 * compute type FLOAT, CROSS_CORRELATION), ask the engine heuristics in CUDNN_HEUR_MODE_INSTANT,
 * drop engine configs with the DOWN_CONVERT_INPUTS note (always) and the TENSOR_CORE note when
 * TF32 is off, then take the FIRST config whose plan finalizes, whose workspace can be allocated
 * and which executes; if none does, the same with CUDNN_HEUR_MODE_FALLBACK. The chosen plan is
 * cached per (shape, parameters, alignments, TF32 switch), like PyTorch's plan cache, so steady
 * state is: look up the plan, allocate its workspace, build a variant pack, cudnnBackendExecute,
 * free the workspace. We call the backend API directly (it is what cudnn_frontend wraps), so
 * the engine choice is cuDNN's own, as in PyTorch. 1-D convolutions are run as 2-D with H = 1,
 * as PyTorch's view1d_as_2d does. No 32-bit splitting: the v8 path hands int64 shapes to cuDNN
 * and an engine that cannot index the tensor is simply not offered or refuses to finalize; if
 * none is left the op fails and says so. (PyTorch's split_batch_dim_to_32bit_out -- batch chunks
 * of max(2^28 or 2^27 / per-sample elements, 1) when x or y has more than INT_MAX elements --
 * lives in Conv_v7.cpp and runs only when the v8 API is switched off: ConvShared.h says "v7
 * explicitly splits large tensors as a 32-bit indexing workaround whereas v8 expects cuDNN to
 * handle large tensors". Convolution.cpp's use_cudnn refuses cuDNN only for tensors that no
 * batch split could fix, needs_64bit_indexing_no_split, unless cuDNN >= 9.3 with v8. So L1/87,
 * whose y has exactly 2^31 elements, is one cuDNN call here as in eager 2.11.)
 *
 * What PyTorch does NOT send to cuDNN, and this file therefore refuses with a message instead of
 * silently running something else: fp32 depthwise convolution (groups == C_in > 1, NCHW, 32-bit
 * indexable) goes to PyTorch's own conv_depthwise2d/3d kernels; transposed convolution with
 * output_padding >= stride goes to its slow path.
 *
 * Napkin math, H200 (TF32 dense ~400+ TFLOP/s, HBM ~4.0 TB/s achievable):
 *   L1/55 conv 3x3, x 8x64x512x1024 -> y 8x128x510x1022: 6.15e11 FLOP -> ~1.5 ms of TF32 math,
 *   plus ~3.2 GB of x/y traffic and the NCHW<->NHWC staging cuDNN does in its workspace (PyTorch's
 *   peak shows a ~1 GiB workspace = one copy of x): PyTorch measures 3.81 ms.
 *   L1/57 transposed 3x3, x 8x64x1024x1024 -> y 8x64x1026x1026: 6.19e11 FLOP, ~4 GiB workspace
 *   (staged x and y): PyTorch measures 5.27 ms.
 *   Measured with this file on an H200 (cuDNN 9.14 runtime): L1/55 3.81 ms median with a
 *   1024.3 MiB workspace, L1/57 5.24 ms with 4104 MiB -- the same workspace sizes PyTorch's peak
 *   memory implies, i.e. the same engines. With cuDNN TF32 off: 14.6 ms and 28.1 ms.
 *
 * Batch norm (aten/src/ATen/native/cudnn/BatchNorm.cpp): training mode with weight and bias uses
 * cudnnBatchNormalizationForwardTrainingEx, CUDNN_BATCHNORM_SPATIAL for NCHW input,
 * CUDNN_BATCHNORM_OPS_BN, exponentialAverageFactor = momentum, save_mean / save_invstd into
 * fresh [C] buffers, workspace and reserve space sized by cuDNN. The input descriptor is 4-D:
 * we pass [N, C, spatial, 1] (the API gives us the product of the spatial extents).
 * Napkin math L1/33 (64x64x512x512, 4 GiB in, 4 GiB out): the cuDNN kernel reads x twice
 * (statistics, then normalise), 12.9 GB of traffic; PyTorch measures 8.70 ms (~1.5 TB/s), this
 * file 8.30 ms on the H200 (cuDNN 9.14). The descriptor split does not matter: [N,C,H,W],
 * [N,C,H*W,1] and [N,C,1,H*W] all ran in 8.245 ms.
 *
 * Every failure goes through kb_ctx_fail with the call and cudnnGetErrorString (plus cuDNN's
 * cudnnGetLastErrorString detail when it has one). Workspaces come from kb_ctx_alloc and are
 * freed after the call, as PyTorch frees them to its caching allocator.
 *
 * Plan cache caveat: the cache is process-wide, keyed by the cuDNN handle's address. A context
 * destroyed and re-created gets its handle at the same address (observed every time on the
 * test machine), so the new handle runs plans that were finalized with the old one. That gave
 * correct results in every test, but cuDNN does not promise it; a per-context slot in kb_ctx
 * (proposed in ops/blas.cu) would let kb_ctx_destroy drop the plans with their handle.
 * Not thread-safe: one host thread drives the op library.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cudnn.h>

#include "kb/ops.h"
#include "kb/ref.h"

#define KB_DNN_PLAN_CACHE 64

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

static int dnn_fail(kb_ctx *ctx, const char *file, int line, const char *call, cudnnStatus_t s)
{
    char detail[512];
    detail[0] = '\0';
    cudnnGetLastErrorString(detail, sizeof detail);
    return kb_ctx_fail(ctx, "%s:%d: %s: %s%s%s", file, line, call, cudnnGetErrorString(s), detail[0] ? ": " : "",
                       detail);
}

/* Inside a function with `int rc` and a `done:` label that releases what was acquired. */
#define DNN_CHECK(ctx, call)                                                                     \
    do {                                                                                         \
        cudnnStatus_t kb_s_ = (call);                                                            \
        if (kb_s_ != CUDNN_STATUS_SUCCESS) {                                                     \
            rc = dnn_fail((ctx), __FILE__, __LINE__, #call, kb_s_);                              \
            goto done;                                                                           \
        }                                                                                        \
    } while (0)

/* ------------------------------------------------------------------------------------------ */
/* Backend-descriptor helpers: a sequence of calls that stops at the first failure and
 * remembers which step failed, so graph construction reads as a list of attributes.          */

typedef struct be_state {
    cudnnStatus_t st;
    const char *what;
} be_state;

static void be_create(be_state *b, cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *d, const char *what)
{
    *d = NULL;
    if (b->st != CUDNN_STATUS_SUCCESS)
        return;
    cudnnStatus_t s = cudnnBackendCreateDescriptor(type, d);
    if (s != CUDNN_STATUS_SUCCESS) {
        *d = NULL;
        b->st = s;
        b->what = what;
    }
}

static void be_set(be_state *b, cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
                   cudnnBackendAttributeType_t type, int64_t count, const void *values, const char *what)
{
    if (b->st != CUDNN_STATUS_SUCCESS)
        return;
    cudnnStatus_t s = cudnnBackendSetAttribute(d, name, type, count, values);
    if (s != CUDNN_STATUS_SUCCESS) {
        b->st = s;
        b->what = what;
    }
}

static void be_finalize(be_state *b, cudnnBackendDescriptor_t d, const char *what)
{
    if (b->st != CUDNN_STATUS_SUCCESS)
        return;
    cudnnStatus_t s = cudnnBackendFinalize(d);
    if (s != CUDNN_STATUS_SUCCESS) {
        b->st = s;
        b->what = what;
    }
}

static void be_destroy(cudnnBackendDescriptor_t *d)
{
    if (*d)
        cudnnBackendDestroyDescriptor(*d); /* only host memory is at stake */
    *d = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Convolution: key, plan cache                                                                */

enum { CONV_FWD = 0, CONV_BWD_DATA = 1 };

/* Everything the plan depends on. Memset to zero before filling so memcmp is exact. Tensor
 * roles are cuDNN's: for CONV_BWD_DATA, x is dx (our output) and y is dy (our input). */
typedef struct conv_key {
    const void *handle;
    int32_t op;
    int32_t nd; /* tensor rank given to cuDNN: 4 or 5 */
    int64_t xdim[5], wdim[5], ydim[5];
    int64_t pad[3], stride[3], dilation[3];
    int64_t align[3]; /* bytes: x, w, y */
    int32_t tf32;
    int32_t pad_;
} conv_key;

enum { DESC_X, DESC_W, DESC_Y, DESC_CONV, DESC_OP, DESC_GRAPH, DESC_CFG, DESC_PLAN, DESC_COUNT };

typedef struct conv_plan {
    int used;
    conv_key key;
    uint64_t stamp;
    cudnnBackendDescriptor_t desc[DESC_COUNT]; /* kept alive together with the plan */
    int64_t ws_bytes;
} conv_plan;

static conv_plan g_plans[KB_DNN_PLAN_CACHE];
static uint64_t g_plan_stamp;

static void plan_release(conv_plan *p)
{
    for (int i = DESC_COUNT - 1; i >= 0; i--)
        be_destroy(&p->desc[i]);
    memset(p, 0, sizeof *p);
}

static conv_plan *plan_find(const conv_key *key)
{
    for (int i = 0; i < KB_DNN_PLAN_CACHE; i++) {
        conv_plan *p = &g_plans[i];
        if (p->used && memcmp(&p->key, key, sizeof *key) == 0) {
            p->stamp = ++g_plan_stamp;
            return p;
        }
    }
    return NULL;
}

/* A free slot, evicting the least recently used plan when the cache is full. */
static conv_plan *plan_slot(void)
{
    conv_plan *lru = &g_plans[0];
    for (int i = 0; i < KB_DNN_PLAN_CACHE; i++) {
        if (!g_plans[i].used)
            return &g_plans[i];
        if (g_plans[i].stamp < lru->stamp)
            lru = &g_plans[i];
    }
    plan_release(lru);
    return lru;
}

/* PyTorch's getAlignment (Conv_v8.cpp): the largest power of two <= 32 dividing the address. */
static int64_t conv_alignment(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    int64_t al = 1;
    while (al < 32 && a % (uintptr_t)(al * 2) == 0)
        al *= 2;
    return al;
}

static void contiguous_strides(int nd, const int64_t *dim, int64_t *stride)
{
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        stride[i] = s;
        s *= dim[i];
    }
}

static const int64_t kUidX = 'x', kUidY = 'y', kUidW = 'w'; /* PyTorch's tensor uids */

static void build_tensor(be_state *b, cudnnBackendDescriptor_t *d, int nd, const int64_t *dim, int64_t uid,
                         int64_t align, const char *what)
{
    int64_t stride[5];
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    contiguous_strides(nd, dim, stride);
    be_create(b, CUDNN_BACKEND_TENSOR_DESCRIPTOR, d, what);
    be_set(b, *d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt, what);
    be_set(b, *d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dim, what);
    be_set(b, *d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, stride, what);
    be_set(b, *d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, what);
    be_set(b, *d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align, what);
    be_finalize(b, *d, what);
}

/* Tensors, convolution descriptor, operation and operation graph into p->desc. */
static void build_graph(be_state *b, cudnnHandle_t h, const conv_key *k, cudnnBackendDescriptor_t *desc)
{
    const int nsd = k->nd - 2;
    const cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    const int64_t spatial = nsd;
    const float alpha = 1.0f, beta = 0.0f;

    build_tensor(b, &desc[DESC_X], k->nd, k->xdim, kUidX, k->align[0], "x tensor descriptor");
    build_tensor(b, &desc[DESC_W], k->nd, k->wdim, kUidW, k->align[1], "w tensor descriptor");
    build_tensor(b, &desc[DESC_Y], k->nd, k->ydim, kUidY, k->align[2], "y tensor descriptor");

    be_create(b, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &desc[DESC_CONV], "convolution descriptor");
    be_set(b, desc[DESC_CONV], CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp, "conv comp type");
    be_set(b, desc[DESC_CONV], CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode, "conv mode");
    be_set(b, desc[DESC_CONV], CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial, "conv dims");
    be_set(b, desc[DESC_CONV], CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, nsd, k->dilation, "conv dilations");
    be_set(b, desc[DESC_CONV], CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, nsd, k->stride, "conv strides");
    be_set(b, desc[DESC_CONV], CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, nsd, k->pad, "conv pre-padding");
    be_set(b, desc[DESC_CONV], CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, nsd, k->pad, "conv post-padding");
    be_finalize(b, desc[DESC_CONV], "convolution descriptor");

    if (k->op == CONV_FWD) {
        be_create(b, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &desc[DESC_OP], "forward operation");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &desc[DESC_X], "forward operation x");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &desc[DESC_W], "forward operation w");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &desc[DESC_Y], "forward operation y");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &desc[DESC_CONV], "forward operation conv");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha,
               "forward operation alpha");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta,
               "forward operation beta");
        be_finalize(b, desc[DESC_OP], "forward operation");
    } else {
        be_create(b, CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, &desc[DESC_OP],
                  "backward-data operation");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &desc[DESC_X], "backward-data operation dx");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &desc[DESC_W], "backward-data operation w");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
               &desc[DESC_Y], "backward-data operation dy");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
               1, &desc[DESC_CONV], "backward-data operation conv");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha,
               "backward-data operation alpha");
        be_set(b, desc[DESC_OP], CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_FLOAT, 1, &beta,
               "backward-data operation beta");
        be_finalize(b, desc[DESC_OP], "backward-data operation");
    }

    be_create(b, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &desc[DESC_GRAPH], "operation graph");
    be_set(b, desc[DESC_GRAPH], CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h, "operation graph handle");
    be_set(b, desc[DESC_GRAPH], CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &desc[DESC_OP],
           "operation graph ops");
    be_finalize(b, desc[DESC_GRAPH], "operation graph");
}

/* cudnn_frontend::hasNumericalNote, as PyTorch's filterEngineConfigs uses it. */
static int cfg_has_note(cudnnBackendDescriptor_t cfg, cudnnBackendNumericalNote_t note)
{
    cudnnBackendDescriptor_t engine = NULL;
    cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    int64_t n = 0;
    int found = 0;
    if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine) != CUDNN_STATUS_SUCCESS)
        return 0;
    if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &engine) ==
            CUDNN_STATUS_SUCCESS &&
        cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                 CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes) == CUDNN_STATUS_SUCCESS) {
        for (int64_t i = 0; i < n; i++)
            if (notes[i] == note)
                found = 1;
    }
    cudnnBackendDestroyDescriptor(engine);
    return found;
}

/* Runs a finalized plan once: workspace from the context, variant pack, execute, free.
 * Returns the cuDNN status; *ws_failed says the workspace could not be allocated (PyTorch
 * catches that OutOfMemoryError and tries the next config). */
static cudnnStatus_t plan_execute(kb_ctx *ctx, cudnnHandle_t h, cudnnBackendDescriptor_t plan, int64_t ws_bytes,
                                  void *const ptrs[3], int *ws_failed)
{
    const int64_t uids[3] = {kUidX, kUidY, kUidW};
    cudnnBackendDescriptor_t vp = NULL;
    void *ws = NULL;
    be_state b = {CUDNN_STATUS_SUCCESS, NULL};
    *ws_failed = 0;
    if (ws_bytes > 0) {
        int had_error = kb_ctx_error(ctx)[0] != '\0';
        ws = kb_ctx_alloc(ctx, (size_t)ws_bytes);
        if (!ws) {
            if (!had_error)
                kb_ctx_clear_error(ctx); /* an expected miss: the next config may need less */
            (void)cudaGetLastError();
            *ws_failed = 1;
            return CUDNN_STATUS_ALLOC_FAILED;
        }
    }
    be_create(&b, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp, "variant pack");
    be_set(&b, vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids, "variant pack uids");
    be_set(&b, vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs, "variant pack pointers");
    be_set(&b, vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws, "variant pack workspace");
    be_finalize(&b, vp, "variant pack");
    if (b.st == CUDNN_STATUS_SUCCESS)
        b.st = cudnnBackendExecute(h, plan, vp);
    be_destroy(&vp);
    if (ws)
        kb_ctx_free(ctx, ws);
    return b.st;
}

/* PyTorch's try_configs over one heuristic mode. Returns 0 and fills p on success; 1 when no
 * config of this mode ran (reason in `why`); -1 on a hard error (recorded in ctx). */
static int try_mode(kb_ctx *ctx, cudnnHandle_t h, cudnnBackendDescriptor_t graph, cudnnBackendHeurMode_t mode,
                    int tf32, void *const ptrs[3], conv_plan *p, char *why, size_t whylen)
{
    cudnnBackendDescriptor_t heur = NULL, plan = NULL;
    cudnnBackendDescriptor_t *cfgs = NULL;
    int64_t count = 0, got = 0;
    int rc = 1;
    be_state b = {CUDNN_STATUS_SUCCESS, NULL};

    be_create(&b, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur, "engine heuristics");
    be_set(&b, heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph,
           "engine heuristics graph");
    be_set(&b, heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, "engine heuristics mode");
    be_finalize(&b, heur, "engine heuristics");
    if (b.st == CUDNN_STATUS_SUCCESS)
        b.st = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                        NULL);
    if (b.st != CUDNN_STATUS_SUCCESS) {
        snprintf(why, whylen, "%s: %s", b.what ? b.what : "engine heuristics results", cudnnGetErrorString(b.st));
        goto done;
    }
    if (count <= 0) {
        snprintf(why, whylen, "heuristics mode %d offered no engine", (int)mode);
        goto done;
    }
    cfgs = (cudnnBackendDescriptor_t *)calloc((size_t)count, sizeof *cfgs);
    if (!cfgs) {
        rc = kb_ctx_fail(ctx, "%s:%d: out of host memory for %lld engine configs", __FILE__, __LINE__,
                         (long long)count);
        goto done;
    }
    for (int64_t i = 0; i < count; i++)
        be_create(&b, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i], "engine config");
    if (b.st == CUDNN_STATUS_SUCCESS)
        b.st = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                        &got, cfgs);
    if (b.st != CUDNN_STATUS_SUCCESS) {
        snprintf(why, whylen, "%s: %s", b.what ? b.what : "engine heuristics results", cudnnGetErrorString(b.st));
        goto done;
    }
    snprintf(why, whylen, "heuristics mode %d: all %lld configs were filtered out or failed", (int)mode,
             (long long)got);
    for (int64_t i = 0; i < got && rc == 1; i++) {
        be_state pb = {CUDNN_STATUS_SUCCESS, NULL};
        int64_t ws_bytes = 0, n = 0;
        int ws_failed = 0;
        if (cfg_has_note(cfgs[i], CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS))
            continue;
        if (!tf32 && cfg_has_note(cfgs[i], CUDNN_NUMERICAL_NOTE_TENSOR_CORE))
            continue;
        be_create(&pb, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan, "execution plan");
        be_set(&pb, plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h, "execution plan handle");
        be_set(&pb, plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[i],
               "execution plan config");
        be_finalize(&pb, plan, "execution plan");
        if (pb.st == CUDNN_STATUS_SUCCESS)
            pb.st = cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                                             &ws_bytes);
        if (pb.st == CUDNN_STATUS_SUCCESS) {
            pb.st = plan_execute(ctx, h, plan, ws_bytes, ptrs, &ws_failed);
            if (ws_failed)
                snprintf(why, whylen, "workspace of %lld bytes could not be allocated", (long long)ws_bytes);
        }
        if (pb.st != CUDNN_STATUS_SUCCESS) {
            if (!ws_failed)
                snprintf(why, whylen, "last config: %s", cudnnGetErrorString(pb.st));
            be_destroy(&plan);
            continue;
        }
        /* Success: this config computed the output; keep it for the next calls. */
        p->desc[DESC_CFG] = cfgs[i];
        cfgs[i] = NULL;
        p->desc[DESC_PLAN] = plan;
        plan = NULL;
        p->ws_bytes = ws_bytes;
        rc = 0;
    }
done:
    be_destroy(&plan);
    if (cfgs) {
        for (int64_t i = 0; i < count; i++)
            be_destroy(&cfgs[i]);
        free(cfgs);
    }
    be_destroy(&heur);
    return rc;
}

static void describe_key(const conv_key *k, char *buf, size_t len)
{
    int n = k->nd;
    snprintf(buf, len, "%s x[%lld,%lld,%lld,%lld%s] w[%lld,%lld,%lld,%lld%s] y[%lld,%lld,%lld,%lld%s]",
             k->op == CONV_FWD ? "forward" : "backward-data", (long long)k->xdim[0], (long long)k->xdim[1],
             (long long)k->xdim[2], (long long)k->xdim[3], n == 5 ? ",..." : "", (long long)k->wdim[0],
             (long long)k->wdim[1], (long long)k->wdim[2], (long long)k->wdim[3], n == 5 ? ",..." : "",
             (long long)k->ydim[0], (long long)k->ydim[1], (long long)k->ydim[2], (long long)k->ydim[3],
             n == 5 ? ",..." : "");
}

/* run_single_conv: cached plan, else heuristics INSTANT, else FALLBACK. */
static int conv_run(kb_ctx *ctx, const conv_key *key, void *const ptrs[3])
{
    cudnnHandle_t h = (cudnnHandle_t)key->handle;
    conv_plan *p = plan_find(key);
    char why[256], shape[256];
    int rc = 0;

    DNN_CHECK(ctx, cudnnSetStream(h, kb_ctx_stream(ctx)));
    if (p) {
        int ws_failed = 0;
        cudnnStatus_t s = plan_execute(ctx, h, p->desc[DESC_PLAN], p->ws_bytes, ptrs, &ws_failed);
        if (s == CUDNN_STATUS_SUCCESS)
            return 0;
        if (!ws_failed) /* PyTorch retries the search only after an out-of-memory error */
            return dnn_fail(ctx, __FILE__, __LINE__, "cudnnBackendExecute (cached plan)", s);
        plan_release(p);
    }
    p = plan_slot();
    {
        be_state b = {CUDNN_STATUS_SUCCESS, NULL};
        build_graph(&b, h, key, p->desc);
        if (b.st != CUDNN_STATUS_SUCCESS) {
            char call[400];
            describe_key(key, shape, sizeof shape);
            snprintf(call, sizeof call, "building the cuDNN graph (%s) for %s", b.what, shape);
            plan_release(p);
            return dnn_fail(ctx, __FILE__, __LINE__, call, b.st);
        }
    }
    why[0] = '\0';
    rc = try_mode(ctx, h, p->desc[DESC_GRAPH], CUDNN_HEUR_MODE_INSTANT, key->tf32, ptrs, p, why, sizeof why);
    if (rc == 1)
        rc = try_mode(ctx, h, p->desc[DESC_GRAPH], CUDNN_HEUR_MODE_FALLBACK, key->tf32, ptrs, p, why, sizeof why);
    if (rc == 0) {
        p->used = 1;
        p->key = *key;
        p->stamp = ++g_plan_stamp;
        return 0;
    }
    plan_release(p);
    if (rc == 1) {
        describe_key(key, shape, sizeof shape);
        rc = kb_ctx_fail(ctx,
                         "%s:%d: cuDNN found no engine that runs the %s convolution (%s); %s (PyTorch fails the "
                         "same way: \"GET was unable to find an engine\")",
                         __FILE__, __LINE__, key->tf32 ? "TF32-allowed" : "FP32-only", shape, why);
    }
    return rc;
done:
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Bias: out[n, c, s] += bias[c], PyTorch's output.add_(bias.reshape(1, C, 1, ...)).
 * One block row per (n, c) plane so the bias is a scalar per plane; float4 when the plane
 * size allows. Memory-bound: reads and writes the output once.                                */

static __global__ void bias_add_kernel(float *__restrict__ y, const float *__restrict__ bias, int64_t planes,
                                       int64_t channels, int64_t plane_size)
{
    for (int64_t p = blockIdx.y; p < planes; p += gridDim.y) {
        const float b = bias[p % channels];
        float *row = y + p * plane_size;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane_size;
             i += (int64_t)gridDim.x * blockDim.x)
            row[i] += b;
    }
}

static __global__ void bias_add_vec4_kernel(float4 *__restrict__ y, const float *__restrict__ bias, int64_t planes,
                                            int64_t channels, int64_t plane_size4)
{
    for (int64_t p = blockIdx.y; p < planes; p += gridDim.y) {
        const float b = bias[p % channels];
        float4 *row = y + p * plane_size4;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < plane_size4;
             i += (int64_t)gridDim.x * blockDim.x) {
            float4 v = row[i];
            v.x += b;
            v.y += b;
            v.z += b;
            v.w += b;
            row[i] = v;
        }
    }
}

static int bias_add(kb_ctx *ctx, float *y, const float *bias, int64_t batch, int64_t channels, int64_t plane)
{
    const int threads = 256;
    const int64_t planes = batch * channels;
    const int vec = plane % 4 == 0 && ((uintptr_t)y % 16) == 0;
    const int64_t per_plane = vec ? plane / 4 : plane;
    int64_t bx = (per_plane + threads - 1) / threads;
    if (bx > 1024)
        bx = 1024;
    dim3 grid((unsigned)bx, (unsigned)(planes < 65535 ? planes : 65535));
    if (vec)
        bias_add_vec4_kernel<<<grid, threads, 0, kb_ctx_stream(ctx)>>>((float4 *)y, bias, planes, channels, per_plane);
    else
        bias_add_kernel<<<grid, threads, 0, kb_ctx_stream(ctx)>>>(y, bias, planes, channels, per_plane);
    KB_OP_LAUNCHED(ctx);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Convolution ops                                                                             */

extern "C" void kb_conv_out_size(const kb_conv_desc *d, int transposed, int64_t out_size[3])
{
    for (int i = 0; i < 3; i++) {
        if (i >= d->nd) {
            out_size[i] = 0;
            continue;
        }
        int64_t span = (int64_t)d->dilation[i] * (d->kernel[i] - 1);
        if (transposed)
            out_size[i] = (d->in_size[i] - 1) * d->stride[i] - 2 * (int64_t)d->pad[i] + span + d->out_pad[i] + 1;
        else
            out_size[i] = d->stride[i] > 0 ? (d->in_size[i] + 2 * (int64_t)d->pad[i] - span - 1) / d->stride[i] + 1 : 0;
    }
}

static int conv_validate(kb_ctx *ctx, const char *op, const kb_conv_desc *d, int transposed, const void *x,
                         const void *w, const void *y, int64_t out[3])
{
    if (!d || d->nd < 1 || d->nd > 3)
        return kb_ctx_fail(ctx, "%s: nd must be 1, 2 or 3", op);
    if (!x || !w || !y)
        return kb_ctx_fail(ctx, "%s: NULL tensor pointer", op);
    if (d->batch < 1 || d->in_ch < 1 || d->out_ch < 1 || d->groups < 1 || d->in_ch % d->groups ||
        d->out_ch % d->groups)
        return kb_ctx_fail(ctx, "%s: batch=%lld in_ch=%lld out_ch=%lld groups=%d: sizes must be positive and the "
                           "channels divisible by groups",
                           op, (long long)d->batch, (long long)d->in_ch, (long long)d->out_ch, d->groups);
    kb_conv_out_size(d, transposed, out);
    for (int i = 0; i < d->nd; i++) {
        if (d->in_size[i] < 1 || d->kernel[i] < 1 || d->stride[i] < 1 || d->dilation[i] < 1 || d->pad[i] < 0 ||
            d->out_pad[i] < 0 || out[i] < 1)
            return kb_ctx_fail(ctx,
                               "%s: spatial dim %d: in=%lld kernel=%lld stride=%d pad=%d dilation=%d out_pad=%d "
                               "gives output %lld",
                               op, i, (long long)d->in_size[i], (long long)d->kernel[i], d->stride[i], d->pad[i],
                               d->dilation[i], d->out_pad[i], (long long)out[i]);
        if (!transposed && d->out_pad[i] != 0)
            return kb_ctx_fail(ctx, "%s: out_pad is for transposed convolution only", op);
    }
    return 0;
}

/* Shapes as cuDNN sees them (1-D viewed as 2-D with H = 1). */
static void conv_fill_spatial(const kb_conv_desc *d, const int64_t *out, conv_key *k, int64_t *in_sp, int64_t *out_sp,
                              int64_t *ker_sp)
{
    if (d->nd == 1) {
        k->nd = 4;
        in_sp[0] = 1, in_sp[1] = d->in_size[0];
        out_sp[0] = 1, out_sp[1] = out[0];
        ker_sp[0] = 1, ker_sp[1] = d->kernel[0];
        k->pad[0] = 0, k->pad[1] = d->pad[0];
        k->stride[0] = 1, k->stride[1] = d->stride[0];
        k->dilation[0] = 1, k->dilation[1] = d->dilation[0];
        return;
    }
    k->nd = d->nd + 2;
    for (int i = 0; i < d->nd; i++) {
        in_sp[i] = d->in_size[i];
        out_sp[i] = out[i];
        ker_sp[i] = d->kernel[i];
        k->pad[i] = d->pad[i];
        k->stride[i] = d->stride[i];
        k->dilation[i] = d->dilation[i];
    }
}

static int64_t prod(int n, const int64_t *v)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= v[i];
    return p;
}

extern "C" int kb_op_conv(kb_ctx *ctx, const kb_conv_desc *d, const float *x, const float *w, const float *bias,
                          float *y)
{
    int64_t out[3], in_sp[3] = {0}, out_sp[3] = {0}, ker_sp[3] = {0};
    conv_key key;
    if (conv_validate(ctx, "kb_op_conv", d, 0, x, w, y, out))
        return -1;
    const int64_t x_numel = d->batch * d->in_ch * prod(d->nd, d->in_size);
    const int64_t w_numel = d->out_ch * (d->in_ch / d->groups) * prod(d->nd, d->kernel);
    /* select_conv_backend: fp32 depthwise NCHW convolutions that 32-bit indexing can address go
     * to PyTorch's own kernels (use_cudnn_depthwise is fp16/bf16 or channels-last only). */
    if (d->groups > 1 && d->groups == d->in_ch && d->out_ch % d->in_ch == 0 && x_numel <= ((int64_t)1 << 31) &&
        w_numel <= ((int64_t)1 << 31))
        return kb_ctx_fail(ctx,
                           "kb_op_conv: depthwise convolution (groups = C_in = %lld): eager PyTorch 2.11 runs fp32 "
                           "depthwise conv with its native conv_depthwise%dd kernel, not cuDNN; this op would not "
                           "be faithful (needs a kb_op_conv_depthwise)",
                           (long long)d->in_ch, d->nd == 3 ? 3 : 2);

    void *h = kb_ctx_cudnn(ctx);
    if (!h)
        return -1;
    memset(&key, 0, sizeof key);
    key.handle = h;
    key.op = CONV_FWD;
    key.tf32 = kb_ctx_math(ctx).cudnn_tf32 ? 1 : 0;
    conv_fill_spatial(d, out, &key, in_sp, out_sp, ker_sp);
    const int nsd = key.nd - 2;
    key.xdim[0] = d->batch, key.xdim[1] = d->in_ch;
    key.wdim[0] = d->out_ch, key.wdim[1] = d->in_ch / d->groups;
    key.ydim[0] = d->batch, key.ydim[1] = d->out_ch;
    for (int i = 0; i < nsd; i++) {
        key.xdim[2 + i] = in_sp[i];
        key.wdim[2 + i] = ker_sp[i];
        key.ydim[2 + i] = out_sp[i];
    }
    key.align[0] = conv_alignment(x);
    key.align[1] = conv_alignment(w);
    key.align[2] = conv_alignment(y);

    void *const ptrs[3] = {(void *)x, (void *)y, (void *)w}; /* uids x, y, w */
    if (conv_run(ctx, &key, ptrs))
        return -1;
    if (bias)
        return bias_add(ctx, y, bias, d->batch, d->out_ch, prod(d->nd, out));
    return 0;
}

extern "C" int kb_op_conv_transpose(kb_ctx *ctx, const kb_conv_desc *d, const float *x, const float *w,
                                    const float *bias, float *y)
{
    int64_t out[3], in_sp[3] = {0}, out_sp[3] = {0}, ker_sp[3] = {0};
    conv_key key;
    if (conv_validate(ctx, "kb_op_conv_transpose", d, 1, x, w, y, out))
        return -1;
    for (int i = 0; i < d->nd; i++)
        if (d->out_pad[i] >= d->stride[i])
            return kb_ctx_fail(ctx,
                               "kb_op_conv_transpose: out_pad[%d]=%d >= stride=%d: PyTorch runs this case with its "
                               "slow_conv_transpose kernel, not cuDNN (ConvParams::is_output_padding_big)",
                               i, d->out_pad[i], d->stride[i]);

    void *h = kb_ctx_cudnn(ctx);
    if (!h)
        return -1;
    memset(&key, 0, sizeof key);
    key.handle = h;
    key.op = CONV_BWD_DATA;
    key.tf32 = kb_ctx_math(ctx).cudnn_tf32 ? 1 : 0;
    conv_fill_spatial(d, out, &key, in_sp, out_sp, ker_sp);
    const int nsd = key.nd - 2;
    /* The forward convolution being transposed maps our output (dx, C_out channels) to our
     * input (dy, C_in channels); its filter [C_in, C_out/g, k...] is PyTorch's layout. */
    key.xdim[0] = d->batch, key.xdim[1] = d->out_ch;
    key.wdim[0] = d->in_ch, key.wdim[1] = d->out_ch / d->groups;
    key.ydim[0] = d->batch, key.ydim[1] = d->in_ch;
    for (int i = 0; i < nsd; i++) {
        key.xdim[2 + i] = out_sp[i];
        key.wdim[2 + i] = ker_sp[i];
        key.ydim[2 + i] = in_sp[i];
    }
    key.align[0] = conv_alignment(y);
    key.align[1] = conv_alignment(w);
    key.align[2] = conv_alignment(x);

    void *const ptrs[3] = {(void *)y, (void *)x, (void *)w}; /* uids x = dx, y = dy, w */
    if (conv_run(ctx, &key, ptrs))
        return -1;
    if (bias)
        return bias_add(ctx, y, bias, d->batch, d->out_ch, prod(d->nd, out));
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Batch norm, training mode                                                                   */

extern "C" int kb_op_batch_norm_train(kb_ctx *ctx, const float *x, float *y, int64_t N, int64_t C, int64_t spatial,
                                      const float *weight, const float *bias, double eps, double momentum,
                                      float *running_mean, float *running_var)
{
    int rc = 0;
    cudnnTensorDescriptor_t xd = NULL, wd = NULL;
    void *ws = NULL, *reserve = NULL;
    float *saved = NULL;
    size_t ws_bytes = 0, reserve_bytes = 0;
    const float one = 1.0f, zero = 0.0f;
    const cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;
    const cudnnBatchNormOps_t bn_ops = CUDNN_BATCHNORM_OPS_BN;
    cudnnHandle_t h = NULL;

    if (!x || !y)
        return kb_ctx_fail(ctx, "kb_op_batch_norm_train: NULL tensor pointer");
    if (N < 1 || C < 1 || spatial < 1)
        return kb_ctx_fail(ctx, "kb_op_batch_norm_train: N=%lld C=%lld spatial=%lld must be positive", (long long)N,
                           (long long)C, (long long)spatial);
    /* _batch_norm_impl_index's cuDNN conditions; outside them PyTorch runs its native kernel. */
    if (!weight || !bias)
        return kb_ctx_fail(ctx, "kb_op_batch_norm_train: weight and bias are required: PyTorch runs affine=False "
                                "batch norm with its native kernel, not cuDNN");
    if ((running_mean == NULL) != (running_var == NULL))
        return kb_ctx_fail(ctx, "kb_op_batch_norm_train: running_mean and running_var must both be given or both "
                                "be NULL (PyTorch's cuDNN condition)");
    if (N > 880801)
        return kb_ctx_fail(ctx, "kb_op_batch_norm_train: N=%lld > 880801: PyTorch runs this with its native "
                                "kernel, not cuDNN",
                           (long long)N);
    if (eps < CUDNN_BN_MIN_EPSILON)
        return kb_ctx_fail(ctx, "kb_op_batch_norm_train: eps=%g < CUDNN_BN_MIN_EPSILON", eps);
    if (C > INT_MAX || spatial > INT_MAX || C * spatial > INT_MAX || N > INT_MAX)
        return kb_ctx_fail(ctx,
                           "kb_op_batch_norm_train: N=%lld C=%lld spatial=%lld: cuDNN's tensor descriptor takes "
                           "int dimensions and strides (C*spatial must be <= INT_MAX)",
                           (long long)N, (long long)C, (long long)spatial);

    h = (cudnnHandle_t)kb_ctx_cudnn(ctx);
    if (!h)
        return -1;
    {
        const int xdim[4] = {(int)N, (int)C, (int)spatial, 1};
        const int xstride[4] = {(int)(C * spatial), (int)spatial, 1, 1};
        const int wdim[4] = {1, (int)C, 1, 1};
        const int wstride[4] = {(int)C, 1, 1, 1};
        DNN_CHECK(ctx, cudnnSetStream(h, kb_ctx_stream(ctx)));
        DNN_CHECK(ctx, cudnnCreateTensorDescriptor(&xd));
        DNN_CHECK(ctx, cudnnCreateTensorDescriptor(&wd));
        DNN_CHECK(ctx, cudnnSetTensorNdDescriptor(xd, CUDNN_DATA_FLOAT, 4, xdim, xstride));
        DNN_CHECK(ctx, cudnnSetTensorNdDescriptor(wd, CUDNN_DATA_FLOAT, 4, wdim, wstride));
    }
    /* PyTorch passes the input descriptor for x, z and y. */
    DNN_CHECK(ctx, cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, mode, bn_ops, xd, xd, xd, wd, NULL,
                                                                            &ws_bytes));
    DNN_CHECK(ctx, cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, mode, bn_ops, NULL, xd, &reserve_bytes));
    /* save_mean and save_invstd: PyTorch returns them from cudnn_batch_norm (for backward). */
    saved = (float *)kb_ctx_alloc(ctx, 2 * (size_t)C * sizeof(float));
    if (!saved) {
        rc = -1;
        goto done;
    }
    if (ws_bytes) {
        ws = kb_ctx_alloc(ctx, ws_bytes);
        if (!ws) {
            rc = -1;
            goto done;
        }
    }
    if (reserve_bytes) {
        reserve = kb_ctx_alloc(ctx, reserve_bytes);
        if (!reserve) {
            rc = -1;
            goto done;
        }
    }
    DNN_CHECK(ctx, cudnnBatchNormalizationForwardTrainingEx(h, mode, bn_ops, &one, &zero, xd, x, NULL, NULL, xd, y, wd,
                                                            weight, bias, momentum, running_mean, running_var, eps,
                                                            saved, saved + C, NULL, ws, ws_bytes, reserve,
                                                            reserve_bytes));
done:
    if (reserve)
        kb_ctx_free(ctx, reserve);
    if (ws)
        kb_ctx_free(ctx, ws);
    if (saved)
        kb_ctx_free(ctx, saved);
    if (wd)
        cudnnDestroyTensorDescriptor(wd);
    if (xd)
        cudnnDestroyTensorDescriptor(xd);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Tensor-level ops (kb/ref/conv.h): the geometry from the tensors' shapes, as
 * at::convolution derives it, then the raw ops above.                                        */

static int conv_params_to_desc(kb_ref *r, const char *op, int transposed, kb_tensor x, kb_tensor w, kb_tensor bias,
                               const kb_conv_params *p, kb_conv_desc *d, int64_t *yshape)
{
    static const kb_conv_params defaults = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0};
    if (!p)
        p = &defaults;
    if (x.dtype != KB_F32 || w.dtype != KB_F32)
        return kb_ref_fail(r, "%s: x and w must be float32 (got dtypes %d and %d)", op, (int)x.dtype, (int)w.dtype);
    if (x.ndim < 3 || x.ndim > 5 || w.ndim != x.ndim)
        return kb_ref_fail(r, "%s: expected x [N, C, spatial...] of 3-5 dims and w of the same rank (got x %d-D, "
                              "w %d-D)",
                           op, x.ndim, w.ndim);
    if (!kb_is_contiguous(x) || !kb_is_contiguous(w))
        return kb_ref_fail(r, "%s: x and w must be contiguous (PyTorch's .contiguous() before cuDNN is a copy "
                              "of its own: make it explicitly)",
                           op);
    const int nd = x.ndim - 2;
    const int groups = p->groups > 0 ? p->groups : 1;
    memset(d, 0, sizeof *d);
    d->nd = nd;
    d->batch = x.shape[0];
    d->in_ch = x.shape[1];
    d->groups = groups;
    if (!transposed) {
        d->out_ch = w.shape[0];
        if (w.shape[1] * groups != d->in_ch || d->out_ch % groups)
            return kb_ref_fail(r, "%s: w [%lld, %lld, ...] with groups=%d does not fit x with C_in=%lld (expected "
                                  "w [C_out, C_in/groups, k...], C_out divisible by groups)",
                               op, (long long)w.shape[0], (long long)w.shape[1], groups, (long long)d->in_ch);
    } else {
        d->out_ch = w.shape[1] * groups;
        if (w.shape[0] != d->in_ch || d->in_ch % groups)
            return kb_ref_fail(r, "%s: w [%lld, %lld, ...] with groups=%d does not fit x with C_in=%lld (expected "
                                  "w [C_in, C_out/groups, k...], C_in divisible by groups)",
                               op, (long long)w.shape[0], (long long)w.shape[1], groups, (long long)d->in_ch);
    }
    for (int i = 0; i < nd; i++) {
        d->in_size[i] = x.shape[2 + i];
        d->kernel[i] = w.shape[2 + i];
        d->stride[i] = p->stride[i] > 0 ? p->stride[i] : 1;
        d->pad[i] = p->padding[i];
        d->dilation[i] = p->dilation[i] > 0 ? p->dilation[i] : 1;
        d->out_pad[i] = transposed ? p->output_padding[i] : 0;
        if (!transposed && p->output_padding[i] != 0)
            return kb_ref_fail(r, "%s: output_padding is for transposed convolution only", op);
    }
    if (bias.data && (bias.dtype != KB_F32 || bias.ndim != 1 || bias.shape[0] != d->out_ch || !kb_is_contiguous(bias)))
        return kb_ref_fail(r, "%s: bias must be a contiguous float32 [C_out = %lld] tensor (got %d-D, dtype %d)", op,
                           (long long)d->out_ch, bias.ndim, (int)bias.dtype);
    int64_t out_sp[3];
    kb_conv_out_size(d, transposed, out_sp);
    yshape[0] = d->batch;
    yshape[1] = d->out_ch;
    for (int i = 0; i < nd; i++) {
        if (out_sp[i] < 1)
            return kb_ref_fail(r, "%s: spatial dim %d: input %lld, kernel %lld, stride %d, padding %d, dilation %d "
                                  "give an empty output (%lld)",
                               op, i, (long long)d->in_size[i], (long long)d->kernel[i], d->stride[i], d->pad[i],
                               d->dilation[i], (long long)out_sp[i]);
        yshape[2 + i] = out_sp[i];
    }
    return 1;
}

static kb_tensor conv_tensor_op(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor w, kb_tensor bias,
                                const kb_conv_params *p, int transposed)
{
    const char *op = transposed ? "kb_conv_transpose" : "kb_conv";
    kb_conv_desc d;
    int64_t yshape[5];
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!conv_params_to_desc(r, op, transposed, x, w, bias, p, &d, yshape))
        return kb_ref_none();
    kb_tensor y = kb_result(r, out, KB_F32, x.ndim, yshape, op);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    if (!kb_is_contiguous(y)) {
        kb_ref_fail(r, "%s: the result tensor must be contiguous", op);
        return kb_ref_none();
    }
    const float *xp = kb_f32(r, x), *wp = kb_f32(r, w);
    float *yp = kb_f32(r, y);
    if (!kb_ref_ok(r))
        return kb_ref_none();
    kb_ctx *ctx = kb_ref_ctx(r);
    kb_ref_check(r, transposed ? kb_op_conv_transpose(ctx, &d, xp, wp, NULL, yp) : kb_op_conv(ctx, &d, xp, wp, NULL, yp));
    if (bias.data && kb_ref_ok(r)) {
        /* output.add_(bias.reshape({1, C, 1, ...})) (Convolution.cpp): the elementwise family's
         * broadcasting add, which mirrors the TensorIterator kernel eager runs (the raw ops'
         * own bias kernel timed L1/50 at 1.10x eager on the H200) */
        int64_t bshape[5] = {1, d.out_ch, 1, 1, 1};
        kb_add(r, y, y, kb_view(r, bias, x.ndim, bshape));
    }
    return kb_ref_ok(r) ? y : kb_ref_none();
}

extern "C" kb_tensor kb_conv(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor w, kb_tensor bias,
                             const kb_conv_params *p)
{
    return conv_tensor_op(r, out, x, w, bias, p, 0);
}

extern "C" kb_tensor kb_conv_transpose(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor w, kb_tensor bias,
                                       const kb_conv_params *p)
{
    return conv_tensor_op(r, out, x, w, bias, p, 1);
}
