/*
 * tensor.cu -- generation, poisoning, comparison and hashing of device tensors (kb_gpu.h).
 *
 * Sizes: KernelBench tensors reach 2^31 elements and more, so every index is int64 and every
 * kernel is a grid-stride loop over a grid capped at a few waves (132 SMs x 8 blocks on an H200).
 * Napkin math: generation is ~30 integer ops per element (Philox-10), ~6 ms for the 1.6 G
 * elements of L1/19; comparison reads two tensors once (12.9 GB at ~4 TB/s, ~3 ms).
 * Comparison statistics are reduced per block in a fixed order, then on the host in double:
 * the same data always gives the same statistics.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kb_gpu.h"

#define THREADS 256

static int grid_for(int64_t n)
{
    int dev = 0, sms = 132;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    int64_t blocks = (n + THREADS - 1) / THREADS;
    int64_t cap = (int64_t)sms * 8;
    if (blocks > cap)
        blocks = cap;
    return blocks < 1 ? 1 : (int)blocks;
}

static int launched(kb_err *err, const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return kb_errf(err, KB_EXIT_FAIL, "%s: launch failed: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return 0;
}

static int synced(cudaStream_t s, kb_err *err, const char *what)
{
    cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
        return kb_errf(err, KB_EXIT_FAIL, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return 0;
}

/* ---- element access by dtype ------------------------------------------------------------- */

__device__ __forceinline__ double load_as_double(const void *p, kb_dtype t, int64_t i)
{
    switch (t) {
    case KB_F32: return (double)((const float *)p)[i];
    case KB_F16: return (double)kb_f16_to_f32(((const uint16_t *)p)[i]);
    case KB_BF16: return (double)kb_bf16_to_f32(((const uint16_t *)p)[i]);
    case KB_F64: return ((const double *)p)[i];
    case KB_I64: return (double)((const int64_t *)p)[i];
    case KB_I32: return (double)((const int32_t *)p)[i];
    case KB_BOOL: return (double)((const unsigned char *)p)[i];
    }
    return 0.0;
}

__device__ __forceinline__ void store_from_double(void *p, kb_dtype t, int64_t i, double v)
{
    switch (t) {
    case KB_F32: ((float *)p)[i] = (float)v; break;
    case KB_F16: ((uint16_t *)p)[i] = kb_f32_to_f16((float)v); break;
    case KB_BF16: ((uint16_t *)p)[i] = kb_f32_to_bf16((float)v); break;
    case KB_F64: ((double *)p)[i] = v; break;
    case KB_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    case KB_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case KB_BOOL: ((unsigned char *)p)[i] = v != 0.0; break;
    }
}

/* ---- generation --------------------------------------------------------------------------- */

__global__ void generate_kernel(void *p, kb_dtype t, kb_gen g, uint32_t index, kb_draw d, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        store_from_double(p, t, i, kb_draw_value(&d, g, t, index, (uint64_t)i));
}

/* RAND_SOFTMAX, second pass: each row of `cols` exp-values divided by its sum (one block per
 * row, the sum in double), so every row is a probability vector as softmax(dim=-1) makes it. */
__global__ void row_normalise_kernel(float *p, int64_t rows, int64_t cols)
{
    __shared__ double part[THREADS];
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        float *x = p + row * cols;
        double s = 0.0;
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
            s += (double)x[j];
        part[threadIdx.x] = s;
        __syncthreads();
        for (int w = blockDim.x / 2; w > 0; w /= 2) {
            if ((int)threadIdx.x < w)
                part[threadIdx.x] += part[threadIdx.x + w];
            __syncthreads();
        }
        const float inv = (float)(1.0 / part[0]);
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
            x[j] = x[j] * inv;
        __syncthreads();
    }
}

