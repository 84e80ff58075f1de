/*
 * level2/068_matmul_min_subtract -- KernelBench L2/68: x = torch.min(linear(x), constant);
 * return x - constant, linear = nn.Linear(16384, 16384), constant = nn.Parameter(torch.tensor(2.0))
 * (a 0-d parameter), on x (128, 16384) fp32.
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); torch.min of two
 * tensors is the elementwise minimum (NaN propagates), then the sub. constant is a 0-d CUDA
 * tensor, not a Python number: TensorIterator broadcasts it through its strided path rather than
 * passing a CPU scalar to the functor, so the reference passes it unmarked (no kb_number). Each
 * temporary is freed once the next op has read it.
 * Napkin math: 2 * 128 * 16384 * 16384 = 6.87e10 FLOP: ~1.4 ms of FP32 (~50 TFLOP/s), ~0.2 ms of
 * TF32; the 1.07 GB weight is read in ~0.25 ms, so TF32 is weight-bandwidth-bound. Eager: 1.44 ms
 * on an H100 (reference/kernelbench-problems.csv); 1.55 ms FP32, 0.37 ms TF32 on the H200
 * (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 128, IN = 16384, OUT = 16384 };

static void reference(kb_ref *r)
{
    kb_tensor c = kb_arg(r, "constant");
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "linear.weight"), kb_arg(r, "linear.bias"));
    kb_tensor m = kb_minimum(r, KB_NEW, l, c);
    kb_drop(r, l);
    kb_sub(r, kb_arg(r, "y"), m, c);
}

KB_PROBLEM(.title = "Matmul Min Subtract",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("constant", KB_F32, KB_SCALAR_DIMS, KB_CONST(2.0)),
                     KB_PARAM("linear.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("linear.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, OUT), .terms = IN)),
           .flops = 2.0 * BATCH * OUT * IN + 3.0 * BATCH * OUT) /* GEMM; bias, min, sub */
