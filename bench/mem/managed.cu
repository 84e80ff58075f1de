// Memory-accounting fixture (bench/memory-accounting.sh): a submission whose device allocations
// are known exactly; it computes nothing. Expected peak extra bytes are in patterns.csv.
#include <kb/submission.h>
#define CK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

int kb_forward(const kb_args *args)
{
    (void)args;
    void *p;
    CK(cudaMallocManaged(&p, 64ull << 20));
    CK(cudaFree(p));
    return 0;
}
