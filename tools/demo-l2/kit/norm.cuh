/*
 * tools/demo-l2/kit/norm.cuh -- the naive kit's normalisations: nn.BatchNormNd in training mode,
 * nn.InstanceNormNd, nn.GroupNorm, nn.LayerNorm, all on reduce.cuh's double partial sums.
 *
 * Each is three steps: the mean of every statistic's elements, then their mean squared deviation
 * from it (two passes, both summed in double: no E[x^2] - E[x]^2 cancellation, exact enough at
 * the strict protocol's 1000 + U(0,1) offset), then one elementwise pass
 * y = (x - mean) * rstd (* weight + bias), rstd = 1 / sqrt(var + eps), var biased (divided by the
 * count), as every one of these modules normalises. Where the statistics live:
 *   layer norm     a row of the last dims' product per statistic
 *   group norm     a row of (C / G) x spatial per (n, group)
 *   instance norm  a row of spatial per (n, c)
 *   batch norm     per channel: the (n, c) planes' partial sums combined over n, or, for a 2-d
 *                  (N, C) input (BatchNorm1d after a Linear), the columns of the matrix
 * Batch norm's running statistics are not inputs of any problem (the chains pass none), so there
 * are none to update; a chain that passed them would be refused (NK_BAD_ARGS).
 * Napkin math: x is read three times and y written once: ~1 ms per GiB at ~4.3 TB/s.
 */

/*@section norm needs=sums*/
/* y = (x - mean[s]) * rstd[s] * w[c] + b[c], s = (i / s_div) % s_mod, c = (i / c_div) % c_mod; the
 * normalisation in double (at x ~ 1000 a mean rounded to float alone would cost ~2^-24 * 1000 / std
 * of relative error), the affine part in float, as PyTorch's */
template <class IDX>
static __global__ void __launch_bounds__(256)
nk_norm_apply(const float *__restrict__ x, float *__restrict__ y, IDX n, const double *__restrict__ mean,
              const double *__restrict__ rstd, IDX s_div, IDX s_mod, const float *__restrict__ w,
              const float *__restrict__ b, IDX c_div, IDX c_mod)
{
    for (IDX i = (IDX)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (IDX)gridDim.x * blockDim.x) {
        const IDX s = (i / s_div) % s_mod, c = (i / c_div) % c_mod;
        float v = (float)(((double)x[i] - mean[s]) * rstd[s]); /* in double, rounded once */
        if (w)
            v *= __ldg(w + c);
        if (b)
            v += __ldg(b + c);
        y[i] = v;
    }
}

/* Statistics of x and the normalisation: columns == false: x is [A * nstat, len] rows, row
 * a * nstat + j belonging to statistic j; columns == true: x is [len, nstat], statistic j is
 * column j (A == 1). Then y[i] with statistic (i / s_div) % s_mod and affine channel
 * (i / c_div) % c_mod. */
