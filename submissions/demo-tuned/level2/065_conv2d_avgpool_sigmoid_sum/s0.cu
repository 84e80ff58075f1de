/*
 * demo-tuned, level2/065_conv2d_avgpool_sigmoid_sum, sample s0:
 *   c = Conv2d(8, 64, 3)(x)              x (128, 8, 384, 384) -> (128, 64, 382, 382)
 *   y = sum(sigmoid(avg_pool2d(c, 4)), dims (1, 2, 3))        (pool -> (128, 64, 95, 95)) -> (128,)
 *
 * Design: three calls on args->stream.
 *   1. The convolution is eager's cuDNN graph with the engine eager picks when cuDNN's TF32 switch
 *      is off (an FMA engine: exact FP32, the strict protocol's reference), written into a
 *      scratch buffer kept for the next call of the same size (4.8 GB, the one intermediate; its
 *      contents are overwritten by every call before they are read); the bias is left to the
 *      epilogue, as eager adds it in a separate kernel.
 *   2. pool_sigmoid_partial: a block per (n, c) plane; a thread per pooled position at a time
 *      sums its 4 x 4 window of (conv + bias) in avg_pool2d's order, divides by 16, applies
 *      sigmoid and accumulates in DOUBLE; the block reduces in a fixed order: one partial per
 *      plane. The conv output is read once (the 2 rows and columns the pool never covers are
 *      not read); the pooled tensor is never stored.
 *   3. sum_planes: a thread per sample adds its 64 plane partials in order.
 * Eager: cuDNN, the bias add (a read-write pass over 4.8 GB), the pool (one read), sigmoid and the
 * sum over the 0.3 GB pooled tensor.
 *
 * Exactness: the convolution is the exact reference's (same graph, same engine choice); the bias
 * add is its own rounding, the window sum eager's float sum in (h, w) order divided by 16,
 * sigmoid eager's 1 / (1 + expf(-x)); the final sum is a double sum (more accurate than eager's
 * float reduction; the strict bound here counts 72 x 16 x 64 x 95 x 95 terms). Deterministic
 * (fixed reduction orders; forward engines with the NONDETERMINISTIC note are skipped).
 *
 * Napkin math (H200: ~4.3 TB/s HBM; FP32 FMA convolutions: cuDNN without TF32 reached ~42
 * TFLOP/s on L1/55, assume ~30 for 8 input channels):
 *   conv: 2 * 128*64*382*382 * 72 = 1.7e11 FLOP, ~5.6 ms exact (eager: TF32, ~0.5-0.9 ms), plus
 *   its 4.8 GB store; eager's epilogue ~16 GB of traffic, ~4 ms.
 *   here: the epilogue reads 4.7 GB once, ~1.1 ms.
 *   Expected: ~6.5-7.5 ms against eager FP32 11.53 ms / TF32 11.50 ms
 *   (reference/pytorch-eager-h200.csv; eager's "FP32" mode already runs the convolution in TF32,
 *   cuDNN's switch being on by default): ~1.6x, the exact convolution being most of the time.
 *
 * Inputs by name (problems/level2/065_conv2d_avgpool_sigmoid_sum.c KB_INPUTS): x, conv.weight,
 * conv.bias; output y (N,). Any valid (N, C, H, W) x (K, C, R, S) with a conv output of at least
 * 4 x 4 runs (64-bit indexing); kept across calls: the cuDNN handle, the plan for the last shape
 * and the scratch.
 *
 * Build (the compile stage's command; it links cuBLAS, cuBLASLt and cuDNN with --as-needed, so
 * this object records libcudnn only):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I include -o /tmp/x.so s0.cu \
 *        -Xlinker --as-needed -lcublas -lcublasLt -lcudnn
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, names,
 * dtype, shape); 2 a CUDA or cuDNN call failed.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <kb/submission.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define POOL 4

/* ---- the epilogue ------------------------------------------------------------------------- */