extern "C" int kb_dev_generate(void *ptr, const kb_tensor_spec *spec, uint32_t index, const kb_draw *draw,
                               cudaStream_t stream, kb_err *err)
{
    int64_t n = kb_shape_numel(spec->ndim, spec->shape);
    if (n == 0)
        return 0;
    const kb_gen g = kb_gen_resolve(spec);
    generate_kernel<<<grid_for(n), THREADS, 0, stream>>>(ptr, spec->dtype, g, index, *draw, n);
    if (launched(err, "generate") != 0)
        return -1;
    if (g.kind == KB_GEN_RAND_SOFTMAX && spec->dtype == KB_F32) {
        const int64_t cols = spec->shape[spec->ndim - 1], rows = n / cols;
        row_normalise_kernel<<<(unsigned)(rows < 65535 ? rows : 65535), THREADS, 0, stream>>>((float *)ptr, rows, cols);
        return launched(err, "generate (softmax rows)");
    }
    return 0;
}

__global__ void abs_kernel(void *p, kb_dtype t, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        store_from_double(p, t, i, fabs(load_as_double(p, t, i)));
}

extern "C" int kb_dev_abs(void *ptr, kb_dtype dtype, int64_t n, cudaStream_t stream, kb_err *err)
{
    if (!kb_dtype_is_float(dtype) || n == 0)
        return 0;
    abs_kernel<<<grid_for(n), THREADS, 0, stream>>>(ptr, dtype, n);
    return launched(err, "abs");
}

__global__ void perturb_kernel(void *p, kb_dtype t, int64_t n, int64_t stride, int64_t offset)
{
    int64_t m = (n - offset + stride - 1) / stride;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = offset + k * stride;
        if (i > 0 && i < n - 1)
            store_from_double(p, t, i, 0.25 - 1.5 * load_as_double(p, t, i));
    }
}

extern "C" int kb_dev_perturb(void *ptr, kb_dtype dtype, int64_t n, int64_t stride, int64_t offset, cudaStream_t stream,
                              kb_err *err)
{
    if (!kb_dtype_is_float(dtype) || n < 3 || stride < 1 || offset >= n)
        return 0;
    perturb_kernel<<<grid_for((n - offset) / stride + 1), THREADS, 0, stream>>>(ptr, dtype, n, stride, offset);
    return launched(err, "perturb");
}

__global__ void poison_kernel(unsigned char *p, int esz, uint64_t pattern, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        for (int b = 0; b < esz; b++)
            p[i * esz + b] = (unsigned char)(pattern >> (8 * b));
}

extern "C" int kb_dev_poison(void *ptr, kb_dtype dtype, int64_t n, cudaStream_t stream, kb_err *err)
{
    uint64_t pattern;
    switch (dtype) {
    case KB_F32: pattern = 0x7fc00000u; break;          /* quiet NaN */
    case KB_F16: pattern = 0x7e00u; break;
    case KB_BF16: pattern = 0x7fc0u; break;
    case KB_F64: pattern = 0x7ff8000000000000ull; break;
    case KB_BOOL: pattern = 0xa5u; break;               /* neither 0 nor 1 */
    default: pattern = 0x5a5a5a5a5a5a5a5aull; break;
    }
    if (n == 0)
        return 0;
    poison_kernel<<<grid_for(n), THREADS, 0, stream>>>((unsigned char *)ptr, kb_dtype_size(dtype), pattern, n);
    return launched(err, "poison");
}

/* ---- comparison -------------------------------------------------------------------------- */

struct cmp_partial {
    long long n_nan_out, n_nan_ref, n_inf_ref, n_fail, n_bitdiff;
    double tau_req;
    long long worst;
    double max_abs_err, max_abs_ref, sum_sq_err, sum_sq_ref, scaled_excess;
};

__device__ __forceinline__ int bits_differ(const void *a, const void *b, int esz, int64_t i)
{
    const unsigned char *x = (const unsigned char *)a + i * esz, *y = (const unsigned char *)b + i * esz;
    for (int k = 0; k < esz; k++)
        if (x[k] != y[k])
            return 1;
    return 0;
}

