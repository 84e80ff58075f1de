// Memory-accounting fixture (bench/memory-accounting.sh): a submission whose device allocations
// are known exactly; it computes nothing. Expected peak extra bytes are in patterns.csv.
#include <kb/submission.h>
#define CK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

static cudaMemPool_t pool;
int kb_forward(const kb_args *args)
{
    if (!pool) {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        CK(cudaGetDevice(&props.location.id));
        CK(cudaMemPoolCreate(&pool, &props));
    }
    void *p;
    CK(cudaMallocFromPoolAsync(&p, 128ull << 20, pool, args->stream));
    CK(cudaFreeAsync(p, args->stream));
    return 0;
}