/* Block p: plane p of (N * K): partial[p] = sum over its PH x PW pooled values of sigmoid. */
static __global__ void __launch_bounds__(THREADS)
pool_sigmoid_partial(const float *__restrict__ c, const float *__restrict__ cb, int64_t K, int64_t OH, int64_t OW,
                     int64_t PH, int64_t PW, double *__restrict__ partial)
{
    __shared__ double sm[WARPS];
    const int64_t p = blockIdx.x;
    const float b = __ldg(cb + p % K);
    const float *plane = c + p * OH * OW;
    double s = 0.0;
    for (int64_t j = threadIdx.x; j < PH * PW; j += THREADS) {
        const float *win = plane + (j / PW) * POOL * OW + (j % PW) * POOL;
        float a = 0.0f; /* avg_pool2d: the window summed in (h, w) order, then / 16 */
#pragma unroll
        for (int r = 0; r < POOL; r++)
#pragma unroll
            for (int q = 0; q < POOL; q++)
                a = __fadd_rn(a, __fadd_rn(__ldg(win + r * OW + q), b));
        const float avg = __fdiv_rn(a, (float)(POOL * POOL));
        s += (double)(1.0f / (1.0f + expf(-avg)));
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, off);
    if (threadIdx.x % 32 == 0)
        sm[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0;
        for (int w = 0; w < WARPS; w++)
            t += sm[w];
        partial[p] = t;
    }
}

/* Thread n: y[n] = the sum of sample n's K plane partials, in order. */
static __global__ void __launch_bounds__(THREADS)
sum_planes(const double *__restrict__ partial, int64_t N, int64_t K, float *__restrict__ y)
{
    const int64_t n = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (n >= N)
        return;
    double s = 0.0;
    for (int64_t k = 0; k < K; k++)
        s += partial[n * K + k];
    y[n] = (float)s;
}

/* ---- the convolution: eager's cuDNN graph, exact FP32 ------------------------------------------
 * What eager's Conv_v8 path runs (ops/dnn.cu mirrors it): one CONVOLUTION_FORWARD operation graph
 * (NCHW float tensors with their byte alignments, compute type FLOAT, cross-correlation), the
 * engine configs of CUDNN_HEUR_MODE_INSTANT (then FALLBACK) in cuDNN's order, the first one that
 * finalizes and executes. Dropped, as eager drops them with cuDNN's TF32 switch off (the strict
 * protocol's exact reference): configs noted DOWN_CONVERT_INPUTS or TENSOR_CORE, so the engine
 * is an FMA one and the result is the exact reference's. Also dropped: NONDETERMINISTIC ones (a
 * forward convolution rarely has any). The plan is kept for the next call of the same shape and
 * alignments (a plan depends on shapes, not on values); its workspace is stream-ordered scratch
 * of each call. The bias is not in the graph: eager adds it in a separate kernel, and so does the
 * fused epilogue here. */
enum { DX, DW, DY, DCONV, DOP, DGRAPH, DCFG, DPLAN, DCOUNT };
static const int64_t kUidX = 'x', kUidY = 'y', kUidW = 'w'; /* eager's tensor uids */

static cudnnHandle_t g_dnn;
static struct {
    int valid;
    int64_t xdim[4], wdim[4], ydim[4], align[3];
    cudnnBackendDescriptor_t d[DCOUNT];
    int64_t ws_bytes;
} g_conv;

/* PyTorch's getAlignment (Conv_v8.cpp), as ops/dnn.cu computes it. */
static int64_t conv_alignment(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    int64_t al = 1;
    while (al < 32 && a % (uintptr_t)(al * 2) == 0)
        al *= 2;
    return al;
}

static void conv_release(void)
{
    for (int i = DCOUNT - 1; i >= 0; i--)
        if (g_conv.d[i])
            cudnnBackendDestroyDescriptor(g_conv.d[i]);
    memset(&g_conv, 0, sizeof g_conv);
}

#define BE_OK(call)                                                                              \
    do {                                                                                         \
        if ((call) != CUDNN_STATUS_SUCCESS)                                                      \
            return 2;                                                                            \
    } while (0)