__device__ void merge(cmp_partial &a, const cmp_partial &b)
{
    a.n_nan_out += b.n_nan_out;
    a.n_nan_ref += b.n_nan_ref;
    a.n_inf_ref += b.n_inf_ref;
    a.n_fail += b.n_fail;
    a.n_bitdiff += b.n_bitdiff;
    if (b.tau_req > a.tau_req || (b.tau_req == a.tau_req && b.worst >= 0 && (a.worst < 0 || b.worst < a.worst))) {
        a.tau_req = b.tau_req;
        a.worst = b.worst;
    }
    a.max_abs_err = fmax(a.max_abs_err, b.max_abs_err);
    a.max_abs_ref = fmax(a.max_abs_ref, b.max_abs_ref);
    a.sum_sq_err += b.sum_sq_err;
    a.sum_sq_ref += b.sum_sq_ref;
    a.scaled_excess = fmax(a.scaled_excess, b.scaled_excess);
}

__global__ void compare_kernel(const void *ref, const void *out, const void *mag, kb_dtype t, int64_t n, double tau,
                               double satol, double srtol, cmp_partial *partials)
{
    __shared__ cmp_partial sh[THREADS];
    cmp_partial p = {0, 0, 0, 0, 0, 0.0, -1, 0.0, 0.0, 0.0, 0.0, 0.0};
    int esz = kb_dtype_size(t);
    int is_bool = t == KB_BOOL;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        double r = load_as_double(ref, t, i), o = load_as_double(out, t, i);
        if (isnan(o))
            p.n_nan_out++;
        if (isnan(r))
            p.n_nan_ref++;
        if (isinf(r))
            p.n_inf_ref++;
        if (bits_differ(ref, out, esz, i))
            p.n_bitdiff++;
        /* bool: torch.allclose on bool compares exactly */
        double tr = is_bool ? (r == o ? 0.0 : INFINITY) : kb_close_tau_req(r, o);
        if (!(tr <= tau))
            p.n_fail++;
        if (p.worst < 0 || tr > p.tau_req) { /* first worst element of this thread */
            p.tau_req = tr;
            p.worst = i;
        }
        if (isfinite(r) && isfinite(o)) {
            double d = fabs(r - o);
            p.max_abs_err = fmax(p.max_abs_err, d);
            p.sum_sq_err += d * d;
        }
        if (isfinite(r)) {
            p.max_abs_ref = fmax(p.max_abs_ref, fabs(r));
            p.sum_sq_ref += r * r;
        }
        if (mag) {
            double m = fabs(r) + fabs(load_as_double(mag, t, i));
            p.scaled_excess = fmax(p.scaled_excess, kb_close_scaled_excess(r, o, m, satol, srtol));
        }
    }
    sh[threadIdx.x] = p;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            merge(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x] = sh[0];
}

