// Memory-accounting fixture (bench/memory-accounting.sh): a submission whose device allocations
// are known exactly; it computes nothing. Expected peak extra bytes are in patterns.csv.
#include <kb/submission.h>
#define CK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

#include <cuda.h>
/* Virtual memory management through the driver entry points (no -lcuda needed). */
typedef CUresult (*create_t)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
typedef CUresult (*release_t)(CUmemGenericAllocationHandle);
int kb_forward(const kb_args *args)
{
    (void)args;
    void *fc = 0, *fr = 0;
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuMemCreate", &fc, 10020, cudaEnableDefault, &q));
    CK(cudaGetDriverEntryPointByVersion("cuMemRelease", &fr, 10020, cudaEnableDefault, &q));
    if (!fc || !fr)
        return 3;
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    int dev;
    CK(cudaGetDevice(&dev));
    prop.location.id = dev;
    CUmemGenericAllocationHandle h;
    if (((create_t)fc)(&h, 64ull << 20, &prop, 0) != CUDA_SUCCESS) /* 64 MiB: a multiple of the 2 MiB granule */
        return 4;
    if (((release_t)fr)(h) != CUDA_SUCCESS)
        return 5;
    return 0;
}