static int make_tensor(cudnnBackendDescriptor_t *d, const int64_t dim[4], int64_t uid, int64_t align)
{
    const int64_t stride[4] = {dim[1] * dim[2] * dim[3], dim[2] * dim[3], dim[3], 1};
    const cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    BE_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, d));
    BE_OK(cudnnBackendSetAttribute(*d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
    BE_OK(cudnnBackendSetAttribute(*d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dim));
    BE_OK(cudnnBackendSetAttribute(*d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, stride));
    BE_OK(cudnnBackendSetAttribute(*d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    BE_OK(cudnnBackendSetAttribute(*d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
    BE_OK(cudnnBackendFinalize(*d));
    return 0;
}

/* Tensors, convolution (stride 1, no padding, no dilation), operation, graph. */
static int conv_graph(void)
{
    cudnnBackendDescriptor_t *d = g_conv.d;
    const cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    const int64_t spatial = 2, zero[2] = {0, 0}, one[2] = {1, 1};
    const float alpha = 1.0f, beta = 0.0f;
    if (make_tensor(&d[DX], g_conv.xdim, kUidX, g_conv.align[0]) || make_tensor(&d[DW], g_conv.wdim, kUidW, g_conv.align[1]) ||
        make_tensor(&d[DY], g_conv.ydim, kUidY, g_conv.align[2]))
        return 2;
    BE_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &d[DCONV]));
    BE_OK(cudnnBackendSetAttribute(d[DCONV], CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
    BE_OK(cudnnBackendSetAttribute(d[DCONV], CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
    BE_OK(cudnnBackendSetAttribute(d[DCONV], CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial));
    BE_OK(cudnnBackendSetAttribute(d[DCONV], CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, one));
    BE_OK(cudnnBackendSetAttribute(d[DCONV], CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, one));
    BE_OK(cudnnBackendSetAttribute(d[DCONV], CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, zero));
    BE_OK(cudnnBackendSetAttribute(d[DCONV], CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, zero));
    BE_OK(cudnnBackendFinalize(d[DCONV]));
    BE_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &d[DOP]));
    BE_OK(cudnnBackendSetAttribute(d[DOP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d[DX]));
    BE_OK(cudnnBackendSetAttribute(d[DOP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d[DW]));
    BE_OK(cudnnBackendSetAttribute(d[DOP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d[DY]));
    BE_OK(cudnnBackendSetAttribute(d[DOP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d[DCONV]));
    BE_OK(cudnnBackendSetAttribute(d[DOP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha));
    BE_OK(cudnnBackendSetAttribute(d[DOP], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
    BE_OK(cudnnBackendFinalize(d[DOP]));
    BE_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &d[DGRAPH]));
    BE_OK(cudnnBackendSetAttribute(d[DGRAPH], CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &g_dnn));
    BE_OK(cudnnBackendSetAttribute(d[DGRAPH], CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d[DOP]));
    BE_OK(cudnnBackendFinalize(d[DGRAPH]));
    return 0;
}

/* cudnn_frontend::hasNumericalNote */
static int cfg_has_note(cudnnBackendDescriptor_t cfg, cudnnBackendNumericalNote_t note)
{
    cudnnBackendDescriptor_t engine = NULL;
    cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    int64_t n = 0;
    int found = 0;
    if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine) != CUDNN_STATUS_SUCCESS)
        return 1; /* unknown: treat the config as unusable */
    if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &engine) ==
            CUDNN_STATUS_SUCCESS &&
        cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                 CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes) == CUDNN_STATUS_SUCCESS) {
        for (int64_t i = 0; i < n; i++)
            if (notes[i] == note)
                found = 1;
    } else {
        found = 1;
    }
    cudnnBackendDestroyDescriptor(engine);
    return found;
}

/* Runs a finalized plan on the handle's stream with stream-ordered workspace. */
static cudnnStatus_t plan_execute(cudnnBackendDescriptor_t plan, int64_t ws_bytes, const float *x, const float *w,
                                  float *y, cudaStream_t st)
{
    const int64_t uids[3] = {kUidX, kUidY, kUidW};
    void *ptrs[3] = {(void *)x, (void *)y, (void *)w};
    void *ws = NULL;
    cudnnBackendDescriptor_t vp = NULL;
    cudnnStatus_t s = CUDNN_STATUS_SUCCESS;
    if (ws_bytes > 0 && cudaMallocAsync(&ws, (size_t)ws_bytes, st) != cudaSuccess) {
        (void)cudaGetLastError(); /* the next config may need less; leave no error behind */
        return CUDNN_STATUS_ALLOC_FAILED;
    }
    s = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendFinalize(vp);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendExecute(g_dnn, plan, vp);
    if (vp)
        cudnnBackendDestroyDescriptor(vp);
    if (ws && cudaFreeAsync(ws, st) != cudaSuccess && s == CUDNN_STATUS_SUCCESS)
        s = CUDNN_STATUS_EXECUTION_FAILED;
    return s;
}

/* The heuristics' configs of one mode in order; the first usable one that executes is kept (it
 * has then computed y). 0 found, 1 none of this mode ran, 2 an error. */
static int conv_pick(cudnnBackendHeurMode_t mode, const float *x, const float *w, float *y, cudaStream_t st)
{
    cudnnBackendDescriptor_t heur = NULL, cfgs[64];
    int64_t got = 0;
    int rc = 1;
    memset(cfgs, 0, sizeof cfgs);
    if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur) != CUDNN_STATUS_SUCCESS)
        return 2;
    for (int i = 0; i < 64; i++)
        if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]) != CUDNN_STATUS_SUCCESS)
            rc = 2;
    if (rc == 1 &&
        (cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                  &g_conv.d[DGRAPH]) != CUDNN_STATUS_SUCCESS ||
         cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode) !=
             CUDNN_STATUS_SUCCESS ||
         cudnnBackendFinalize(heur) != CUDNN_STATUS_SUCCESS ||
         cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 64, &got, cfgs) !=
             CUDNN_STATUS_SUCCESS))
        rc = 2;
    for (int64_t i = 0; rc == 1 && i < got; i++) {
        cudnnBackendDescriptor_t plan = NULL;
        int64_t ws_bytes = 0, n = 0;
        if (cfg_has_note(cfgs[i], CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) ||
            cfg_has_note(cfgs[i], CUDNN_NUMERICAL_NOTE_TENSOR_CORE) ||
            cfg_has_note(cfgs[i], CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC))
            continue;
        if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan) != CUDNN_STATUS_SUCCESS) {
            rc = 2;
            break;
        }
        if (cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &g_dnn) ==
                CUDNN_STATUS_SUCCESS &&
            cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                     &cfgs[i]) == CUDNN_STATUS_SUCCESS &&
            cudnnBackendFinalize(plan) == CUDNN_STATUS_SUCCESS &&
            cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
                                     &ws_bytes) == CUDNN_STATUS_SUCCESS &&
            plan_execute(plan, ws_bytes, x, w, y, st) == CUDNN_STATUS_SUCCESS) {
            g_conv.d[DCFG] = cfgs[i];
            cfgs[i] = NULL;
            g_conv.d[DPLAN] = plan;
            g_conv.ws_bytes = ws_bytes;
            rc = 0;
        } else {
            cudnnBackendDestroyDescriptor(plan);
            (void)cudaGetLastError(); /* a config that failed to launch leaves no sticky error */
        }
    }
    for (int i = 0; i < 64; i++)
        if (cfgs[i])
            cudnnBackendDestroyDescriptor(cfgs[i]);
    cudnnBackendDestroyDescriptor(heur);
    return rc;
}