extern "C" int kb_dev_compare(const void *ref, const void *out, const void *mag, kb_dtype dtype, int64_t n, double tau,
                              double satol, double srtol, kb_cmp_stats *st, cudaStream_t stream, kb_err *err)
{
    memset(st, 0, sizeof *st);
    st->n = n;
    st->tau = tau;
    st->worst_index = -1;
    st->worst_ref = st->worst_out = NAN;
    if (n == 0)
        return 0;
    int blocks = grid_for(n);
    cmp_partial *d_part = NULL;
    KB_CUDA_CHECK(err, cudaMalloc(&d_part, (size_t)blocks * sizeof *d_part));
    compare_kernel<<<blocks, THREADS, 0, stream>>>(ref, out, mag, dtype, n, tau, satol, srtol, d_part);
    int rc = launched(err, "compare");
    cmp_partial *h = (cmp_partial *)malloc((size_t)blocks * sizeof *h);
    if (rc == 0 && !h)
        rc = kb_errf(err, KB_EXIT_FAIL, "out of host memory");
    if (rc == 0 && synced(stream, err, "compare") != 0)
        rc = -1;
    if (rc == 0) {
        cudaError_t e = cudaMemcpy(h, d_part, (size_t)blocks * sizeof *h, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            rc = kb_errf(err, KB_EXIT_FAIL, "compare: copy: %s", cudaGetErrorString(e));
    }
    cudaFree(d_part);
    if (rc == 0) {
        for (int b = 0; b < blocks; b++) {
            st->n_nan_out += h[b].n_nan_out;
            st->n_nan_ref += h[b].n_nan_ref;
            st->n_inf_ref += h[b].n_inf_ref;
            st->n_fail += h[b].n_fail;
            st->n_bitwise_diff += h[b].n_bitdiff;
            if (h[b].worst >= 0 && (st->worst_index < 0 || h[b].tau_req > st->tau_req ||
                                    (h[b].tau_req == st->tau_req && h[b].worst < st->worst_index))) {
                st->tau_req = h[b].tau_req;
                st->worst_index = h[b].worst;
            }
            st->max_abs_err = fmax(st->max_abs_err, h[b].max_abs_err);
            st->max_abs_ref = fmax(st->max_abs_ref, h[b].max_abs_ref);
            st->sum_sq_err += h[b].sum_sq_err;
            st->sum_sq_ref += h[b].sum_sq_ref;
            st->scaled_excess = fmax(st->scaled_excess, h[b].scaled_excess);
        }
        if (st->worst_index >= 0) {
            kb_dev_peek(ref, dtype, st->worst_index, &st->worst_ref, NULL);
            kb_dev_peek(out, dtype, st->worst_index, &st->worst_out, NULL);
        }
    }
    free(h);
    return rc;
}

/* ---- hashing ----------------------------------------------------------------------------- */

__device__ __forceinline__ unsigned long long mix64(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Sum over 8-byte words of mix(word ^ mix(index)), mod 2^64: order-independent, so any grid
 * gives the same hash. The tail (bytes % 8) is folded in by the host. */
__global__ void hash_kernel(const unsigned long long *p, int64_t words, unsigned long long *out)
{
    __shared__ unsigned long long sh[THREADS];
    unsigned long long h = 0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (int64_t)gridDim.x * blockDim.x)
        h += mix64(p[i] ^ mix64((unsigned long long)i));
    sh[threadIdx.x] = h;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, sh[0]);
}

extern "C" int kb_dev_hash(const void *ptr, size_t bytes, uint64_t *hash, cudaStream_t stream, kb_err *err)
{
    unsigned long long *d = NULL, h = 0;
    KB_CUDA_CHECK(err, cudaMalloc(&d, sizeof *d));
    int rc = 0;
    if (cudaMemsetAsync(d, 0, sizeof *d, stream) != cudaSuccess)
        rc = kb_errf(err, KB_EXIT_FAIL, "hash: memset failed");
    int64_t words = (int64_t)(bytes / 8);
    if (rc == 0 && words > 0) {
        hash_kernel<<<grid_for(words), THREADS, 0, stream>>>((const unsigned long long *)ptr, words, d);
        rc = launched(err, "hash");
    }
    if (rc == 0)
        rc = synced(stream, err, "hash");
    if (rc == 0 && cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess)
        rc = kb_errf(err, KB_EXIT_FAIL, "hash: copy failed");
    if (rc == 0 && bytes % 8) {
        unsigned char tail[8] = {0};
        if (cudaMemcpy(tail, (const unsigned char *)ptr + words * 8, bytes % 8, cudaMemcpyDeviceToHost) != cudaSuccess)
            rc = kb_errf(err, KB_EXIT_FAIL, "hash: copy failed");
        h = kb_fnv1a64(tail, bytes % 8, h ? h : 1);
    }
    cudaFree(d);
    *hash = h ^ (uint64_t)bytes;
    return rc;
}

