/*
 * demo-tuned, level2/087_conv2d_subtract_subtract_mish, sample s0:
 *   c = Conv2d(8, 64, 3)(x)              x (128, 8, 256, 256) -> (128, 64, 254, 254)
 *   y = mish((c - 0.5) - 0.2)
 *
 * Design: two calls on args->stream, no intermediate tensor.
 *   1. The convolution is eager's cuDNN graph with the engine eager picks when cuDNN's TF32 switch
 *      is off (an FMA engine: exact FP32, the strict protocol's reference), written into y; the
 *      bias is left to the epilogue, as eager adds it in a separate kernel.
 *   2. One fused epilogue kernel, in place on y: float4 per thread (a 254 x 254 plane is a
 *      multiple of 4 floats, so a float4 never straddles two channels), conv bias, both
 *      subtractions and mish in registers, one store. y is read once and written once.
 * Eager: cuDNN, the bias add, two subtractions and mish: 4 read-write passes over the 2.1 GB
 * result after the convolution.
 *
 * Exactness: the convolution is the exact reference's (same graph, same engine choice); every
 * later op rounds where eager's kernels round (__fadd_rn / __fsub_rn / __fmul_rn: no contraction
 * across op boundaries; the Python floats become 0.5f and 0.2f as in eager); mish is eager's
 * functor x * tanhf(log1pf(expf(x))) (no threshold in eager's mish: for large x expf overflows to
 * inf and the result is x in both). Deterministic (forward engines with the NONDETERMINISTIC note
 * are skipped). Against the standard check's reference (PyTorch's defaults: cuDNN TF32 on) the
 * exact convolution differs by TF32's error; simulated on the CPU (TF32 operands rounded to
 * nearest and by truncation, 1.1M outputs) it needs tau <= 6.1e-4 on D1 and up to 1.4e-3 on the
 * paper's D2, which may therefore fail, as it does for exact FP32 convolutions in Level 1.
 *
 * Napkin math (H200: ~4.3 TB/s HBM; FP32 FMA convolutions: cuDNN without TF32 reached ~42
 * TFLOP/s on L1/55, assume ~30 for 8 input channels):
 *   conv: 2 * 128*64*254*254 * 72 = 7.6e10 FLOP, ~2.5 ms exact (eager: TF32, ~0.2-0.4 ms), plus
 *   its 2.1 GB store; eager's epilogue ~4 passes x 2 x 2.1 GB = ~17 GB, ~4.5 ms.
 *   here: the epilogue reads and writes 2.1 GB once, ~1.0 ms.
 *   Expected: ~3.5-4 ms against eager FP32 7.29 ms / TF32 7.29 ms
 *   (reference/pytorch-eager-h200.csv; eager's "FP32" mode already runs the convolution in TF32,
 *   cuDNN's switch being on by default): ~1.9x, with the slower exact convolution.
 *
 * Inputs by name (problems/level2/087_conv2d_subtract_subtract_mish.c KB_INPUTS): x, conv.weight,
 * conv.bias; output y. Any valid (N, C, H, W) x (K, C, R, S) runs; nothing is kept across calls
 * but the cuDNN handle and the plan for the last shape.
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

/* ---- the epilogue ------------------------------------------------------------------------- */

static __device__ __forceinline__ float epi(float c, float cb)
{
    const float v = __fsub_rn(__fsub_rn(__fadd_rn(c, cb), 0.5f), 0.2f); /* + bias, - 0.5, - 0.2 */
    return __fmul_rn(v, tanhf(log1pf(expf(v))));                         /* mish */
}

/* VEC = 4: element 4i .. 4i+3 (plane size a multiple of 4); VEC = 1: element i. */
template <int VEC>
static __global__ void __launch_bounds__(THREADS)
bias_sub_sub_mish(float *__restrict__ y, const float *__restrict__ cb, int64_t HW, int64_t C, int64_t total)
{
    const int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (i >= total)
        return;
    const float b = __ldg(cb + (i * VEC / HW) % C);
    if (VEC == 4) {
        float4 v = __ldcs((float4 *)y + i);
        v.x = epi(v.x, b);
        v.y = epi(v.y, b);
        v.z = epi(v.z, b);
        v.w = epi(v.w, b);
        __stcs((float4 *)y + i, v);
    } else {
        y[i] = epi(y[i], b);
    }
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

static int aligned16(const void *p) { return ((uintptr_t)p % 16) == 0; }

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 3 || args->n_outputs != 1)
        return 1;
    const kb_input *x = input(args, "x", 4), *w = input(args, "conv.weight", 4), *cb = input(args, "conv.bias", 1);
    const kb_output *y = &args->outputs[0];
    if (!x || !w || !cb || y->dtype != KB_F32 || y->ndim != 4 || !y->data)
        return 1;
    const int64_t xdim[4] = {x->shape[0], x->shape[1], x->shape[2], x->shape[3]};
    const int64_t wdim[4] = {w->shape[0], w->shape[1], w->shape[2], w->shape[3]};
    const int64_t ydim[4] = {xdim[0], wdim[0], xdim[2] - wdim[2] + 1, xdim[3] - wdim[3] + 1};
    if (wdim[1] != xdim[1] || cb->shape[0] != wdim[0] || ydim[2] < 1 || ydim[3] < 1)
        return 1;
    for (int d = 0; d < 4; d++)
        if (y->shape[d] != ydim[d])
            return 1;
    const int64_t HW = ydim[2] * ydim[3], numel = ydim[0] * ydim[1] * HW;
    const int vec = (HW % 4 == 0 && aligned16(y->data)) ? 4 : 1;
    const int64_t blocks = (numel / vec + THREADS - 1) / THREADS;
    if (blocks > 0x7fffffff)
        return 1;
    cudaStream_t st = args->stream;
    int rc = conv_forward((const float *)x->data, (const float *)w->data, (float *)y->data, xdim, wdim, ydim, st);
    if (rc != 0)
        return rc;
    if (vec == 4)
        bias_sub_sub_mish<4><<<(unsigned)blocks, THREADS, 0, st>>>((float *)y->data, (const float *)cb->data, HW,
                                                                   ydim[1], numel / 4);
    else
        bias_sub_sub_mish<1><<<(unsigned)blocks, THREADS, 0, st>>>((float *)y->data, (const float *)cb->data, HW,
                                                                   ydim[1], numel);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