/* y = conv(x, w) without bias, NCHW, stride 1, no padding, on st. 0 or 2. */
static int conv_forward(const float *x, const float *w, float *y, const int64_t xdim[4], const int64_t wdim[4],
                        const int64_t ydim[4], cudaStream_t st)
{
    if (!g_dnn && cudnnCreate(&g_dnn) != CUDNN_STATUS_SUCCESS) {
        g_dnn = NULL;
        return 2;
    }
    BE_OK(cudnnSetStream(g_dnn, st));
    const int64_t align[3] = {conv_alignment(x), conv_alignment(w), conv_alignment(y)};
    if (g_conv.valid && memcmp(g_conv.xdim, xdim, sizeof g_conv.xdim) == 0 &&
        memcmp(g_conv.wdim, wdim, sizeof g_conv.wdim) == 0 && memcmp(g_conv.ydim, ydim, sizeof g_conv.ydim) == 0 &&
        memcmp(g_conv.align, align, sizeof g_conv.align) == 0)
        return plan_execute(g_conv.d[DPLAN], g_conv.ws_bytes, x, w, y, st) == CUDNN_STATUS_SUCCESS ? 0 : 2;
    conv_release();
    memcpy(g_conv.xdim, xdim, sizeof g_conv.xdim);
    memcpy(g_conv.wdim, wdim, sizeof g_conv.wdim);
    memcpy(g_conv.ydim, ydim, sizeof g_conv.ydim);
    memcpy(g_conv.align, align, sizeof g_conv.align);
    int rc = conv_graph();
    if (rc == 0)
        rc = conv_pick(CUDNN_HEUR_MODE_INSTANT, x, w, y, st);
    if (rc == 1)
        rc = conv_pick(CUDNN_HEUR_MODE_FALLBACK, x, w, y, st);
    if (rc != 0) {
        conv_release();
        return 2;
    }
    g_conv.valid = 1;
    return 0;
}

