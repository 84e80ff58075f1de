// Memory-accounting fixture (bench/memory-accounting.sh): a submission whose device allocations
// are known exactly; it computes nothing. Expected peak extra bytes are in patterns.csv.
#include <kb/submission.h>
#define CK(x) do { if ((x) != cudaSuccess) return 1; } while (0)

int kb_forward(const kb_args *args)
{
    (void)args;
    void *p;
    size_t pitch;
    CK(cudaMallocPitch(&p, &pitch, 4096, 1000)); /* 4096-byte rows are already aligned: pitch 4096 */
    CK(cudaFree(p));
    return pitch == 4096 ? 0 : 2;
}
