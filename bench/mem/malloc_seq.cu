// Memory-accounting fixture (bench/memory-accounting.sh): a submission whose device allocations
// are known exactly; it computes nothing. Expected peak extra bytes are in patterns.csv.
#include <kb/submission.h>
#define CK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

int kb_forward(const kb_args *args)
{
    (void)args;
    void *p, *q;
    CK(cudaMalloc(&p, 1ull << 30));
    CK(cudaFree(p));
    CK(cudaMalloc(&q, 512ull << 20));
    CK(cudaFree(q));
    return 0;
}