static void nk_normalize(nk_ref *r, const float *x, float *y, int64_t n, bool columns, int64_t nstat, int64_t A,
                         int64_t len, double eps, int64_t s_div, int64_t s_mod, const float *w, const float *b,
                         int64_t c_div, int64_t c_mod)
{
    if (r->status != NK_OK || n == 0)
        return;
    const double count = (double)A * (double)len;
    double *stats = (double *)nk_alloc(r, 2 * (size_t)nstat * sizeof(double));
    if (!stats)
        return;
    double *mean = stats, *rstd = stats + nstat;
    const int64_t outer = columns ? 1 : A * nstat, inner = columns ? nstat : 1;
    int chunks = 1;
    double *p = nk_partial_sums<false>(r, x, outer, len, inner, NULL, nstat, &chunks);
    nk_finish<double>(r, p, nstat, A, nstat, chunks, 1.0 / count, false, 0.0, mean);
    nk_free(r, p);
    p = nk_partial_sums<true>(r, x, outer, len, inner, mean, nstat, &chunks);
    nk_finish<double>(r, p, nstat, A, nstat, chunks, 1.0 / count, true, eps, rstd);
    nk_free(r, p);
    if (r->status != NK_OK)
        return;
    const int64_t blocks = (n + 255) / 256;
    const unsigned grid = (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
    if (n < ((int64_t)1 << 31))
        nk_norm_apply<uint32_t><<<grid, 256, 0, r->stream>>>(x, y, (uint32_t)n, mean, rstd, (uint32_t)s_div,
                                                             (uint32_t)s_mod, w, b, (uint32_t)c_div, (uint32_t)c_mod);
    else
        nk_norm_apply<uint64_t><<<grid, 256, 0, r->stream>>>(x, y, (uint64_t)n, mean, rstd, (uint64_t)s_div,
                                                             (uint64_t)s_mod, w, b, (uint64_t)c_div, (uint64_t)c_mod);
    nk_launched(r, "nk_norm_apply");
    nk_free(r, stats);
}

/* weight / bias: NK_NEW (not given) or a float vector of `len` elements */
static bool nk_affine_ok(const nk_tensor &t, int64_t len)
{
    return t.data == NULL || (t.dtype == KB_F32 && nk_numel(t) == len && nk_is_contiguous(t));
}

/*@section norm_ncs*/
/* x (N, C, spatial...): N, C and the spatial product */
static bool nk_ncs(const nk_tensor &x, int64_t *N, int64_t *C, int64_t *S)
{
    if (x.dtype != KB_F32 || x.ndim < 2 || !nk_is_contiguous(x))
        return false;
    *N = x.shape[0];
    *C = x.shape[1];
    *S = 1;
    for (int d = 2; d < x.ndim; d++)
        *S *= x.shape[d];
    return true;
}

/*@section nk_batch_norm_train needs=norm,norm_ncs*/
/* nn.BatchNormNd in training mode: per-channel batch statistics over (N, spatial). */
static nk_tensor nk_batch_norm_train(nk_ref *r, nk_tensor out, nk_tensor x, nk_tensor weight, nk_tensor bias,
                                     nk_tensor running_mean, nk_tensor running_var, double momentum, double eps)
{
    (void)momentum; /* only the running statistics use it, and no chain passes them */
    if (r->status != NK_OK)
        return NK_NEW;
    int64_t N, C, S;
    if (!nk_ncs(x, &N, &C, &S) || !nk_affine_ok(weight, C) || !nk_affine_ok(bias, C) || running_mean.data ||
        running_var.data)
        return nk_fail(r, NK_BAD_ARGS, "nk_batch_norm_train");
    nk_tensor y = nk_result(r, out, KB_F32, x.ndim, x.shape, "nk_batch_norm_train");
    if (r->status != NK_OK)
        return NK_NEW;
    if (S == 1) /* (N, C): statistic c is column c */
        nk_normalize(r, (const float *)x.data, (float *)y.data, N * C, true, C, 1, N, eps, 1, C,
                     (const float *)weight.data, (const float *)bias.data, 1, C);
    else /* planes (n, c) of S elements, combined over n */
        nk_normalize(r, (const float *)x.data, (float *)y.data, N * C * S, false, C, N, S, eps, S, C,
                     (const float *)weight.data, (const float *)bias.data, S, C);
    return r->status == NK_OK ? y : NK_NEW;
}

/*@section nk_instance_norm needs=norm,norm_ncs*/
/* F.instance_norm with input statistics: per (n, c) over the spatial dims. */
static nk_tensor nk_instance_norm(nk_ref *r, nk_tensor out, nk_tensor x, nk_tensor weight, nk_tensor bias, double eps)
{
    if (r->status != NK_OK)
        return NK_NEW;
    int64_t N, C, S;
    if (!nk_ncs(x, &N, &C, &S) || !nk_affine_ok(weight, C) || !nk_affine_ok(bias, C))
        return nk_fail(r, NK_BAD_ARGS, "nk_instance_norm");
    nk_tensor y = nk_result(r, out, KB_F32, x.ndim, x.shape, "nk_instance_norm");
    nk_normalize(r, (const float *)x.data, (float *)y.data, N * C * S, false, N * C, 1, S, eps, S, N * C,
                 (const float *)weight.data, (const float *)bias.data, S, C);
    return r->status == NK_OK ? y : NK_NEW;
}

/*@section nk_group_norm needs=norm,norm_ncs*/
/* F.group_norm(x, G, weight, bias, eps): per (n, group) over C / G channels x spatial. */
static nk_tensor nk_group_norm(nk_ref *r, nk_tensor out, nk_tensor x, int64_t num_groups, nk_tensor weight,
                               nk_tensor bias, double eps)
{
    if (r->status != NK_OK)
        return NK_NEW;
    int64_t N, C, S;
    if (!nk_ncs(x, &N, &C, &S) || num_groups < 1 || C % num_groups || !nk_affine_ok(weight, C) ||
        !nk_affine_ok(bias, C))
        return nk_fail(r, NK_BAD_ARGS, "nk_group_norm");
    nk_tensor y = nk_result(r, out, KB_F32, x.ndim, x.shape, "nk_group_norm");
    const int64_t L = C / num_groups * S;
    nk_normalize(r, (const float *)x.data, (float *)y.data, N * C * S, false, N * num_groups, 1, L, eps, L,
                 N * num_groups, (const float *)weight.data, (const float *)bias.data, S, C);
    return r->status == NK_OK ? y : NK_NEW;
}

/*@section nk_layer_norm needs=norm*/
/* F.layer_norm over the last normalized_ndim dims; weight / bias of those dims or NK_NEW. */
static nk_tensor nk_layer_norm(nk_ref *r, nk_tensor out, nk_tensor x, int normalized_ndim, nk_tensor weight,
                               nk_tensor bias, double eps)
{
    if (r->status != NK_OK)
        return NK_NEW;
    if (x.dtype != KB_F32 || !nk_is_contiguous(x) || normalized_ndim < 1 || normalized_ndim > x.ndim)
        return nk_fail(r, NK_BAD_ARGS, "nk_layer_norm");
    int64_t L = 1;
    for (int d = x.ndim - normalized_ndim; d < x.ndim; d++)
        L *= x.shape[d];
    if (!nk_affine_ok(weight, L) || !nk_affine_ok(bias, L))
        return nk_fail(r, NK_BAD_ARGS, "nk_layer_norm: weight / bias");
    nk_tensor y = nk_result(r, out, KB_F32, x.ndim, x.shape, "nk_layer_norm");
    const int64_t n = nk_numel(x), rows = L > 0 ? n / L : 0;
    nk_normalize(r, (const float *)x.data, (float *)y.data, n, false, rows, 1, L, eps, L, rows,
                 (const float *)weight.data, (const float *)bias.data, 1, L);
    return r->status == NK_OK ? y : NK_NEW;
}
