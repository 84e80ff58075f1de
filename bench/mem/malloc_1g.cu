// Memory-accounting fixture (bench/memory-accounting.sh): a submission whose device allocations
// are known exactly; it computes nothing. Expected peak extra bytes are in patterns.csv.
#include <kb/submission.h>
#define CK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

int kb_forward(const kb_args *args)
{
    void *p;
    CK(cudaMalloc(&p, 1ull << 30));
    CK(cudaMemsetAsync(p, 0, 1ull << 30, args->stream));
    CK(cudaStreamSynchronize(args->stream));
    CK(cudaFree(p));
    return 0;
}