extern "C" int kb_dev_peek(const void *ptr, kb_dtype dtype, int64_t index, double *value, kb_err *err)
{
    unsigned char buf[8] = {0};
    int esz = kb_dtype_size(dtype);
    cudaError_t e = cudaMemcpy(buf, (const unsigned char *)ptr + index * esz, (size_t)esz, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        *value = NAN;
        return kb_errf(err, KB_EXIT_FAIL, "peek: %s", cudaGetErrorString(e));
    }
    switch (dtype) {
    case KB_F32: { float f; memcpy(&f, buf, 4); *value = f; break; }
    case KB_F16: { uint16_t u; memcpy(&u, buf, 2); *value = kb_f16_to_f32(u); break; }
    case KB_BF16: { uint16_t u; memcpy(&u, buf, 2); *value = kb_bf16_to_f32(u); break; }
    case KB_F64: memcpy(value, buf, 8); break;
    case KB_I64: { int64_t v; memcpy(&v, buf, 8); *value = (double)v; break; }
    case KB_I32: { int32_t v; memcpy(&v, buf, 4); *value = v; break; }
    case KB_BOOL: *value = buf[0]; break;
    }
    return 0;
}

/* ---- benchmark kernels ------------------------------------------------------------------- */

__device__ __forceinline__ unsigned long long globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin_kernel(unsigned long long ns)
{
    unsigned long long t0 = globaltimer();
    while (globaltimer() - t0 < ns) {
    }
}

extern "C" int kb_dev_spin(double ns, cudaStream_t stream)
{
    spin_kernel<<<1, 1, 0, stream>>>((unsigned long long)ns);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

__global__ void spin_measured_kernel(unsigned long long ns, unsigned long long *t)
{
    unsigned long long t0 = globaltimer(), t1 = t0;
    while ((t1 = globaltimer()) - t0 < ns) {
    }
    t[0] = t0;
    t[1] = t1;
}

extern "C" double kb_dev_spin_measured(double ns, cudaStream_t stream)
{
    unsigned long long *d = NULL, h[2] = {0, 0};
    if (cudaMalloc(&d, sizeof h) != cudaSuccess)
        return NAN;
    spin_measured_kernel<<<1, 1, 0, stream>>>((unsigned long long)ns, d);
    cudaStreamSynchronize(stream);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(d);
    return (double)(h[1] - h[0]) * 1e-3;
}

__global__ void block_kernel(volatile int *flag, int *state, unsigned long long timeout_ns)
{
    unsigned long long t0 = globaltimer();
    while (*flag == 0) {
        if (globaltimer() - t0 > timeout_ns) {
            *state = 2;
            return;
        }
    }
    *state = 1;
}

extern "C" int kb_dev_block(volatile int *flag_dev, int *state_dev, double timeout_ns, cudaStream_t stream)
{
    block_kernel<<<1, 1, 0, stream>>>(flag_dev, state_dev, (unsigned long long)timeout_ns);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

/* rec[0] = claimed, rec[1] = %globaltimer (ns), rec[2] = clock64() of SM 0 (cycles). One block
 * per SM is launched; the first to run on SM 0 writes, so both stamps of a sample read the same
 * SM's cycle counter. */
__global__ void stamp_kernel(unsigned long long *rec)
{
    unsigned int smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (smid != 0 || atomicCAS(&rec[0], 0ull, 1ull) != 0ull)
        return;
    rec[1] = globaltimer();
    rec[2] = (unsigned long long)clock64();
}

extern "C" int kb_dev_stamp(unsigned long long *rec_dev, cudaStream_t stream)
{
    static int blocks;
    if (!blocks) {
        int dev = 0, sms = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        blocks = 2 * (sms > 0 ? sms : 1);
    }
    if (cudaMemsetAsync(rec_dev, 0, 3 * sizeof *rec_dev, stream) != cudaSuccess)
        return -1;
    stamp_kernel<<<blocks, 1, 0, stream>>>(rec_dev);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

__global__ void empty_kernel(void) {}

extern "C" int kb_dev_empty(cudaStream_t stream)
{
    empty_kernel<<<1, 1, 0, stream>>>();
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
