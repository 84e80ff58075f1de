/*
 * level1/088_mingpt_new_gelu -- KernelBench L1/88: minGPT's NewGELU, written out in torch ops:
 *   0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
 * on x (8192, 8192) fp32 (256 MiB).
 *
 * Eager PyTorch runs one kernel per op, in Python's evaluation order, each into a fresh
 * temporary that its refcount frees as soon as the next op has consumed it:
 *   t1 = 0.5 * x            mul by a CPU scalar
 *   t2 = pow(x, 3.0)        pow_tensor_scalar's exponent-3 case: x * x * x
 *   t3 = 0.044715 * t2      (t2 freed)
 *   t4 = x + t3             tensor + tensor (t3 freed)
 *   t5 = sqrt(2/pi) * t4    the constant computed in double by Python, rounded to float (t4 freed)
 *   t6 = tanh(t5)           (t5 freed)
 *   t7 = 1.0 + t6           (t6 freed)
 *   y  = t1 * t7            (t1, t7 freed)
 * Napkin math: 8 kernels; seven read-one-write-one (2 x 268 MB) and two read-two (x + t3,
 * t1 * t7: 3 x 268 MB) = 6 * 537 + 2 * 805 MB = 4.8 GB; ~1.15 ms at ~4.2 TB/s plus launch gaps;
 * eager takes 1.30 ms on the H200 (fp32 warm median). A fused kernel moves 0.54 GB (~0.13 ms).
 */
#include <math.h>

#include "kb/ref.h"

enum { BATCH = 8192, DIM = 8192 };

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor t1 = kb_muls(r, KB_NEW, x, 0.5);
    kb_tensor t2 = kb_pows(r, KB_NEW, x, 3.0);
    kb_tensor t3 = kb_muls(r, KB_NEW, t2, 0.044715);
    kb_drop(r, t2);
    kb_tensor t4 = kb_add(r, KB_NEW, x, t3);
    kb_drop(r, t3);
    kb_tensor t5 = kb_muls(r, KB_NEW, t4, sqrt(2.0 / M_PI));
    kb_drop(r, t4);
    kb_tensor t6 = kb_tanh(r, KB_NEW, t5);
    kb_drop(r, t5);
    kb_tensor t7 = kb_adds(r, KB_NEW, t6, 1.0);
    kb_drop(r, t6);
    kb_mul(r, kb_arg(r, "y"), t1, t7);
    kb_drop(r, t1);
    kb_drop(r, t7);
}

KB_PROBLEM(.title = "MinGPTNewGelu",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, DIM), KB_RAND)),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, DIM))),
           .flops = 8.0 * BATCH * DIM) /* 7 multiplies/adds + tanh, counted as in the CSV (5.4e8) */
