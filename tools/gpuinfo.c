/*
 * kb-gpuinfo -- says whether this machine can run the GPU stages, and what the GPU is.
 * Exit status 0 with a one-line description per device, or 3 (KB_EXIT_NO_GPU) with the reason.
 * `make all` runs it before the first GPU stage.
 */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kb_gpu.h"

int main(int argc, char **argv)
{
    if (kb_version_arg(argc, argv, "kb-gpuinfo"))
        return 0;
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("kb-gpuinfo: list the CUDA devices the GPU stages can use.\n"
               "Exit codes: 0 at least one device; 2 bad command line; 3 no usable CUDA device.\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "kb-gpuinfo: unexpected argument '%s' (it takes none; see --help)\n", argv[1]);
        return 2;
    }
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        fprintf(stderr,
                "kb-gpuinfo: no CUDA device (%s).\n"
                "The GPU stages (sanity-check, baseline-time, verify-distributions, memory-profile) need one;\n"
                "`make compile` and `make report` work without.\n",
                kb_gpu_absence(e, n));
        return KB_EXIT_NO_GPU;
    }
    for (int d = 0; d < n; d++) {
        kb_env env;
        kb_gpu_env(d, &env);
        int l2 = 0, sms = 0;
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d);
        printf("gpu %d: %s  %s  driver %s  CUDA runtime %d  cuBLAS %d  cuDNN %d  %d SMs  L2 %d MiB  SM clock %.0f MHz\n",
               d, env.gpu_name, env.gpu_uuid, env.driver_version, env.cuda_runtime_version, env.cublas_version,
               env.cudnn_version, sms, l2 >> 20, env.sm_clock_mhz_before);
    }
    return 0;
}