/* ---- the dispatcher --------------------------------------------------------------------------- */

static const kb_input *input(const kb_args *a, const char *name, int ndim)
{
    for (uint32_t i = 0; i < a->n_inputs; i++)
        if (a->inputs[i].name && strcmp(a->inputs[i].name, name) == 0)
            return a->inputs[i].dtype == KB_F32 && a->inputs[i].ndim == ndim && a->inputs[i].data ? &a->inputs[i]
                                                                                                   : NULL;
    return NULL;
}

static float *g_cbuf; /* the convolution's output: scratch sized by shape, overwritten every call */
static size_t g_cbuf_bytes;

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 3 || args->n_outputs != 1)
        return 1;
    const kb_input *x = input(args, "x", 4), *w = input(args, "conv.weight", 4), *cb = input(args, "conv.bias", 1);
    const kb_output *y = &args->outputs[0];
    if (!x || !w || !cb || y->dtype != KB_F32 || y->ndim != 1 || !y->data)
        return 1;
    const int64_t xdim[4] = {x->shape[0], x->shape[1], x->shape[2], x->shape[3]};
    const int64_t wdim[4] = {w->shape[0], w->shape[1], w->shape[2], w->shape[3]};
    const int64_t ydim[4] = {xdim[0], wdim[0], xdim[2] - wdim[2] + 1, xdim[3] - wdim[3] + 1};
    const int64_t PH = ydim[2] / POOL, PW = ydim[3] / POOL;
    if (wdim[1] != xdim[1] || cb->shape[0] != wdim[0] || PH < 1 || PW < 1 || y->shape[0] != ydim[0])
        return 1;
    const int64_t planes = ydim[0] * ydim[1];
    if (planes > 0x7fffffff)
        return 1;
    const size_t bytes = (size_t)(planes * ydim[2] * ydim[3]) * sizeof(float);
    if (g_cbuf_bytes < bytes) {
        if (g_cbuf && cudaFree(g_cbuf) != cudaSuccess)
            return 2;
        g_cbuf = NULL;
        g_cbuf_bytes = 0;
        if (cudaMalloc((void **)&g_cbuf, bytes) != cudaSuccess) {
            g_cbuf = NULL;
            return 2;
        }
        g_cbuf_bytes = bytes;
    }
    cudaStream_t st = args->stream;
    int rc = conv_forward((const float *)x->data, (const float *)w->data, g_cbuf, xdim, wdim, ydim, st);
    if (rc != 0)
        return rc;
    double *partial = NULL;
    if (cudaMallocAsync((void **)&partial, (size_t)planes * sizeof(double), st) != cudaSuccess)
        return 2;
    pool_sigmoid_partial<<<(unsigned)planes, THREADS, 0, st>>>(g_cbuf, (const float *)cb->data, ydim[1], ydim[2],
                                                               ydim[3], PH, PW, partial);
    if (cudaGetLastError() != cudaSuccess)
        rc = 2;
    if (rc == 0) {
        sum_planes<<<(unsigned)((ydim[0] + THREADS - 1) / THREADS), THREADS, 0, st>>>(partial, ydim[0], ydim[1],
                                                                                       (float *)y->data);
        if (cudaGetLastError() != cudaSuccess)
            rc = 2;
    }
    if (cudaFreeAsync(partial, st) != cudaSuccess)
        rc = 2;
    return rc;
}
