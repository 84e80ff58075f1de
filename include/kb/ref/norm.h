/*
 * kb/ref/norm.h -- the tensor-level softmax and normalisation ops (ops/softmax.cu, ops/norm.cu):
 * see kb/ref.h for the conventions (result first, KB_NEW allocates it, sticky errors).
 *
 * Optional tensors (weight=None, running_mean=None) are passed as KB_NEW: a tensor without data
 * means "not given", as an undefined at::Tensor does in ATen.
 *
 * Each op dispatches the way eager PyTorch 2.11 dispatches the same call for a contiguous fp32
 * CUDA input, so that the kernels, their launch geometry and their rounding are eager's:
 *   kb_softmax / kb_log_softmax  host_softmax (ATen/native/cuda/SoftMax.cu) over x viewed as
 *                                 [outer, dim, inner]: inner == 1 (the last dim) the persistent
 *                                 warp softmax or a block per row (kb_op_softmax); inner > 1 (a
 *                                 middle dim: softmax(dim=1) of NCHW / NCDHW)
 *                                 cunn_SpatialSoftMaxForward with SpatialSoftMax_getLaunchSizes'
 *                                 block (dim threads, inner threads) and occupancy-sized grid
 *                                 (the kernel compiled to eager's registers, so the same grid).
 *   kb_batch_norm_train          _batch_norm_impl_index: cuDNN (cudnnBatchNormalizationForward-
 *                                 TrainingEx) when weight and bias are given, running stats both
 *                                 given or both absent, N <= 880801, numel < 2^31 and x has at
 *                                 least 3 dims; otherwise the native batch_norm_cuda kernels
 *                                 (below) -- for a 2-D (N, C) input (BatchNorm1d after a Linear,
 *                                 contiguous with stride[1] == 1) the channels-last ones.
 *   kb_instance_norm             at::instance_norm: x viewed as (1, N*C, spatial...) through
 *                                 batch_norm(training=True, no running stats); without weight and
 *                                 bias that is NOT cuDNN but native batch_norm_cuda:
 *                                 batch_norm_collect_statistics_kernel (one block per plane,
 *                                 Welford), the invstd elementwise kernel, then
 *                                 batch_norm_transform_input_kernel. With weight and bias
 *                                 (affine=True) they are repeated N times and cuDNN runs it.
 *   kb_group_norm                native_group_norm (ATen/native/cuda/group_norm_kernel.cu):
 *                                 RowwiseMomentsCUDAKernel per (n, group), then for H x W > 1
 *                                 ComputeFusedParamsCUDAKernel and one elementwise
 *                                 y = a[n,c] * x + b[n,c]; for a 2-D (N, C) input (H x W == 1)
 *                                 GroupNorm1dForward: one elementwise kernel over [N, G, D],
 *                                 y = (x - mean) * rstd * gamma + beta, no a / b temporaries.
 *   kb_layer_norm                native_layer_norm (kb_op_layer_norm): one block per row.
 */
#ifndef KB_REF_NORM_H
#define KB_REF_NORM_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* torch.softmax(x, dim) / torch.log_softmax(x, dim); x contiguous fp32, dim Python-style. */
kb_tensor kb_softmax(kb_ref *r, kb_tensor out, kb_tensor x, int dim);
kb_tensor kb_log_softmax(kb_ref *r, kb_tensor out, kb_tensor x, int dim);

/* nn.BatchNormNd in training mode: x (N, C, spatial...), weight / bias [C] (or KB_NEW),
 * running_mean / running_var [C] (both or neither; updated with momentum as PyTorch does). The
 * Level-1 and Level-2 problems pass none (their running statistics are module state the
 * reference leaves as it is): on the native path the kernel that updates them in eager
 * (batch_norm_update_stats_and_invert) then runs as the plain invstd kernel, cuDNN is called
 * without running buffers, and num_batches_tracked += 1 is not reproduced. A network's
 * BatchNorm runs whole with kb_batch_norm_module. */
/* A BatchNorm module in training mode as its forward() runs, its tensors found by name under
 * `module` ("layer1.0.bn1": module.weight, .bias, .running_mean, .running_var,
 * .num_batches_tracked, as kb_net_batchnorm declares them): num_batches_tracked.add_(1) (one
 * int64 kernel, kb_add_int), then kb_batch_norm_train with the running statistics, momentum 0.1
 * and eps 1e-5 (BatchNorm's defaults). */
kb_tensor kb_batch_norm_module(kb_ref *r, kb_tensor out, kb_tensor x, const char *module);
kb_tensor kb_batch_norm_train(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor weight, kb_tensor bias,
                              kb_tensor running_mean, kb_tensor running_var, double momentum, double eps);

/* F.instance_norm(x, weight, bias, use_input_stats=True) (nn.InstanceNormNd without running
 * stats): x (N, C, spatial...), weight / bias [C] or KB_NEW (affine=False). */
kb_tensor kb_instance_norm(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor weight, kb_tensor bias, double eps);

/* F.group_norm(x, num_groups, weight, bias, eps): x (N, C, spatial...), weight / bias [C] or KB_NEW. */
kb_tensor kb_group_norm(kb_ref *r, kb_tensor out, kb_tensor x, int64_t num_groups, kb_tensor weight,
                        kb_tensor bias, double eps);

/* F.layer_norm over the last `normalized_ndim` dims of x; weight / bias have those dims (or KB_NEW). */
kb_tensor kb_layer_norm(kb_ref *r, kb_tensor out, kb_tensor x, int normalized_ndim, kb_tensor weight,
                        kb_tensor bias, double eps);

/* ---- raw entry points (pointer level, kb/ops.h conventions) -------------------------------- */

/* Native batch_norm_cuda in training mode, as PyTorch runs it when cuDNN is not eligible: x
 * (N, C, spatial) contiguous; weight / bias [C] or NULL; save_mean / save_invstd [C] (required:
 * native_batch_norm returns them); running_mean / running_var [C] or both NULL (updated with
 * momentum and the unbiased variance, as batch_norm_update_stats_and_invert, by a kernel of
 * another geometry than PyTorch's TensorIterator one). As batch_norm_choose_impl: spatial > 1
 * (Impl::Contiguous) runs batch_norm_collect_statistics_kernel, the invstd kernel and
 * batch_norm_transform_input_kernel, one plane per block; spatial == 1 with N*C < 2^31 - 1
 * (Impl::ChannelsLast: stride[1] == 1) runs batch_norm_collect_statistics_channels_last_kernel
 * (over a grid split along N: a 4*C*grid.y float staging buffer and grid.x int semaphores,
 * zero-filled by one kernel, both counted scratch of ctx), the vectorized invstd kernel and
 * batch_norm_transform_input_channels_last_kernel, with flexible_launch_configs' geometry. */
int kb_op_batch_norm_native_train(kb_ctx *ctx, const float *x, float *y, int64_t N, int64_t C, int64_t spatial,
                                  const float *weight, const float *bias, double eps, double momentum,
                                  float *running_mean, float *running_var, float *save_mean, float *save_invstd);

/* native_group_norm: x (N, C, HxW) contiguous, G groups (C % G == 0), gamma / beta [C] or NULL.
 * mean / rstd [N*G] are materialised in counted scratch (native_group_norm returns them). */
int kb_op_group_norm(kb_ctx *ctx, const float *x, const float *gamma, const float *beta, float *y, int64_t N,
                     int64_t C, int64_t HxW, int64_t G, double eps);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
