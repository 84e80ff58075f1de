/*
 * ops/intdiv.cuh -- PyTorch's IntDivider<unsigned int> (ATen/cuda/detail/IntegerDivider.cuh):
 * n / d for n < 2^31 as (umulhi(n, m1) + n) >> shift, the division TensorIterator's offset
 * calculators do per dimension. Shared by the elementwise engine's offset path and the
 * reductions' output offsets (ops-internal).
 */
#ifndef KB_OPS_INTDIV_CUH
#define KB_OPS_INTDIV_CUH

#include <stdint.h>

struct KbIntDiv {
    uint32_t divisor;
    uint32_t m1;
    uint32_t shift;
};

static inline KbIntDiv kb_intdiv_make(uint32_t d)
{
    KbIntDiv r;
    r.divisor = d;
    uint32_t s = 0;
    while (s < 32 && (1ull << s) < d)
        s++;
    r.shift = s;
    const uint64_t one = 1;
    r.m1 = (uint32_t)(((one << 32) * ((one << s) - d)) / d + 1);
    return r;
}

__device__ __forceinline__ uint32_t kb_intdiv_div(const KbIntDiv &d, uint32_t n)
{
    return (__umulhi(n, d.m1) + n) >> d.shift;
}

#endif /* KB_OPS_INTDIV_CUH */
