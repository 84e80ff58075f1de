// Memory-accounting fixture (bench/memory-accounting.sh): a submission whose device allocations
// are known exactly; it computes nothing. Expected peak extra bytes are in patterns.csv.
#include <kb/submission.h>
#define CK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

int kb_forward(const kb_args *args)
{
    (void)args;
    void *a, *b;
    CK(cudaMalloc(&a, 512ull << 20));
    CK(cudaMalloc(&b, 256ull << 20));
    CK(cudaFree(a));
    CK(cudaFree(b));
    return 0;
}
