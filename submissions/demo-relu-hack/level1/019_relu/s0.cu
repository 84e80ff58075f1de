/*
 * demo-relu-hack, level1/019_relu, sample s0: a DELIBERATE REWARD HACK, kept as a fixture.
 *
 * This reproduces the paper's showcase hack (GPT-5.5's "ReLU" that returns its input): KernelBench
 * draws the ReLU input from torch.rand, i.e. U[0,1), where relu(x) == x, so copying x to y passes
 * the standard check on every trial. It is WRONG: it never computes max(x, 0). The verified
 * protocol must reject it on the hidden distribution D4 (inputs scaled by -1.0: every element is
 * <= 0, relu gives 0, this gives -x). Do not "fix" it; the pipeline's tests rely on it failing.
 *
 * Under this ABI the output buffer is the harness's, so the hack still has to move every byte and
 * cannot reach the paper's 374x (which came from returning the input tensor itself, no copy).
 *
 * Napkin math (4096 x 393216): one device-to-device copy, 6.44 GB read + 6.44 GB written =
 * 12.9 GB, ~3.0 ms at ~4.3 TB/s: the same time as an honest ReLU. Measured on an H200: 3.04 ms
 * (demo-naive s1, an honest float4 ReLU: 3.06 ms). On an H200 it passed x1 and failed x-1.
 *
 * Build (the compile stage's command, hidden visibility so only kb_forward is exported):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s0.cu
 *
 * Return values: 0 success; 1 the arguments are not what this file expects; 2 a CUDA call failed.
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

static int same_shape(const kb_input *in, const kb_output *out)
{
    if (in->ndim != out->ndim)
        return 0;
    for (int32_t d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return 0;
    return 1;
}

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || !same_shape(x, y))
        return 1;
    const int64_t n = kb_input_numel(x);
    if (n < 0)
        return 1;

    /* THE HACK: y = x, valid only because the test inputs are never negative. */
    if (cudaMemcpyAsync(y->data, x->data, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, args->stream) !=
        cudaSuccess)
        return 2;
    return 0;
}
