/*
 * demo-libs, level1/033_batchnorm, sample s0 -- a library call instead of a kernel (test fixture,
 * not an LLM): y = BatchNorm2d(x) in training mode through cuDNN's
 * cudnnBatchNormalizationForwardTraining (CUDNN_BATCHNORM_SPATIAL, eps 1e-5), the routine eager
 * PyTorch reaches through cudnn_batch_norm.
 *
 * Why it exists: cuDNN loads its sub-libraries (libcudnn_ops, ...) lazily, on the first call,
 * by opening files; such a submission once ended as `sandbox_violation: openat`.
 * Those read-only opens of system libraries are legal and must keep working inside the sandbox.
 * The running statistics are scratch (stream-ordered, freed on the stream): in training mode
 * their values never reach y.
 */
#include <cuda_runtime.h>
#include <cudnn.h>
#include <kb/submission.h>

static cudnnHandle_t handle;

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 6 || args->n_outputs != 1) /* x, weight, bias, 3 buffers */
        return 1;
    const kb_input *x = &args->inputs[0], *w = &args->inputs[1], *b = &args->inputs[2];
    const kb_output *y = &args->outputs[0];
    if (x->ndim != 4 || x->dtype != KB_F32 || w->ndim != 1 || b->ndim != 1 || w->shape[0] != x->shape[1] ||
        b->shape[0] != x->shape[1])
        return 1;
    for (int d = 0; d < 4; d++)
        if (y->shape[d] != x->shape[d] || x->shape[d] > 0x7fffffff)
            return 1;
    const int N = (int)x->shape[0], C = (int)x->shape[1], H = (int)x->shape[2], W = (int)x->shape[3];
    if (!handle && cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS)
        return 2;
    if (cudnnSetStream(handle, args->stream) != CUDNN_STATUS_SUCCESS)
        return 2;
    cudnnTensorDescriptor_t xd = NULL, pd = NULL;
    float *running = NULL;
    int rc = 2;
    if (cudnnCreateTensorDescriptor(&xd) != CUDNN_STATUS_SUCCESS || cudnnCreateTensorDescriptor(&pd) != CUDNN_STATUS_SUCCESS)
        goto done;
    if (cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W) != CUDNN_STATUS_SUCCESS ||
        cudnnDeriveBNTensorDescriptor(pd, xd, CUDNN_BATCHNORM_SPATIAL) != CUDNN_STATUS_SUCCESS)
        goto done;
    if (cudaMallocAsync((void **)&running, 2 * (size_t)C * sizeof(float), args->stream) != cudaSuccess ||
        cudaMemsetAsync(running, 0, 2 * (size_t)C * sizeof(float), args->stream) != cudaSuccess)
        goto done;
    {
        const float one = 1.0f, zero = 0.0f;
        cudnnStatus_t st = cudnnBatchNormalizationForwardTraining(
            handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, xd, x->data, xd, y->data, pd, w->data, b->data, 0.1,
            running, running + C, 1e-5, NULL, NULL);
        rc = st == CUDNN_STATUS_SUCCESS ? 0 : 2;
    }
done:
    if (running && cudaFreeAsync(running, args->stream) != cudaSuccess)
        rc = 2;
    if (xd)
        cudnnDestroyTensorDescriptor(xd);
    if (pd)
        cudnnDestroyTensorDescriptor(pd);
    return rc == 0 && cudaGetLastError() == cudaSuccess ? 0 : rc;
}
