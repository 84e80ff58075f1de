// Memory-accounting fixture (bench/memory-accounting.sh): a submission whose device allocations
// are known exactly; it computes nothing. Expected peak extra bytes are in patterns.csv.
#include <kb/submission.h>
#define CK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

static void *kept; /* scratch kept across calls: counted as resident */
int kb_forward(const kb_args *args)
{
    (void)args;
    if (!kept)
        CK(cudaMalloc(&kept, 256ull << 20));
    return 0;
}
