/*
 * level1/005_matrix_scalar_mul -- KernelBench L1/5: C = A * s, A (65536, 16384) fp32 (4 GiB),
 * s = 3.14.
 *
 * KernelBench passes s as a Python float, which eager PyTorch wraps into a CPU scalar and hands
 * to the multiply functor: one vectorised TensorIterator kernel over A. The harness passes every
 * forward() argument as a device tensor, so s is a 0-d input here (always 3.14 on the standard
 * draws; the hidden distributions scale it like any float input, which A * s handles alike).
 * The reference multiplies by the 0-d tensor marked as the Python number it stands for
 * (kb_number): kb_mul then runs eager's vectorised kernel, the number loaded once per thread.
 * Napkin math: 4.29 GB read + 4.29 GB written = 8.6 GB; ~2.0 ms at ~4.3 TB/s; eager takes
 * 2.05 ms on the H200 (fp32 warm median).
 */
#include "kb/ref.h"

enum { M = 16384 * 4, N = 4096 * 4 };

static void reference(kb_ref *r)
{
    kb_mul(r, kb_arg(r, "C"), kb_arg(r, "A"), kb_number(r, kb_arg(r, "s")));
}

KB_PROBLEM(.title = "Matrix scalar multiplication",
           KB_INPUTS(KB_INPUT("A", KB_F32, KB_DIMS(M, N), KB_RAND),
                     KB_INPUT("s", KB_F32, KB_SCALAR_DIMS, KB_CONST(3.14))),
           KB_OUTPUTS(KB_OUTPUT("C", KB_F32, KB_DIMS(M, N))),
           .flops = 1.0 * M * N)
